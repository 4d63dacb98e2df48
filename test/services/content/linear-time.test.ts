import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import {
  type ContentItem,
  contentText,
  type TextSpan,
  validateContent,
} from "../../../src/services/content/editor-content";
import { contentToHtml } from "../../../src/services/content/html";
import { contentToMarkdown, markdownToContent, normalizeContent } from "../../../src/services/content/markdown";
import { MAX_MARKDOWN_NESTING, MarkdownNestingError } from "../../../src/services/content/markdown-tokens";
import { contentToPdf } from "../../../src/services/content/pdf";

/**
 * Worst cases of about 1 MiB for every content path: long runs of one character, openers that
 * never close, deep nesting, many lines. Each has to finish well inside the test timeout (60 s, vitest.config.ts); work
 * that grows with the square of the input (regex backtracking, a scan to the end of the text
 * from every position) takes minutes at this size. The outputs are checked too.
 */

const MiB = 1 << 20;
/** `unit` repeated to about `size` characters. */
const repeat = (unit: string, size = MiB) => unit.repeat(Math.ceil(size / unit.length));
const count = (text: string, ch: string) => text.split(ch).length - 1;
const paragraph = (text: string, marks: Omit<TextSpan, "text"> = {}): ContentItem[] => [
  { type: "paragraph", children: [{ text, ...marks }] },
];
const roundTrip = (items: ContentItem[]) =>
  expect(markdownToContent(contentToMarkdown(items))).toEqual(normalizeContent(items));

describe("content → markdown", () => {
  it("writes a bold span holding a 1 MiB run of spaces", () => {
    const items = paragraph(`a${repeat(" ")}b`, { bold: true });
    expect(contentToMarkdown(items).startsWith("**a ")).toBe(true);
    roundTrip(items);
  });

  it.each([
    ["italic", " \n\t"],
    ["strikethrough", " \n\t"],
    ["bold", "  a  "],
  ] as const)("writes a span marked %s holding 1 MiB of %j", (mark, unit) => {
    roundTrip(paragraph(`x${repeat(unit)}y`, { [mark]: true }));
  });

  it.each([
    "!",
    "*",
    "_",
    "\\",
    "`",
    "[",
    "]",
    "<",
    "~",
    "&",
    "#",
    "|",
    "(",
    "!a",
    "*_a",
    "a-_",
    "http",
    "[a](b)",
    "a <!--",
  ])("round-trips 1 MiB of %j in plain, bold, code and linked spans", (unit) => {
    const text = repeat(unit, MiB / 4);
    roundTrip(
      [{}, { bold: true }, { code: true }, { link: "https://example.com/" }].flatMap((m) => paragraph(text, m)),
    );
  });

  it("writes 1 MiB of spans switching bold, italic, strikethrough and links", () => {
    const children = Array.from({ length: MiB / 64 }, (_, i) => ({
      text: "word ",
      ...(i % 2 ? { bold: true } : {}),
      ...(i % 3 ? { italic: true } : {}),
      ...(i % 5 ? { strikethrough: true } : {}),
      ...(i % 7 ? { link: `https://example.com/${i % 11}` } : {}),
    }));
    roundTrip([{ type: "paragraph", children }]);
  });

  it("writes code holding backtick runs of many lengths, as a block and as a span", () => {
    let ticks = "";
    for (let run = 1; ticks.length < MiB / 2; run++) ticks += `${"`".repeat(run % 50)}a`;
    roundTrip([
      { type: "code", children: [{ text: ticks }] },
      { type: "paragraph", children: [{ text: ticks, code: true }] },
    ]);
  });

  it("writes a list of 1 MiB and a caption of brackets", () => {
    const list: ContentItem[] = Array.from({ length: MiB / 64 }, (_, i) => ({
      type: i % 2 ? "bulleted-list" : "numbered-list",
      children: [{ text: "item" }],
      indent: i % 7,
    }));
    const media: ContentItem = { type: "image", url: "https://example.com/i.png", children: [{ text: repeat("](") }] };
    roundTrip([...list, media]);
  });
});

describe("markdown → content", () => {
  it("reads 1 MiB of <summary> lines under a <details>", () => {
    const markdown = `<details>\n${repeat("<summary>x\n")}`;
    expect(count(contentText(markdownToContent(markdown)), "x")).toBe(count(markdown, "x"));
  });

  it.each(["<b", "<!--", "&amp"])("reads a <summary> holding 1 MiB of %j", (unit) => {
    const items = markdownToContent(`<details>\n<summary>${repeat(unit)}</summary>\n\nbody\n\n</details>`);
    expect(items).toMatchObject([{ type: "toggle", content: [{ children: [{ text: "body" }] }] }]);
  });

  // Each unit repeated to 1 MiB, then one of every closer: an opener whose closer is far away or
  // missing was read to the end of the text from every position.
  const CLOSERS = " a* a_ a~ a~~ a** a*** ) )x --> ?> > ]]> \\--> ``` ` ]( ]";
  it.each([
    "*_a",
    "_*a",
    "a-_",
    "a-~",
    "**_a",
    "*a ",
    "_a ",
    "~a ",
    "~~a ",
    "***a ",
    "a**",
    "!",
    "!a",
    "http",
    "a@",
    "[a](b)",
    "![a](b)",
    "[a](",
    "[a](b (",
    "[a](b\\)",
    "[",
    "[a]",
    "[`",
    "[a``](b",
    "a <!--",
    "<!--a> *",
    "<?",
    "<!A ",
    "<![CDATA[",
    "<x b=",
    "`a",
    "``a`",
    "\\",
    "&#",
    "a  \n",
  ])("reads 1 MiB of %j with closers at the end", (unit) => {
    const markdown = repeat(unit) + CLOSERS;
    const items = markdownToContent(markdown);
    expect(() => validateContent(items)).not.toThrow();
    // The text is kept, but for what a last comment, link title or destination takes in.
    if (!/[<&(]/.test(unit)) expect(count(contentText(items), "a")).toBe(count(markdown, "a"));
  });

  it("reads a reference definition and 1 MiB of brackets and escapes", () => {
    const brackets = repeat("[x]\\[");
    const items = markdownToContent(`[x]: https://example.com/\n\n${brackets}`);
    expect(count(contentText(items), "x")).toBe(count(brackets, "x"));
  });

  it("reads backtick runs of every length up to a thousand", () => {
    let markdown = "*";
    for (let run = 1; markdown.length < MiB; run++) markdown += `${"`".repeat(run)}a`;
    expect(count(contentText(markdownToContent(markdown)), "a")).toBe(count(markdown, "a"));
  });

  it.each([
    ["a list item", "- a\n", "  b\n"],
    ["a list item with lazy lines", "- a\n", "b\n"],
    ["a list item in a quote", "> - a\n", "> b\n"],
    ["a list item with definitions", "- a\n", "  [x]: y\n"],
    ["a list item with indented code", "- a\n", "  b\n      c\n"],
    ["a paragraph with table-like lines", "a\n", "|b|\n|-|-|\n"],
  ])("reads %s of 1 MiB of lines", (_, first, line) => {
    const markdown = first + repeat(line);
    const items = markdownToContent(markdown);
    expect(items.length).toBeLessThan(5);
    expect(contentText(items).length).toBeGreaterThan(MiB / 4);
  });

  // Line i nested i deep, and how many depths are within the limit: a quote is one level, a list
  // two (list and item), and a block is refused at level MAX_MARKDOWN_NESTING.
  const DEEP_LINES = [
    ["a deep list", (i: number) => `${"  ".repeat(i)}- a\n`, MAX_MARKDOWN_NESTING / 2 - 1],
    ["deep quotes", (i: number) => `${">".repeat(i)} a\n`, MAX_MARKDOWN_NESTING],
    ["a deep numbered list", (i: number) => `${"   ".repeat(i)}1. a\n`, MAX_MARKDOWN_NESTING / 2 - 1],
  ] as const;

  it.each(DEEP_LINES)("reads %s nested to the limit and again, to 1 MiB", (_, line, depths) => {
    let markdown = "";
    for (let i = 0; markdown.length < MiB; i++) markdown += (i % depths === 0 ? "\n" : "") + line(i % depths);
    expect(count(contentText(markdownToContent(markdown)), "a")).toBe(count(markdown, "a"));
  });

  it.each(DEEP_LINES)("refuses %s of 1 MiB nested past the limit", (_, line) => {
    let markdown = "";
    for (let i = 0; markdown.length < MiB; i++) markdown += line(i);
    expect(() => markdownToContent(markdown)).toThrow(MarkdownNestingError);
  });

  it.each([
    ["emphasis", "*a ", " a*"],
    ["strong emphasis", "**a ", " a**"],
    ["strikethrough", "~~a ", " a~~"],
    ["links", "[a ", "](b)"],
  ])("reads %s nested as deep as 1 MiB allows", (_, open, close) => {
    const depth = Math.floor(MiB / (open.length + close.length));
    const items = markdownToContent(`${open.repeat(depth)}x${close.repeat(depth)}`);
    expect(count(contentText(items), "x")).toBe(1);
  });

  it.each([
    ["quotes", "> "],
    ["list items", "- "],
  ])("refuses %s nested as deep as 1 MiB allows", (_, open) => {
    expect(() => markdownToContent(`${open.repeat(MiB / open.length)}x`)).toThrow(MarkdownNestingError);
  });

  it("reads 1 MiB of lists, paragraphs and toggles", () => {
    const markdown = repeat("- a\n- [ ] b\n\nc\n\n<details>\n<summary>d</summary>\n\nz\n\n</details>\n\n");
    const items = markdownToContent(markdown);
    expect(items.length).toBeGreaterThan(MiB / 64);
    expect(count(contentText(items), "z")).toBe(count(markdown, "z"));
  });
});

describe("validate, normalize and HTML", () => {
  it("validates and normalizes 1 MiB of items and spans", () => {
    const items = Array.from({ length: MiB / 128 }, (_, i) => ({
      type: "paragraph",
      children: [{ text: "some ", bold: i % 2 === 0 }, { text: "words " }, { text: " ", italic: true }],
    }));
    expect(normalizeContent(validateContent(items))).toHaveLength(items.length);
  });

  it.each([" ", "\n\t"])("renders HTML of a bold span holding 1 MiB of %j", (unit) => {
    expect(contentToHtml(paragraph(`a${repeat(unit)}b`, { bold: true }))).toContain("<strong>a");
  });
});

describe("PDF", () => {
  const pages = async (items: ContentItem[]) => (await PDFDocument.load(await contentToPdf(items))).getPageCount();

  it.each([
    ["a word", "x"],
    ["a word of narrow letters", "il"],
    ["a word of joiners", "W\u200d\ufe0f"],
  ])("lays out %s of 1 MiB", async (_, unit) => {
    expect(await pages(paragraph(repeat(unit)))).toBeGreaterThan(1);
  });

  it("lays out code with a 1 MiB line of spaces", async () => {
    expect(await pages([{ type: "code", children: [{ text: `${repeat(" ")}x` }] }])).toBeGreaterThan(0);
  });

  it("lays out 1 MiB of spans", async () => {
    const children = Array.from({ length: MiB / 32 }, (_, i) => ({ text: "word ", bold: i % 2 === 0 }));
    expect(await pages([{ type: "paragraph", children }])).toBeGreaterThan(1);
  });
});
