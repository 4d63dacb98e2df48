import type { Token } from "marked";
import { lexMarkdown } from "./markdown-lexer";
import type { TextSpan } from "./schema";
import { type Mark, normalizeSpans } from "./spans";

/** Markdown and inline HTML → text spans; the lexer both markdown directions share. */

/**
 * The block lexer (GFM: tables, strikethrough and task lists on). Autolinks are off: a bare URL
 * in plain text must stay plain text, not become a link span the author never made.
 */
export const lexBlocks = (markdown: string) => lexMarkdown(markdown);

// The entities people actually type; others stay as written (the full HTML table is 2,000+ names).
const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  deg: "°",
  plusmn: "±",
  times: "×",
  divide: "÷",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  sect: "§",
  para: "¶",
  larr: "←",
  rarr: "→",
  uarr: "↑",
  darr: "↓",
};

/** The lexer leaves entities as written; content holds the characters. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
    }
    return NAMED_ENTITIES[name] ?? whole;
  });
}

const TAG_MARKS: Record<string, Mark | "code"> = {
  strong: "bold",
  b: "bold",
  em: "italic",
  i: "italic",
  del: "strikethrough",
  s: "strikethrough",
  code: "code",
};

/** Marks switched on and off by inline HTML tags, which arrive as separate open/close tokens. */
class TagMarks {
  private readonly counts = { bold: 0, italic: 0, strikethrough: 0, code: 0 };
  private readonly links: string[] = [];

  /** Applies a tag; returns the text it stands for, or undefined when it is not one we know. */
  apply(tag: string): string | undefined {
    const match = /^<(\/?)([a-zA-Z]+)\b([^>]*)>$/.exec(tag.trim());
    if (!match) return undefined;
    const [, closing, rawName = "", attributes = ""] = match;
    const name = rawName.toLowerCase();
    if (name === "br") return "\n";
    const mark = Object.hasOwn(TAG_MARKS, name) ? TAG_MARKS[name] : undefined;
    if (mark) {
      this.counts[mark] = Math.max(0, this.counts[mark] + (closing ? -1 : 1));
      return "";
    }
    if (name === "a") {
      if (closing) this.links.pop();
      else this.links.push(decodeEntities(/href\s*=\s*"([^"]*)"/i.exec(attributes)?.[1] ?? ""));
      return "";
    }
    return undefined;
  }

  marks(): Omit<TextSpan, "text"> {
    const marks: Omit<TextSpan, "text"> = {};
    if (this.counts.bold) marks.bold = true;
    if (this.counts.italic) marks.italic = true;
    if (this.counts.strikethrough) marks.strikethrough = true;
    if (this.counts.code) marks.code = true;
    const link = this.links.at(-1);
    if (link) marks.link = link;
    return marks;
  }
}

/**
 * Spans of lexed inline tokens (also accepts block `text` tokens, which nest inline ones), added
 * to `spans` (not spread into it: a long paragraph has more tokens than a call takes arguments).
 */
export function tokensToSpans(
  tokens: readonly Token[],
  inherited: Omit<TextSpan, "text"> = {},
  tags = new TagMarks(),
  spans: TextSpan[] = [],
): TextSpan[] {
  const push = (text: string, extra: Omit<TextSpan, "text"> = {}) =>
    spans.push({ text, ...tags.marks(), ...inherited, ...extra });
  for (const token of tokens) {
    switch (token.type) {
      case "text":
        if (token.tokens) tokensToSpans(token.tokens, inherited, tags, spans);
        else push(decodeEntities(token.text));
        break;
      case "escape":
        push(token.text);
        break;
      case "codespan":
        push(token.text, { code: true });
        break;
      case "br":
        push("\n");
        break;
      case "strong":
      case "em":
      case "del": {
        const mark = token.type === "strong" ? "bold" : token.type === "em" ? "italic" : "strikethrough";
        tokensToSpans(token.tokens ?? [], { ...inherited, [mark]: true }, tags, spans);
        break;
      }
      case "link":
        tokensToSpans(token.tokens ?? [], { ...inherited, link: token.href }, tags, spans);
        break;
      case "image":
        // An image inside running text cannot be an item of its own: keep it as a link.
        push(token.text || token.href, { link: token.href });
        break;
      case "html":
        // Comments are invisible in rendered markdown, so they carry no text.
        if (!token.text.startsWith("<!--")) push(tags.apply(token.text) ?? token.text);
        break;
      default:
        push("raw" in token ? String(token.raw) : "");
    }
  }
  return spans;
}

/**
 * The spans a line of inline markdown reads back as, lexed as a whole paragraph: block-level
 * rules matter too (`[x]: y` at the start of a paragraph is a link definition, not text).
 */
export function parseInline(markdown: string): TextSpan[] | undefined {
  const blocks = lexBlocks(markdown).filter((token) => token.type !== "space");
  const [only] = blocks;
  if (blocks.length !== 1 || only?.type !== "paragraph") return undefined;
  return normalizeSpans(tokensToSpans(only.tokens ?? []));
}

/** Spans of an HTML fragment outside markdown (a toggle's `<summary>`). */
export function htmlToSpans(html: string): TextSpan[] {
  const tags = new TagMarks();
  const spans: TextSpan[] = [];
  for (const part of splitTags(withoutComments(html))) {
    if (part === "") continue;
    const text = part.startsWith("<") ? (tags.apply(part) ?? decodeEntities(part)) : decodeEntities(part);
    spans.push({ text, ...tags.marks() });
  }
  return normalizeSpans(spans);
}

// Both scans below move forward only. (The regexes they replace, /<!--[\s\S]*?-->/g and
// /(<\/?[a-zA-Z][^>]*>)/, scan to the end of the text from every unclosed `<!--` or `<a`.)

/** `html` without its `<!-- … -->` comments. */
function withoutComments(html: string): string {
  let out = "";
  let from = 0;
  for (let start = html.indexOf("<!--"); start !== -1; start = html.indexOf("<!--", from)) {
    const end = html.indexOf("-->", start + 4);
    if (end === -1) break; // nor does any later comment end
    out += html.slice(from, start);
    from = end + 3;
  }
  return out + html.slice(from);
}

/** Text and tags (`<name …>`, `</name …>`) in turn, starting and ending with text (maybe ""). */
function splitTags(html: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let start = html.indexOf("<"); start !== -1; start = html.indexOf("<", start + 1)) {
    const name = html[start + 1] === "/" ? start + 2 : start + 1;
    if (!/[a-zA-Z]/.test(html[name] ?? "")) continue;
    const end = html.indexOf(">", name);
    if (end === -1) break; // nor can any later tag end
    parts.push(html.slice(from, start), html.slice(start, end + 1));
    from = end + 1;
    start = end;
  }
  parts.push(html.slice(from));
  return parts;
}
