import { describe, expect, it } from "vitest";
import { contentToHtml } from "../../../src/services/content/html";
import { safeUrl, unsafeLinks } from "../../../src/services/content/links";

// One rule for what a link may be: writes refuse what the HTML export would not link.

const REFUSED = [
  "javascript:alert(1)",
  "JAVASCRIPT:alert(1)",
  " javascript:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "\u0001javascript:alert(1)",
  "vbscript:msgbox",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "blob:https://example.com/x",
  "mention:nothing",
];
const LINKED = [
  "https://example.com",
  "HTTP://example.com",
  "mailto:a@example.com",
  "tel:+1",
  "/a",
  "#b",
  "c.html",
  "?q",
];

describe("links", () => {
  it.each(REFUSED)("refuses %j in a span, and the HTML export does not link it", (link) => {
    expect(safeUrl(link)).toBeUndefined();
    const content = [{ type: "paragraph", children: [{ text: "x", link }] }];
    expect(unsafeLinks(content, "content")).toEqual([
      { path: "content[0].children[0].link", code: "unsafe_link", message: expect.any(String), url: link },
    ]);
    expect(contentToHtml(content as never)).not.toContain("<a href");
  });

  it.each(LINKED)("accepts %j, and the HTML export links it", (link) => {
    expect(safeUrl(link)).toBe(link.trim());
    const content = [{ type: "paragraph", children: [{ text: "x", link }] }];
    expect(unsafeLinks(content, "content")).toEqual([]);
    expect(contentToHtml(content as never)).toContain("<a href");
  });

  it("accepts a mention destination, which is a mention and not a link", () => {
    expect(unsafeLinks([{ text: "@p", link: "mention:page:p1" }], "content")).toEqual([]);
  });

  it("checks media urls by kind: inline data of the item's own kind only, none for an embed", () => {
    const media = [
      { type: "image", url: "data:image/png;base64,AAAA" },
      { type: "video", url: "data:image/png;base64,AAAA" },
      { type: "embed", url: "data:text/html,x" },
      { type: "audio", url: "https://example.com/a.mp3" },
      { type: "paragraph", url: "javascript:not-a-media-url" },
    ];
    expect(unsafeLinks(media, "content").map((issue) => issue.path)).toEqual(["content[1].url", "content[2].url"]);
  });

  it("walks any shape, in document order, and keeps the first 200 characters of a link", () => {
    const long = `javascript:${"a".repeat(300)}`;
    const content = { a: [{ b: { link: "vbscript:x" } }], c: { link: long }, d: "javascript:not-a-link-key" };
    expect(unsafeLinks(content, "content")).toEqual([
      expect.objectContaining({ path: "content.a[0].b.link" }),
      expect.objectContaining({ path: "content.c.link", url: long.slice(0, 200) }),
    ]);
  });
});
