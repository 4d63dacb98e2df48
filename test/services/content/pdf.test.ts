import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import type { ContentItem } from "../../../src/services/content/editor-content";
import { contentToPdf } from "../../../src/services/content/pdf";
import { EVERY_TYPE } from "./fixtures";

const header = (bytes: Uint8Array) => new TextDecoder().decode(bytes.slice(0, 5));

describe("contentToPdf", () => {
  it("produces a PDF that pdf-lib can load again, with the title set", async () => {
    const bytes = await contentToPdf(EVERY_TYPE, { title: "Project plan" });
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(header(bytes)).toBe("%PDF-");
    const loaded = await PDFDocument.load(bytes);
    expect(loaded.getPageCount()).toBeGreaterThanOrEqual(1);
    expect(loaded.getTitle()).toBe("Project plan");
    const [width, height] = [loaded.getPage(0).getWidth(), loaded.getPage(0).getHeight()];
    expect([Math.round(width), Math.round(height)]).toEqual([595, 842]); // A4
  });

  it("renders an empty body", async () => {
    const loaded = await PDFDocument.load(await contentToPdf([]));
    expect(loaded.getPageCount()).toBe(1);
  });

  it("breaks a long document over several pages", async () => {
    const paragraph: ContentItem = {
      type: "paragraph",
      children: [
        { text: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ".repeat(8) },
      ],
    };
    const long: ContentItem[] = [
      ...Array.from({ length: 60 }, () => paragraph),
      { type: "code", children: [{ text: Array.from({ length: 120 }, (_, i) => `line ${i}`).join("\n") }] },
      { type: "paragraph", children: [{ text: `https://example.com/${"x".repeat(400)}` }] },
    ];
    const loaded = await PDFDocument.load(await contentToPdf(long, { title: "Long" }));
    expect(loaded.getPageCount()).toBeGreaterThanOrEqual(5);
  });

  it("prints characters the standard fonts cannot encode as ? instead of throwing", async () => {
    const items: ContentItem[] = [
      { type: "heading-1", children: [{ text: "Emoji 🎉 and 漢字" }] },
      { type: "paragraph", children: [{ text: "Family 👨‍👩‍👧 · café · “quotes” – €", bold: true, italic: true }] },
      { type: "callout", children: [{ text: "Tip" }], icon: "💡" },
      { type: "code", children: [{ text: "print('🐍')\tx" }] },
      { type: "to_do", children: [{ text: "Привет" }], checked: true },
      { type: "table", children: [{ text: "" }], rows: [["😀", "ok"]], has_header: true },
    ];
    const bytes = await contentToPdf(items, { title: "Title 🚀" });
    expect(header(bytes)).toBe("%PDF-");
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
  });
});

describe("line breaks of every kind", () => {
  it("renders text holding carriage returns, CRLF and other separators", async () => {
    const bytes = await contentToPdf(
      [{ type: "paragraph", children: [{ text: "a\rb\r\nc\nd\u2028e\u0085f\vg\fh" }] }],
      { title: "Breaks\r" },
    );
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
  });
});
