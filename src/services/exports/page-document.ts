import { PAGE_LIKE_TYPES } from "../block-writes/typed-fields";
import type { BlockTree } from "../blocks/presenter";
import { CANONICAL_CONTENT_TYPES, type ContentItem } from "../content/editor-content";
import { renderableItems } from "../content/page-content";
import { titleText } from "../pages/pages";

type Span = { text: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

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
