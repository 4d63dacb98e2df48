import type { Token } from "markdown-it";
import { spansText } from "./editor-content";
import { htmlToSpans, plainText, tokensToSpans } from "./inline-parse";
import { fenceInfo, markdownTokens } from "./markdown-tokens";
import { type ContentItem, MAX_INDENT, type TextSpan, type ToggleItem } from "./schema";
import { normalizeSpans } from "./spans";

/**
 * Markdown → canonical content (see contentToMarkdown for the mapping). Also reads markdown
 * written elsewhere: `####`+ headings become heading-3, any GitHub alert becomes a callout,
 * blocks nested in list items or quotes follow them as items of their own, and HTML the
 * content model has no place for is kept as paragraph text. Markdown nested too deeply throws a
 * MarkdownNestingError (see markdown-tokens.ts).
 */
export function markdownToContent(markdown: string): ContentItem[] {
  const root: ContentItem[] = [];
  // Open <details> elements: their items collect here until the matching </details>.
  const toggles: ToggleItem[] = [];
  const target = () => toggles.at(-1)?.content ?? root;
  for (const block of blockTree(markdownTokens(markdown))) {
    if (block.token.type === "html_block" && readDetails(block.token.content, toggles, target)) continue;
    append(target(), blockToItems(block));
  }
  return root.map(dropEmptyToggleContent);
}

/** A block token, with the blocks between it and its closing token if it opens a container. */
interface Block {
  token: Token;
  children: Block[];
}

/** markdown-it's flat block tokens as a tree (built with a stack, not recursion). */
function blockTree(tokens: readonly Token[]): Block[] {
  const root: Block[] = [];
  const open: Block[][] = [root];
  for (const token of tokens) {
    if (token.nesting === -1) {
      open.pop();
      continue;
    }
    const block: Block = { token, children: [] };
    open.at(-1)?.push(block);
    if (token.nesting === 1) open.push(block.children);
  }
  return root;
}

/** The inline tokens of a paragraph, heading or table cell. */
const inlineOf = (block: Block): Token[] => block.children[0]?.token.children ?? [];
/** The raw text of a paragraph, heading or table cell. */
const rawTextOf = (block: Block): string => block.children[0]?.token.content ?? "";

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

const spansOf = (tokens: readonly Token[]) => normalizeSpans(tokensToSpans(tokens));
const plain = (tokens: readonly Token[]) => [{ text: plainText(tokens) }];

function blockToItems(block: Block): ContentItem[] {
  const { token } = block;
  switch (token.type) {
    case "heading_open": {
      const level = Math.min(Number(token.tag.slice(1)), 3) as 1 | 2 | 3;
      return [{ type: `heading-${level}`, children: spansOf(inlineOf(block)) }];
    }
    case "paragraph_open":
      return paragraphItems(inlineOf(block));
    case "bullet_list_open":
    case "ordered_list_open":
      return listItems(block, 0);
    case "blockquote_open":
      return quoteItems(block);
    case "fence":
    case "code_block": {
      const language = token.type === "fence" ? fenceInfo(token.info) : "";
      // markdown-it ends code with a newline (but for an empty fence); the item's text does not.
      const text = token.content.endsWith("\n") ? token.content.slice(0, -1) : token.content;
      return [{ type: "code", children: [{ text }], ...(language ? { language } : {}) }];
    }
    case "hr":
      return [{ type: "divider", children: [{ text: "" }] }];
    case "table_open":
      return [tableItem(block)];
    case "html_block": {
      if (isComment(token.content)) return [];
      // `<br>` alone is how an empty paragraph is written; other HTML is kept as its text.
      const html = token.content.trim();
      return [{ type: "paragraph", children: /^<br\s*\/?>$/i.test(html) ? [{ text: "" }] : [{ text: html }] }];
    }
    default:
      return token.content.trim() ? [{ type: "paragraph", children: [{ text: token.content.trim() }] }] : [];
  }
}

/** An HTML comment on its own is invisible in rendered markdown, so it is no content either. */
const isComment = (html: string) => /^<!--[\s\S]*?-->$/.test(html.trim());

const MEDIA_TITLES = new Set(["video", "audio", "embed"]);

function paragraphItems(tokens: Token[]): ContentItem[] {
  const visible = tokens.filter(
    (t) => !(t.type === "text" && t.content.trim() === "") && t.type !== "softbreak" && t.type !== "hardbreak",
  );
  // A paragraph of images only: one image item each.
  if (visible.length > 0 && visible.every((t) => t.type === "image")) {
    return visible.map((image) => ({
      type: "image",
      url: image.attrGet("src")?.toString() ?? "",
      children: plain(image.children ?? []),
    }));
  }
  // A paragraph that is one link titled video, audio or embed: that media item.
  const [first] = visible;
  const close = tokens.findIndex((t) => t.type === "link_close");
  if (first?.type === "link_open" && close !== -1 && visible.at(-1) === tokens[close]) {
    const title = first.attrGet("title")?.toString() ?? "";
    if (MEDIA_TITLES.has(title)) {
      const url = first.attrGet("href")?.toString() ?? "";
      const type = title as "video" | "audio" | "embed";
      return [{ type, url, children: plain(tokens.slice(tokens.indexOf(first) + 1, close)) }];
    }
  }
  return [{ type: "paragraph", children: spansOf(tokens) }];
}

function listItems(list: Block, indent: number): ContentItem[] {
  const items: ContentItem[] = [];
  for (const entry of list.children) {
    const texts: TextSpan[][] = [];
    const after: ContentItem[] = [];
    for (const child of entry.children) {
      const { type } = child.token;
      if (type === "paragraph_open") texts.push(spansOf(inlineOf(child)));
      else if (type === "bullet_list_open" || type === "ordered_list_open")
        append(after, listItems(child, Math.min(indent + 1, MAX_INDENT)));
      else if (type === "html_block" && isComment(child.token.content)) continue;
      else append(after, blockToItems(child));
    }
    // Several paragraphs in one item: one text, a blank line between them.
    const children = joinParagraphs(texts);
    const level = indent > 0 ? { indent } : {};
    // A task marker was read off the item's text (markdown-tokens.ts).
    const checked = entry.token.meta?.checked;
    if (typeof checked === "boolean") items.push({ type: "to_do", children, checked, ...level });
    else
      items.push({
        type: list.token.type === "ordered_list_open" ? "numbered-list" : "bulleted-list",
        children,
        ...level,
      });
    append(items, after);
  }
  return items;
}

function quoteItems(quote: Block): ContentItem[] {
  const paragraphs: TextSpan[][] = [];
  const others: ContentItem[] = [];
  let emptyBody = false;
  for (const block of quote.children) {
    const { type, content } = block.token;
    if (type === "paragraph_open") paragraphs.push(spansOf(inlineOf(block)));
    else if (type === "html_block" && /^<br\s*\/?>$/i.test(content.trim())) emptyBody = true;
    else append(others, blockToItems(block));
  }
  // An alert line (`[!NOTE]`) was read off the quote's first paragraph (markdown-tokens.ts).
  if (!quote.token.meta?.alert) return [{ type: "quote", children: joinParagraphs(paragraphs) }, ...others];

  let icon: string | undefined;
  const head = spansText(paragraphs[0] ?? []);
  // The icon is a lone short word on the line after the marker, with the text after a blank line.
  if ((paragraphs.length > 1 || emptyBody) && head !== "" && !/\s/.test(head) && [...head].length <= 16) {
    icon = head;
    paragraphs.shift();
  }
  return [{ type: "callout", children: joinParagraphs(paragraphs), ...(icon ? { icon } : {}) }, ...others];
}

const joinParagraphs = (paragraphs: TextSpan[][]) =>
  normalizeSpans(paragraphs.flatMap((spans, i) => [...(i > 0 ? [{ text: "\n\n" }] : []), ...spans]));

function tableItem(table: Block): ContentItem {
  // table > thead|tbody > tr > th|td
  const rows = table.children.flatMap((section) => section.children.map((row) => row.children));
  const [headerCells = [], ...bodyRows] = rows;
  const cell = (c: Block) => spansText(spansOf(inlineOf(c)));
  const header = headerCells.map(cell);
  const body = bodyRows.map((row) => header.map((_, i) => (row[i] ? cell(row[i]) : "")));
  // An empty header row is how a table without a header is written (checked on the raw text:
  // an empty header that is meant is written as an HTML comment).
  const hasHeader = headerCells.some((c) => rawTextOf(c).trim() !== "") || body.length === 0;
  return { type: "table", children: [{ text: "" }], rows: hasHeader ? [header, ...body] : body, has_header: hasHeader };
}
