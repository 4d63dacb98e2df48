import { spansText } from "./editor-content";
import type { ContentItem, TextSpan } from "./schema";
import { normalizeSpans } from "./spans";

const LIST_LIKE = new Set(["bulleted-list", "numbered-list", "to_do"]);
export const isListLike = (item: ContentItem) => LIST_LIKE.has(item.type);

/**
 * The form exports work from and markdown round-trips to: spans normalised (see normalizeSpans),
 * text-only children where marks have no meaning (code, captions), list indents that nest one
 * level at a time, absent rather than empty optional fields, and no unknown keys.
 */
export function normalizeContent(items: readonly ContentItem[] | null | undefined): ContentItem[] {
  let previousIndent = -1; // indent of the previous list item; -1 outside a list
  return (items ?? []).map((item): ContentItem => {
    if (!isListLike(item)) previousIndent = -1;
    switch (item.type) {
      case "bulleted-list":
      case "numbered-list":
      case "to_do": {
        // Markdown (and the editor) can only nest one level below the item above.
        const indent = Math.max(0, Math.min(item.indent ?? 0, previousIndent + 1));
        previousIndent = indent;
        const base = { children: normalizeSpans(item.children), ...(indent > 0 ? { indent } : {}) };
        return item.type === "to_do"
          ? { type: "to_do", ...base, checked: item.checked === true }
          : { type: item.type, ...base };
      }
      case "callout":
        return { type: "callout", children: normalizeSpans(item.children), ...(item.icon ? { icon: item.icon } : {}) };
      case "code":
        return { type: "code", children: plain(item.children), ...(item.language ? { language: item.language } : {}) };
      case "divider":
        return { type: "divider", children: [{ text: "" }] };
      case "toggle": {
        const content = normalizeContent(item.content);
        return { type: "toggle", children: normalizeSpans(item.children), ...(content.length ? { content } : {}) };
      }
      case "table":
        return {
          type: "table",
          children: [{ text: "" }],
          rows: item.rows.map((row) => [...row]),
          has_header: !!item.has_header,
        };
      case "image":
      case "video":
      case "audio":
      case "embed":
        return { type: item.type, url: item.url, children: plain(item.children) };
      default:
        return { type: item.type, children: normalizeSpans(item.children) };
    }
  });
}

/** One unmarked span: code text and captions carry no formatting in any export. */
const plain = (spans: readonly TextSpan[] | undefined): TextSpan[] => [{ text: spansText(spans) }];
