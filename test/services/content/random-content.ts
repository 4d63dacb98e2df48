import type { ContentItem, TextSpan } from "../../../src/services/content/editor-content";

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  return { next, pick };
}

// Characters and words that mean something in markdown or HTML, mixed with ordinary text.
const PIECES = [
  "",
  "a",
  "word",
  " ",
  " ",
  "\n",
  "*",
  "_",
  "`",
  "[",
  "]",
  "(",
  ")",
  "<",
  ">",
  "#",
  "-",
  "+",
  "1.",
  "2)",
  "|",
  "~",
  "&",
  "&amp;",
  "&#32;",
  "\\",
  "!",
  ":",
  "=",
  "\t",
  "é",
  "💡",
  "漢字",
  "http://x.y",
  "  ",
  "'",
  '"',
  "<br>",
  "[!NOTE]",
  "---",
  "```",
];
const LINKS = ["https://a.b/c", "https://a.b/(x)", "/rel path", "https://a.b/?q=1&r=2", "mailto:x@y.z"];
const TYPES = [
  "paragraph",
  "heading-1",
  "heading-2",
  "heading-3",
  "quote",
  "bulleted-list",
  "numbered-list",
  "to_do",
  "callout",
  "code",
  "divider",
  "toggle",
  "table",
  "image",
  "video",
  "audio",
  "embed",
] as const;

export function randomContent(seed: number, size = 6, depth = 0): ContentItem[] {
  const { next, pick } = seeded(seed);
  const text = (max = 5) => Array.from({ length: 1 + Math.floor(next() * max) }, () => pick(PIECES)).join("");
  const spans = (): TextSpan[] =>
    Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
      const span: TextSpan = { text: text() };
      if (next() < 0.3) span.bold = true;
      if (next() < 0.3) span.italic = true;
      if (next() < 0.15) span.code = true;
      if (next() < 0.15) span.strikethrough = true;
      if (next() < 0.15) span.link = pick(LINKS);
      return span;
    });
  return Array.from({ length: 1 + Math.floor(next() * size) }, (): ContentItem => {
    const type = pick(depth > 1 ? TYPES.filter((t) => t !== "toggle") : TYPES);
    const indent = Math.floor(next() * 4);
    switch (type) {
      case "bulleted-list":
      case "numbered-list":
        return { type, children: spans(), indent };
      case "to_do":
        return { type, children: spans(), checked: next() < 0.5, indent };
      case "callout":
        return { type, children: spans(), ...(next() < 0.5 ? { icon: pick(["💡", "⚠️", "*", "i"]) } : {}) };
      case "code":
        return {
          type,
          children: [{ text: text(8) }],
          ...(next() < 0.5 ? { language: pick(["ts", "c++", "html"]) } : {}),
        };
      case "divider":
        return { type, children: [{ text: "" }] };
      case "toggle":
        return { type, children: spans(), content: randomContent(seed * 31 + 7, 4, depth + 1) };
      case "table": {
        const width = 1 + Math.floor(next() * 3);
        const rows = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
          Array.from({ length: width }, () => (next() < 0.2 ? "" : text(3))),
        );
        return { type, children: [{ text: "" }], rows, has_header: next() < 0.5 };
      }
      case "image":
      case "video":
      case "audio":
      case "embed":
        return { type, url: pick(LINKS), children: [{ text: next() < 0.3 ? "" : text(3) }] };
      default:
        return { type, children: spans() };
    }
  });
}
