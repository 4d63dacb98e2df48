import { decodeHTMLStrict } from "entities";
import type { Token } from "markdown-it";
import { markdownTokens } from "./markdown-tokens";
import { linkOrMention } from "./mentions";
import type { TextSpan } from "./schema";
import { MARKS, type Mark, normalizeSpans } from "./spans";

/** markdown-it's inline tokens and inline HTML → text spans; used by both markdown directions. */

/**
 * Entities in HTML outside markdown (a toggle's `<summary>`, an `<a href>`), decoded as
 * markdown-it decodes them in markdown: every HTML5 name, with its semicolon.
 */
const decodeEntities = (text: string) => decodeHTMLStrict(text);

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
    if (link) Object.assign(marks, linkOrMention(link));
    return marks;
  }
}

/** The mark each open and close token of markdown emphasis and strikethrough switches. */
const MARK_TOKENS: Record<string, [Mark, 1 | -1]> = {
  strong_open: ["bold", 1],
  strong_close: ["bold", -1],
  em_open: ["italic", 1],
  em_close: ["italic", -1],
  s_open: ["strikethrough", 1],
  s_close: ["strikethrough", -1],
};

/**
 * Spans of markdown-it's inline tokens (an `inline` token's children). The tokens are flat, with
 * open and close tokens for marks and links, so marks are counted rather than recursed into:
 * emphasis nested a million deep is a million tokens, not a million stack frames.
 */
export function tokensToSpans(tokens: readonly Token[]): TextSpan[] {
  const tags = new TagMarks();
  const marks: Record<Mark, number> = { bold: 0, italic: 0, strikethrough: 0 };
  const links: string[] = [];
  const spans: TextSpan[] = [];
  // Markdown marks and links win over those of HTML tags around them.
  const push = (text: string, extra: Omit<TextSpan, "text"> = {}) => {
    const span: TextSpan = { text, ...tags.marks() };
    for (const mark of MARKS) if (marks[mark] > 0) span[mark] = true;
    if (links.length > 0) {
      // The markdown link wins over an HTML one around it, whichever of link or mention each is.
      delete span.link;
      delete span.mention;
      Object.assign(span, linkOrMention(links.at(-1) as string));
    }
    spans.push({ ...span, ...extra });
  };
  for (const token of tokens) {
    const switched = Object.hasOwn(MARK_TOKENS, token.type) ? MARK_TOKENS[token.type] : undefined;
    if (switched) {
      marks[switched[0]] += switched[1];
      continue;
    }
    switch (token.type) {
      case "text":
      case "text_special":
        push(token.content);
        break;
      case "softbreak":
      case "hardbreak":
        push("\n");
        break;
      case "code_inline":
        push(token.content, { code: true });
        break;
      case "link_open":
        links.push(token.attrGet("href")?.toString() ?? "");
        break;
      case "link_close":
        links.pop();
        break;
      case "image": {
        // An image inside running text cannot be an item of its own: keep it as a link.
        const src = token.attrGet("src")?.toString() ?? "";
        push(plainText(token.children ?? []) || src, { link: src });
        break;
      }
      case "html_inline":
        // Comments are invisible in rendered markdown, so they carry no text.
        if (!token.content.startsWith("<!--")) push(tags.apply(token.content) ?? token.content);
        break;
      default:
        push(token.content);
    }
  }
  return spans;
}

/** The text of inline tokens, without marks (an image's description). */
export const plainText = (tokens: readonly Token[]) =>
  normalizeSpans(tokensToSpans(tokens))
    .map((span) => span.text)
    .join("");

/**
 * The spans a line of inline markdown reads back as, parsed as a whole document: block-level
 * rules matter too (`[x]: y` at the start of a paragraph is a link definition, not text).
 */
export function parseInline(markdown: string): TextSpan[] | undefined {
  const tokens = markdownTokens(markdown);
  const [open, inline] = tokens;
  if (tokens.length !== 3 || open?.type !== "paragraph_open") return undefined;
  return normalizeSpans(tokensToSpans(inline?.children ?? []));
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
