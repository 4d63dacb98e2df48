import type { Token, Tokens } from "marked";
import { spansText } from "./editor-content";
import { htmlToSpans, lexBlocks, tokensToSpans } from "./inline-parse";
import { type ContentItem, MAX_INDENT, type TextSpan, type ToggleItem } from "./schema";
import { normalizeSpans } from "./spans";

/**
 * Markdown → canonical content (see contentToMarkdown for the mapping). Also reads markdown
 * written elsewhere: `####`+ headings become heading-3, any GitHub alert becomes a callout,
 * blocks nested in list items or quotes follow them as items of their own, and HTML the
 * content model has no place for is kept as paragraph text.
 */
export function markdownToContent(markdown: string): ContentItem[] {
  const root: ContentItem[] = [];
  // Open <details> elements: their items collect here until the matching </details>.
  const toggles: ToggleItem[] = [];
  const target = () => toggles.at(-1)?.content ?? root;
  for (const token of lexBlocks(markdown)) {
    if (token.type === "html" && readDetails(token.text, toggles, target)) continue;
    append(target(), blockToItems(token));
  }
  return root.map(dropEmptyToggleContent);
}

/** Applies `<details>`/`<summary>`/`</details>` in an HTML block; false if it is other HTML. */
function readDetails(html: string, toggles: ToggleItem[], target: () => ContentItem[]): boolean {
  const parts = detailsParts(html);
  if (!parts) return false;
  for (const part of parts) {
    if (/^<details/i.test(part)) {
      const toggle: ToggleItem = { type: "toggle", children: [{ text: "" }], content: [] };
      target().push(toggle);
      toggles.push(toggle);
    } else if (/^<summary/i.test(part)) {
      const current = toggles.at(-1);
      const inner = part.replace(/^<summary\b[^>]*>/i, "").replace(/<\/summary>$/i, "");
      if (current) current.children = htmlToSpans(inner);
    } else {
      toggles.pop();
    }
  }
  return true;
}

const DETAILS_PARTS = [/<details\b[^>]*>/iy, /<summary\b[^>]*>[\s\S]*?<\/summary>/iy, /<\/details\s*>/iy];

/**
 * The `<details>`, `<summary>…</summary>` and `</details>` an HTML block is made of, or undefined
 * when it holds anything else but whitespace. Each part is matched where the previous one ended,
 * and the first miss ends the search: a pattern searched for anywhere would scan to the end of
 * the text from every unclosed `<summary>`, which takes time quadratic in their number.
 */
function detailsParts(html: string): string[] | undefined {
  const parts: string[] = [];
  let at = 0;
  while (true) {
    while (at < html.length && /\s/.test(html[at] as string)) at++;
    if (at === html.length) return parts.length > 0 ? parts : undefined;
    let part: string | undefined;
    for (const pattern of DETAILS_PARTS) {
      pattern.lastIndex = at;
      part = pattern.exec(html)?.[0];
      if (part !== undefined) break;
    }
    if (part === undefined) return undefined;
    parts.push(part);
    at += part.length;
  }
}

/** Adds `items` to `list` (a spread, `list.push(...items)`, fails past ~100k arguments). */
function append<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}

function dropEmptyToggleContent(item: ContentItem): ContentItem {
  if (item.type !== "toggle") return item;
  const content = (item.content ?? []).map(dropEmptyToggleContent);
  const { content: _, ...rest } = item;
  return content.length > 0 ? { ...rest, content } : rest;
}

const spansOf = (tokens: readonly Token[] | undefined) => normalizeSpans(tokensToSpans(tokens ?? []));
const plain = (tokens: readonly Token[] | undefined) => [{ text: spansText(spansOf(tokens)) }];

function blockToItems(token: Token): ContentItem[] {
  switch (token.type) {
    case "space":
    case "def":
      return [];
    case "heading": {
      const level = Math.min(token.depth, 3) as 1 | 2 | 3;
      return [{ type: `heading-${level}`, children: spansOf(token.tokens) }];
    }
    case "paragraph":
      return paragraphItems(token as Tokens.Paragraph);
    case "text":
      return [
        { type: "paragraph", children: spansOf(token.tokens ?? [{ type: "text", raw: token.raw, text: token.text }]) },
      ];
    case "list":
      return listItems(token as Tokens.List, 0);
    case "blockquote":
      return quoteItems(token as Tokens.Blockquote);
    case "code": {
      const language = (token.lang ?? "").trim();
      // marked adds a newline to fenced code that is empty or ends with one; take it off again.
      const fenced = token.codeBlockStyle !== "indented";
      const text = fenced && token.text.endsWith("\n") ? token.text.slice(0, -1) : token.text;
      return [{ type: "code", children: [{ text }], ...(language ? { language } : {}) }];
    }
    case "hr":
      return [{ type: "divider", children: [{ text: "" }] }];
    case "table":
      return [tableItem(token as Tokens.Table)];
    case "html": {
      if (isComment(token.text)) return [];
      // `<br>` alone is how an empty paragraph is written; other HTML is kept as its text.
      const html = token.text.trim();
      return [{ type: "paragraph", children: /^<br\s*\/?>$/i.test(html) ? [{ text: "" }] : [{ text: html }] }];
    }
    default:
      return token.raw.trim() ? [{ type: "paragraph", children: [{ text: token.raw.trim() }] }] : [];
  }
}

/** An HTML comment on its own is invisible in rendered markdown, so it is no content either. */
const isComment = (html: string) => /^<!--[\s\S]*?-->$/.test(html.trim());

const MEDIA_TITLES = new Set(["video", "audio", "embed"]);

function paragraphItems(token: Tokens.Paragraph): ContentItem[] {
  const inline = token.tokens.filter((t) => !(t.type === "text" && t.text.trim() === "") && t.type !== "br");
  // A paragraph of images only: one image item each.
  if (inline.length > 0 && inline.every((t) => t.type === "image")) {
    return (inline as Tokens.Image[]).map((image) => ({
      type: "image",
      url: image.href,
      children: plain(image.tokens),
    }));
  }
  const [only] = inline;
  if (inline.length === 1 && only?.type === "link" && MEDIA_TITLES.has(only.title ?? "")) {
    const type = only.title as "video" | "audio" | "embed";
    return [{ type, url: only.href, children: plain(only.tokens) }];
  }
  return [{ type: "paragraph", children: spansOf(token.tokens) }];
}

function listItems(list: Tokens.List, indent: number): ContentItem[] {
  const items: ContentItem[] = [];
  for (const entry of list.items) {
    const textTokens: Token[][] = [];
    const after: ContentItem[] = [];
    for (const child of entry.tokens) {
      // In a loose list marked puts a task's checkbox inside its paragraph: it is `checked`, not text.
      if (child.type === "text" || child.type === "paragraph") {
        textTokens.push((child.tokens ?? []).filter((token) => token.type !== "checkbox"));
      } else if (child.type === "list")
        append(after, listItems(child as Tokens.List, Math.min(indent + 1, MAX_INDENT)));
      else if (child.type === "html" && isComment(child.text)) continue;
      else if (child.type !== "checkbox" && child.type !== "space") append(after, blockToItems(child));
    }
    // Several paragraphs in one item: one text, a blank line between them.
    const children = normalizeSpans(
      textTokens.flatMap((tokens, i) => [...(i > 0 ? [{ text: "\n\n" }] : []), ...spansOf(tokens)]),
    );
    const level = indent > 0 ? { indent } : {};
    if (entry.task) items.push({ type: "to_do", children, checked: !!entry.checked, ...level });
    else items.push({ type: list.ordered ? "numbered-list" : "bulleted-list", children, ...level });
    append(items, after);
  }
  return items;
}

const ALERT = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(\n|$)/i;

function quoteItems(quote: Tokens.Blockquote): ContentItem[] {
  const blocks = quote.tokens.filter((t) => t.type !== "space");
  const [first] = blocks;
  // Checked on the raw text: an escaped `\[!NOTE]` written for a quote must stay a quote.
  const alert = first?.type === "paragraph" ? ALERT.exec(first.text) : null;
  const paragraphs: TextSpan[][] = [];
  const others: ContentItem[] = [];
  let emptyBody = false;
  for (const block of blocks) {
    if (block.type === "paragraph") paragraphs.push(spansOf(block.tokens));
    else if (block.type === "html" && /^<br\s*\/?>$/i.test(block.text.trim())) emptyBody = true;
    else append(others, blockToItems(block));
  }
  if (!alert) return [{ type: "quote", children: joinParagraphs(paragraphs) }, ...others];

  paragraphs[0] = dropLeading(paragraphs[0] ?? [], (alert[0] ?? "").length);
  let icon: string | undefined;
  const head = spansText(paragraphs[0]);
  // The icon is a lone short word on the line after the marker, with the text after a blank line.
  if ((paragraphs.length > 1 || emptyBody) && head !== "" && !/\s/.test(head) && [...head].length <= 16) {
    icon = head;
    paragraphs.shift();
  }
  return [{ type: "callout", children: joinParagraphs(paragraphs), ...(icon ? { icon } : {}) }, ...others];
}

const joinParagraphs = (paragraphs: TextSpan[][]) =>
  normalizeSpans(paragraphs.flatMap((spans, i) => [...(i > 0 ? [{ text: "\n\n" }] : []), ...spans]));

/** Spans without their first `count` characters (the alert marker). */
function dropLeading(spans: TextSpan[], count: number): TextSpan[] {
  let left = count;
  const out: TextSpan[] = [];
  for (const span of spans) {
    if (left >= span.text.length) {
      left -= span.text.length;
      continue;
    }
    out.push({ ...span, text: span.text.slice(left) });
    left = 0;
  }
  return normalizeSpans(out);
}

function tableItem(table: Tokens.Table): ContentItem {
  const cell = (c: Tokens.TableCell) => spansText(spansOf(c.tokens));
  const header = table.header.map(cell);
  const body = table.rows.map((row) => header.map((_, i) => (row[i] ? cell(row[i]) : "")));
  // An empty header row is how a table without a header is written (checked on the raw text:
  // an empty header that is meant is written as an HTML comment).
  const hasHeader = table.header.some((c) => c.text.trim() !== "") || body.length === 0;
  return { type: "table", children: [{ text: "" }], rows: hasHeader ? [header, ...body] : body, has_header: hasHeader };
}
