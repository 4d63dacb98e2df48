import { type ContentItem, validateContent } from "./editor-content";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every string under a `text` key, depth first: what an unreadable item still says. */
export function loosePlainText(value: unknown): string {
  const found: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push(current[i]);
    } else if (isObject(current)) {
      if (typeof current.text === "string" && current.text) found.push(current.text);
      const nested = Object.entries(current).filter(([key]) => key !== "text");
      for (let i = nested.length - 1; i >= 0; i--) pending.push(nested[i]?.[1]);
    }
  }
  return found.join(" ");
}

const paragraph = (text: string): ContentItem => ({ type: "paragraph", children: [{ text }] });

/**
 * Stored content as renderable items. Content written through the API is
 * already canonical; anything older that is not becomes a paragraph of its
 * text (a bare string is a paragraph of its own), so an export never drops words.
 */
export function renderableItems(content: unknown): ContentItem[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((item, index): ContentItem[] => {
    if (typeof item === "string") return item ? [paragraph(item)] : [];
    try {
      return validateContent([item], `content[${index}]`);
    } catch {
      const text = loosePlainText(item);
      return text ? [paragraph(text)] : [];
    }
  });
}

/** An editor block's own content: text spans (`[{text, bold?, ...}]`), with no item `type`. */
const isSpans = (content: unknown[]): boolean =>
  content.length > 0 && content.every((span) => isObject(span) && typeof span.text === "string" && !("type" in span));

/**
 * What a block's stored content becomes when the block turns into a page, a
 * database or a row (whose bodies are canonical items): canonical items stay;
 * an editor block's spans become one paragraph with those spans; anything
 * else keeps its words as paragraphs. Nothing a person wrote is dropped.
 */
export function asPageContent(content: unknown): ContentItem[] | null {
  if (content === null || content === undefined) return null;
  if (Array.isArray(content) && isSpans(content)) {
    try {
      return validateContent([{ type: "paragraph", children: content }]);
    } catch {
      // Spans with fields items do not take: fall through to their words.
    }
  }
  return renderableItems(Array.isArray(content) ? content : [content]);
}
