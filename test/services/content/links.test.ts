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
    expect(unsafeLinks(media, "content").map((issue) => issue.path)).toEqual([
      "content[1].url",
      "content[2].url",
      "content[4].url",
    ]);
  });

  it("checks href, src and url keys anywhere: on items, on spans and at any depth below them", () => {
    const content = [
      { type: "paragraph", href: "javascript:1", children: [{ text: "a", href: "vbscript:2" }] },
      { type: "paragraph", src: "data:text/html,3", children: [{ text: "b", url: "file:///4" }] },
      {
        type: "toggle",
        children: [{ text: "t" }],
        content: [{ type: "quote", children: [{ text: "q", src: "javascript:5" }] }],
      },
      { type: "callout", children: [{ text: "c", deep: { deeper: [{ url: "javascript:6" }] } }] },
      { type: "paragraph", href: "https://example.com", src: "/a.png", url: "#c", children: [{ text: "fine" }] },
      { type: "paragraph", children: [{ text: "m", href: "mention:page:p1" }] },
    ];
    expect(unsafeLinks(content, "content").map((issue) => issue.path)).toEqual([
      "content[0].href",
      "content[0].children[0].href",
      "content[1].src",
      "content[1].children[0].url",
      "content[2].content[0].children[0].src",
      "content[3].children[0].deep.deeper[0].url",
    ]);
  });

  it("inline data is a source of a media item (or of what lies in one) only, and never a link", () => {
    const png = "data:image/png;base64,AAAA";
    const content = [
      { type: "paragraph", children: [{ text: "a", src: png }] },
      { type: "paragraph", url: png, children: [{ text: "b" }] },
      { type: "image", url: png, src: png, props: { url: png }, children: [{ text: "c", href: png }] },
      { type: "video", url: "data:video/mp4;base64,AAAA", children: [{ text: "" }] },
    ];
    expect(unsafeLinks(content, "content").map((issue) => issue.path)).toEqual([
      "content[0].children[0].src",
      "content[1].url",
      "content[2].children[0].href",
    ]);
    // An editor block that is itself an image may hold inline image data in its own content.
    expect(unsafeLinks({ props: { url: png } }, "content", "image")).toEqual([]);
    expect(unsafeLinks({ props: { url: png } }, "content", "paragraph")).toHaveLength(1);
  });

  it.each([
    "data:image/svg+xml,<svg onload=alert(1)>",
    "data:image/svg+xml;base64,PHN2Zz4=",
    "DATA:IMAGE/SVG+XML;charset=utf-8,<svg/>",
    "data: image/svg+xml ,<svg/>",
    "data:image/svg,<svg/>",
  ])("refuses %j as an image (SVG runs scripts), and the HTML export shows no image", (url) => {
    expect(safeUrl(url, "image")).toBeUndefined();
    const content = [{ type: "image", url, children: [{ text: "" }] }];
    expect(unsafeLinks(content, "content")).toEqual([expect.objectContaining({ path: "content[0].url", url })]);
    expect(contentToHtml(content as never)).not.toContain("<img");
  });

  it.each([
    "data:image/png;base64,AAAA",
    "data:image/jpeg;base64,AAAA",
    "data:image/gif;base64,AAAA",
    "data:image/webp;base64,AAAA",
  ])("keeps %j as an image, written and exported", (url) => {
    expect(safeUrl(url, "image")).toBe(url);
    const content = [{ type: "image", url, children: [{ text: "" }] }];
    expect(unsafeLinks(content, "content")).toEqual([]);
    expect(contentToHtml(content as never)).toContain(`<img src="${url}"`);
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
