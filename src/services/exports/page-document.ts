import type { BlockTree } from "../blocks/record";
import { PAGE_LIKE_TYPES } from "../blocks/typed-fields";
import { CANONICAL_CONTENT_TYPES, type ContentItem, validateContent } from "../content/editor-content";
import { titleText } from "../pages/pages";

type Span = { text: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every string under a `text` key, depth first: what an unreadable item still says. */
function loosePlainText(value: unknown): string {
  if (Array.isArray(value)) return value.map(loosePlainText).filter(Boolean).join(" ");
  if (!isObject(value)) return "";
  const own = typeof value.text === "string" ? [value.text] : [];
  const nested = Object.entries(value)
    .filter(([key]) => key !== "text")
    .map(([, child]) => loosePlainText(child));
  return [...own, ...nested].filter(Boolean).join(" ");
}

/**
 * Stored content as renderable items. Content written through the API is
 * already canonical; anything older that is not becomes a paragraph of its
 * text, so an export never drops words.
 */
export function renderableItems(content: unknown): ContentItem[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((item, index): ContentItem[] => {
    try {
      return validateContent([item], `content[${index}]`);
    } catch {
      const text = loosePlainText(item);
      return text ? [{ type: "paragraph", children: [{ text }] }] : [];
    }
  });
}

const CANONICAL = new Set<string>(CANONICAL_CONTENT_TYPES);

/** The text spans of an editor block: its content spans, or its `text`/`title` property. */
function blockSpans(node: BlockTree): Span[] {
  if (Array.isArray(node.content) && node.content.every((span) => isObject(span) && !("type" in span))) {
    const spans = node.content.filter((span): span is Span => isObject(span) && typeof span.text === "string");
    if (spans.length > 0) return spans;
  }
  const text = titleText(node.properties.text ?? node.properties.title);
  return [{ text }];
}

const ITEM_FIELDS = ["url", "checked", "language", "icon", "rows", "has_header", "indent"] as const;

/** An editor block (created through /blocks) as a content item, its type-specific fields taken from properties. */
function editorBlockItems(node: BlockTree, depth: number): ContentItem[] {
  const ownItems = Array.isArray(node.content) && node.content.some((item) => isObject(item) && "type" in item);
  if (!CANONICAL.has(node.type) || ownItems) {
    // A container or unknown type: its own body (if any), then its children.
    const text = titleText(node.properties.title ?? node.properties.text);
    return [
      ...(text ? renderableItems([{ type: "paragraph", children: [{ text }] }]) : []),
      ...(ownItems ? renderableItems(node.content) : []),
      ...node.children.flatMap((child) => blockItems(child, depth + 1)),
    ];
  }
  const fields = Object.fromEntries(
    ITEM_FIELDS.flatMap((key) => (key in node.properties ? [[key, node.properties[key]]] : [])),
  );
  const item = { ...fields, type: node.type, children: blockSpans(node) };
  if (node.type === "toggle") {
    return renderableItems([{ ...item, content: node.children.flatMap((child) => blockItems(child, depth + 1)) }]);
  }
  return [...renderableItems([item]), ...node.children.flatMap((child) => blockItems(child, depth + 1))];
}

/** A block of the tree as items: a sub-page becomes a heading followed by its own body and children. */
function blockItems(node: BlockTree, depth: number): ContentItem[] {
  if (!PAGE_LIKE_TYPES.has(node.type)) return editorBlockItems(node, depth);
  const heading = depth <= 1 ? "heading-2" : "heading-3";
  return [
    { type: heading, children: [{ text: titleText(node.properties.title) || "Untitled" }] },
    ...renderableItems(node.content),
    ...node.children.flatMap((child) => blockItems(child, depth + 1)),
  ];
}

/** The whole page as one document: its title, its body, then its child blocks in order. */
export function pageDocument(tree: BlockTree, title: string): { title: string; items: ContentItem[] } {
  return {
    title,
    items: [...renderableItems(tree.content), ...tree.children.flatMap((child) => blockItems(child, 1))],
  };
}
