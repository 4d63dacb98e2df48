import { parseInline } from "./inline-parse";
import { mentionAsLink } from "./mentions";
import type { TextSpan } from "./schema";
import { MARKS, type Mark, normalizeSpans } from "./spans";

/**
 * Text spans → inline markdown, for the block renderer in markdown.ts.
 *
 * Marks are written as markdown delimiters; when CommonMark's flanking rules would read them
 * differently (e.g. `foo**(bar)**`), the block's spans are written with inline HTML tags
 * instead, which the parser reads back. Either way the spans survive a round trip.
 */

const DELIMITER: Record<Mark, string> = { bold: "**", italic: "*", strikethrough: "~~" };
const HTML_TAG: Record<Mark | "code", string> = { bold: "strong", italic: "em", strikethrough: "del", code: "code" };

/** Both normalised already (parseInline's result and spansToMarkdown's input). */
const spansEqual = (a: TextSpan[] | undefined, b: TextSpan[]) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** An `&` that markdown would read as the start of an entity (`&amp;`, `&#32;`). */
export const ENTITY_AMPERSAND = /&(?=#?[a-zA-Z0-9]+;)/g;

export interface InlineMode {
  /** `hard`: a line break is `\` + newline where possible; `html`: always `<br>` (headings, cells). */
  breaks: "hard" | "html";
  /** Also escape `|` (table cells) or `#` (ATX headings, whose trailing `#`s would be eaten). */
  escapeExtra?: string;
}

/**
 * Escapes plain text so the parser reads it back as exactly that text. A line break is a `\`
 * hard break when text follows it on the next line, otherwise `<br>` (a `\` before nothing,
 * or on a line of its own, is not a break).
 */
export function escapeText(text: string, mode: InlineMode, atLineStart = true): string {
  const extra = mode.escapeExtra ?? "";
  const lines = text.split("\n").map((line, index) => {
    let out = line.replace(/[\\`*_[\]<~]/g, "\\$&").replace(ENTITY_AMPERSAND, "\\&");
    for (const ch of extra) out = out.replaceAll(ch, `\\${ch}`);
    if (index > 0 || atLineStart) {
      // What would start a block at the beginning of a line; leading spaces would be dropped.
      out = out
        .replace(/^[ \t]+/, (ws) => ws.replaceAll(" ", "&#32;").replaceAll("\t", "&#9;"))
        .replace(/^([#>+=|:-])/, "\\$1")
        .replace(/^(\d+)([.)])/, "$1\\$2");
    }
    return out;
  });
  return lines.reduce((out, line, index) => {
    if (index === 0) return line;
    const previous = lines[index - 1] as string;
    const html = mode.breaks === "html" || line === "" || (index === 1 && previous === "" && atLineStart);
    return `${out}${html ? "<br>" : "\\\n"}${line}`;
  }, "");
}

/** Length of the longest match of a global `run` pattern in `text` (0 for none). */
export function longestRun(text: string, run: RegExp): number {
  let longest = 0;
  for (const [match] of text.matchAll(run)) longest = Math.max(longest, match.length);
  return longest;
}

export function codeSpan(text: string): string {
  const fence = "`".repeat(longestRun(text, /`+/g) + 1);
  const pad = /^[`\s]|[`\s]$/.test(text) && text.trim() !== "" ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * A link/image destination, in angle brackets when it holds what would end a bare one. An `&`
 * that would start an entity is escaped, as entities are read in destinations too.
 */
export function linkDestination(url: string): string {
  if (url === "" || /[\s()<>\\]/.test(url))
    return `<${url.replace(/[<>\\]/g, "\\$&").replace(ENTITY_AMPERSAND, "\\&")}>`;
  return url.replace(ENTITY_AMPERSAND, "\\&");
}

/** Inline markdown for a block's spans (newlines resolved). Falls back to HTML tags, see top. */
export function spansToMarkdown(spans: readonly TextSpan[], mode: InlineMode): string {
  const normal = normalizeSpans(spans);
  if (normal.length === 1 && normal[0]?.text === "") return "";
  // Mentions are written as links to `mention:` destinations; parsing reads them back as mentions.
  const linked = normal.map(mentionAsLink);
  const delimited = finishBlock(renderDelimited(linked, mode));
  if (spansEqual(parseInline(delimited), normal)) return delimited;
  return finishBlock(renderTagged(linked, mode));
}

function renderDelimited(spans: TextSpan[], mode: InlineMode): string {
  // Keys of open marks, outermost first; a link is `link:<url>`.
  const open: string[] = [];
  const keysOf = (span: TextSpan) => [
    ...(span.link ? [`link:${span.link}`] : []),
    ...MARKS.filter((mark) => span[mark]),
  ];
  const close = (key: string) =>
    key.startsWith("link:") ? `](${linkDestination(key.slice(5))})` : DELIMITER[key as Mark];
  // How many spans from each one on carry each of its keys, counted once from the end.
  const keys = spans.map(keysOf);
  const runs: Map<string, number>[] = [];
  for (let index = spans.length - 1; index >= 0; index--) {
    const next = runs[index + 1];
    runs[index] = new Map((keys[index] as string[]).map((key) => [key, 1 + (next?.get(key) ?? 0)]));
  }
  const runLength = (from: number, key: string) => runs[from]?.get(key) ?? 0;
  let out = "";
  let atLineStart = true;
  spans.forEach((span, index) => {
    const wanted = keys[index] as string[];
    let keep = 0;
    while (keep < open.length && wanted.includes(open[keep] as string)) keep++;
    while (open.length > keep) out += close(open.pop() as string);
    // Marks that last longest open first, so fewer delimiters have to close and reopen.
    const opening = wanted
      .filter((key) => !open.includes(key))
      .sort((a, b) => runLength(index, b) - runLength(index, a));
    for (const key of opening) {
      out += key.startsWith("link:") ? "[" : DELIMITER[key as Mark];
      open.push(key);
    }
    out += span.code ? codeSpan(span.text) : escapeText(span.text, mode, atLineStart);
    atLineStart = span.text.endsWith("\n");
  });
  while (open.length > 0) out += close(open.pop() as string);
  return out;
}

function renderTagged(spans: TextSpan[], mode: InlineMode): string {
  let atLineStart = true;
  return spans
    .map((span) => {
      const tags = [...MARKS.filter((mark) => span[mark]), ...(span.code ? (["code"] as const) : [])].map(
        (mark) => HTML_TAG[mark],
      );
      let inner = escapeText(span.text, mode, atLineStart);
      atLineStart = span.text.endsWith("\n");
      for (const tag of tags.reverse()) inner = `<${tag}>${inner}</${tag}>`;
      return span.link ? `<a href="${escapeHtml(span.link)}">${inner}</a>` : inner;
    })
    .join("");
}

/**
 * Markdown strips a block's trailing whitespace: as an entity it stays. A lone `<br>` would be
 * read as an HTML block (our empty paragraph); an empty comment after it keeps it inline.
 */
const finishBlock = (markdown: string) => {
  const kept = markdown.replace(/[ \t]$/, (ws) => (ws === " " ? "&#32;" : "&#9;"));
  return kept === "<br>" ? "<br><!---->" : kept;
};

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] as string);

/** Spans as an HTML fragment (a toggle's `<summary>`, where markdown is not read). */
export function spansToHtml(spans: readonly TextSpan[]): string {
  return normalizeSpans(spans)
    .map(mentionAsLink)
    .map((span) => {
      let inner = escapeHtml(span.text).replaceAll("\n", "<br>");
      const tags = [...MARKS.filter((mark) => span[mark]), ...(span.code ? (["code"] as const) : [])];
      for (const mark of tags.reverse()) inner = `<${HTML_TAG[mark]}>${inner}</${HTML_TAG[mark]}>`;
      return span.link ? `<a href="${escapeHtml(span.link)}">${inner}</a>` : inner;
    })
    .join("");
}
