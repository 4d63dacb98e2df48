import { issuesRefused, joinPath, type PathIssue } from "../../lib/errors";
import { unsafeLinks } from "./links";
import { mentionSpanForm } from "./mentions";
import {
  CANONICAL_CONTENT_TYPES,
  type ContentItem,
  type ContentType,
  ITEM_SCHEMAS,
  itemSchemaKey,
  MEDIA_TYPES,
  type TextSpan,
} from "./schema";

export * from "./schema";

/** One problem found in submitted content, reported in the 400's `details.issues`. */
export interface ContentIssue {
  /** Where, e.g. `content[3].type` or `content[2].content[0].children[1].text`. */
  path: string;
  message: string;
  code: string;
  /** For an editor-library type name: the canonical type to send instead. */
  suggested_type?: ContentType;
  allowed_types?: readonly string[];
}

/**
 * Type names of editor libraries (BlockNote, Slate, Notion's API) that clients send by
 * habit. The UI renders them as unknown blocks, so they are refused with the name to use.
 */
const EDITOR_LIBRARY_TYPES: Record<string, ContentType | ((item: Record<string, unknown>) => ContentType)> = {
  text: "paragraph",
  heading: headingForLevel,
  heading_1: "heading-1",
  heading_2: "heading-2",
  heading_3: "heading-3",
  bulletListItem: "bulleted-list",
  bulleted_list_item: "bulleted-list",
  orderedListItem: "numbered-list",
  numbered_list_item: "numbered-list",
  todo: "to_do",
  checkbox: "to_do",
};

function headingForLevel(item: Record<string, unknown>): ContentType {
  const raw = item.level ?? (item.props as Record<string, unknown> | undefined)?.level;
  const level = typeof raw === "string" ? Number(raw) : raw;
  if (level === 2) return "heading-2";
  if (typeof level === "number" && level >= 3) return "heading-3";
  return "heading-1";
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks a page or row body and returns it with defaults applied (`children` → `[{text: ""}]`
 * when missing or empty, `checked` → false). Unknown extra keys are kept.
 * Throws a 400 listing every problem with its exact path; `null`/`undefined` is an empty body.
 */
export function validateContent(content: unknown, path = "content"): ContentItem[] {
  const issues: ContentIssue[] = [];
  const items = checkItems(content, path, issues);
  refuseIssues(issues, path);
  return items;
}

/**
 * Refuses content (a body, or an editor block's free-form content) holding a link or a source
 * that safeUrl would not link or load: a 400 with each one's path (unsafeLinks). `blockType` is
 * the type of the block holding it: an editor `image` block's own content may hold inline image
 * data, as an image item may. Writes call it; reads of what is stored do not (the HTML export
 * drops such links, whenever they got in).
 */
export function refuseUnsafeLinks(
  content: unknown,
  source: "content" | "content_markdown" = "content",
  blockType?: string,
): void {
  refuseIssues(unsafeLinks(content, "content", blockType), source, source);
}

/**
 * Refuses the `properties.url` of an editor block of a media type (image, video, audio, embed)
 * that safeUrl would not load: the export shows it as that item's source (exports/page-document.ts),
 * so it is held to the rule of a media item's `url`. Other properties are free-form (decisions.md).
 */
export function refuseUnsafeMediaUrl(properties: Record<string, unknown> | undefined, blockType: string): void {
  if (!(MEDIA_TYPES as readonly string[]).includes(blockType) || typeof properties?.url !== "string") return;
  refuseIssues(unsafeLinks({ url: properties.url }, "properties", blockType), "properties", "properties");
}

/**
 * A 400 listing `issues`, when there are any. `source` is where the content came from
 * (`content`, or `content_markdown` it was read from; `content[3]` for one item), `field` the
 * request field the message names.
 */
function refuseIssues(issues: readonly PathIssue[], source: string, field = "content"): void {
  if (issues.length > 0) throw issuesRefused(field, issues, { source });
}

function checkItems(content: unknown, path: string, issues: ContentIssue[]): ContentItem[] {
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) {
    issues.push({
      path,
      code: "not_an_array",
      message: `must be an array of content items like [{"type": "paragraph", "children": [{"text": "Hello"}]}], or null; got ${describe(content)}`,
    });
    return [];
  }
  return content.flatMap((item, index) => {
    const checked = checkItem(item, `${path}[${index}]`, issues);
    return checked ? [checked] : [];
  });
}

function checkItem(item: unknown, path: string, issues: ContentIssue[]): ContentItem | undefined {
  if (!isRecord(item)) {
    issues.push({ path, code: "not_an_object", message: `must be an object with a "type"; got ${describe(item)}` });
    return undefined;
  }
  if ("metadata" in item) {
    issues.push({
      path: `${path}.metadata`,
      code: "metadata_not_allowed",
      message:
        "content items do not take metadata; row field values belong in the block's `properties` (keyed by property id), not in content",
    });
  }
  const type = checkType(item, path, issues);
  if (!type) return undefined;

  const isMedia = (MEDIA_TYPES as readonly string[]).includes(type);
  if (isMedia && typeof item.url !== "string") {
    const found = ["src", "source", "href", "props"].find((key) => key in item);
    issues.push({
      path: `${path}.url`,
      code: "missing_url",
      message:
        `a${type === "image" || type === "embed" || type === "audio" ? "n" : ""} ${type} needs a top-level "url" string` +
        (found ? ` (found "${found}" instead)` : "") +
        `; children hold only the caption ([{"text": ""}] for none) — a URL inside paragraph text yields an empty ${type} widget`,
    });
  }

  const parsed = ITEM_SCHEMAS[itemSchemaKey(type)].safeParse(item);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const issuePath = joinPath(path, issue.path);
      if (isMedia && issuePath === `${path}.url`) continue; // already explained above
      issues.push({ path: issuePath, code: issue.code, message: issue.message });
    }
  }
  if (type === "table" && Array.isArray(item.rows)) checkTableShape(item.rows, `${path}.rows`, issues);
  const content = type === "toggle" && "content" in item ? checkItems(item.content, `${path}.content`, issues) : null;
  if (!parsed.success) return undefined;

  const result = { ...parsed.data } as Record<string, unknown>;
  const spans = result.children as TextSpan[] | undefined;
  result.children = spans && spans.length > 0 ? spans.map(mentionSpanForm) : [{ text: "" }];
  if (content) result.content = content;
  return result as unknown as ContentItem;
}

function checkType(item: Record<string, unknown>, path: string, issues: ContentIssue[]): ContentType | undefined {
  const type = item.type;
  if (typeof type !== "string") {
    issues.push({
      path: `${path}.type`,
      code: type === undefined ? "missing_type" : "invalid_type",
      message: `is required and must be one of the canonical types: ${CANONICAL_CONTENT_TYPES.join(", ")}`,
      allowed_types: CANONICAL_CONTENT_TYPES,
    });
    return undefined;
  }
  if ((CANONICAL_CONTENT_TYPES as readonly string[]).includes(type)) return type as ContentType;
  const alias = Object.hasOwn(EDITOR_LIBRARY_TYPES, type) ? EDITOR_LIBRARY_TYPES[type] : undefined;
  if (alias) {
    const suggested = typeof alias === "function" ? alias(item) : alias;
    issues.push({
      path: `${path}.type`,
      code: "editor_library_type",
      message: `"${type}" is an editor-library name that shows as an unknown block; use "${suggested}"`,
      suggested_type: suggested,
    });
  } else {
    issues.push({
      path: `${path}.type`,
      code: "unknown_type",
      message: `unknown type "${type}"; use one of: ${CANONICAL_CONTENT_TYPES.join(", ")}`,
      allowed_types: CANONICAL_CONTENT_TYPES,
    });
  }
  return undefined;
}

function checkTableShape(rows: unknown[], path: string, issues: ContentIssue[]): void {
  const width = Array.isArray(rows[0]) ? rows[0].length : undefined;
  if (width === undefined) return;
  rows.forEach((row, index) => {
    if (Array.isArray(row) && row.length !== width) {
      issues.push({
        path: `${path}[${index}]`,
        code: "ragged_table",
        message: `has ${row.length} cells but the first row has ${width}; every row needs the same number of cells`,
      });
    }
  });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `a string (${JSON.stringify(value.slice(0, 40))})` : `a ${typeof value}`;
}

/** Plain text of a span list. */
export const spansText = (spans: readonly TextSpan[] | undefined): string =>
  (spans ?? []).map((span) => span.text).join("");

/**
 * All plain text of a body, one line per item (toggle content and table cells included),
 * for search indexing and plain exports. Media contribute their caption and URL.
 */
export function contentText(items: readonly ContentItem[] | null | undefined): string {
  const lines: string[] = [];
  const walk = (list: readonly ContentItem[]) => {
    for (const item of list) {
      const text = spansText(item.children);
      switch (item.type) {
        case "table":
          for (const row of item.rows) lines.push(row.join(" "));
          break;
        case "image":
        case "video":
        case "audio":
        case "embed":
          lines.push([text, item.url].filter(Boolean).join(" "));
          break;
        case "toggle":
          if (text) lines.push(text);
          walk(item.content ?? []);
          break;
        default:
          if (text) lines.push(text);
      }
    }
  };
  walk(items ?? []);
  return lines.filter((line) => line.length > 0).join("\n");
}
