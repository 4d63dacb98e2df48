import { z } from "@hono/zod-openapi";
import { isDateMention, MENTION_TARGET_TYPES, type Mention } from "../../domain/mentions";

/**
 * The canonical editor content of a page or row body: the types, their TypeScript shapes and
 * the zod schema that documents them in the OpenAPI contract.
 *
 * Items are Slate-style elements: every item carries `children` (text spans), even the ones
 * without visible text (divider, table, media), because the editor needs a text node in each.
 * Unknown extra keys (editor ids and the like) are allowed and kept.
 */

export const CANONICAL_CONTENT_TYPES = [
  "paragraph",
  "heading-1",
  "heading-2",
  "heading-3",
  "bulleted-list",
  "numbered-list",
  "to_do",
  "quote",
  "callout",
  "code",
  "divider",
  "toggle",
  "table",
  "image",
  "video",
  "audio",
  "embed",
] as const;

export type ContentType = (typeof CANONICAL_CONTENT_TYPES)[number];

export const TEXT_TYPES = ["paragraph", "heading-1", "heading-2", "heading-3", "quote"] as const;
export const LIST_TYPES = ["bulleted-list", "numbered-list"] as const;
export const MEDIA_TYPES = ["image", "video", "audio", "embed"] as const;
export const MAX_INDENT = 6;

export interface TextSpan {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  strikethrough?: boolean;
  link?: string;
  /** An inline mention; a span that mentions is not also a link. */
  mention?: Mention;
}

export interface TextItem {
  type: (typeof TEXT_TYPES)[number];
  children: TextSpan[];
}
export interface ListItem {
  type: (typeof LIST_TYPES)[number];
  children: TextSpan[];
  indent?: number;
}
export interface ToDoItem {
  type: "to_do";
  children: TextSpan[];
  checked: boolean;
  indent?: number;
}
export interface CalloutItem {
  type: "callout";
  children: TextSpan[];
  icon?: string;
}
export interface CodeItem {
  type: "code";
  children: TextSpan[];
  language?: string;
}
export interface DividerItem {
  type: "divider";
  children: TextSpan[];
}
export interface ToggleItem {
  type: "toggle";
  children: TextSpan[];
  content?: ContentItem[];
}
export interface TableItem {
  type: "table";
  children: TextSpan[];
  rows: string[][];
  has_header?: boolean;
}
export interface MediaItem {
  type: (typeof MEDIA_TYPES)[number];
  url: string;
  /** `[{text: ""}]`, or the caption. */
  children: TextSpan[];
}

/** A validated item: `children` is always present (see validateContent). */
export type ContentItem =
  | TextItem
  | ListItem
  | ToDoItem
  | CalloutItem
  | CodeItem
  | DividerItem
  | ToggleItem
  | TableItem
  | MediaItem;

export const MentionSchema = z
  .object({
    type: z.enum(MENTION_TARGET_TYPES),
    id: z.string().trim().min(1).max(200),
  })
  .refine((mention) => mention.type !== "date" || isDateMention(mention.id), {
    message: "A date mention's id is an ISO-8601 date (2026-11-23) or date-time that exists on the calendar",
    path: ["id"],
  })
  .openapi("ContentMention", {
    description:
      "An inline mention of a page, block, user or date. In markdown: `[text](mention:<type>:<id>)`. Backlinks are kept from these.",
    example: { type: "page", id: "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d" },
  });

export const TextSpanSchema = z
  .looseObject({
    text: z.string(),
    bold: z.boolean().optional(),
    italic: z.boolean().optional(),
    code: z.boolean().optional(),
    strikethrough: z.boolean().optional(),
    link: z.string().optional().openapi({
      description:
        "Link target of this span: http(s), mailto, tel or a URL without a scheme (`mention:<type>:<id>` makes a mention); any other scheme (javascript:, data:, file: …) is refused with 400",
    }),
    mention: MentionSchema.optional(),
  })
  .openapi("ContentTextSpan", {
    example: { text: "the quick start", bold: true },
    description: "A run of text with its marks; `link` or `mention` (a span that mentions is not also a link)",
  });

const children = z
  .array(TextSpanSchema)
  .optional()
  .openapi({ description: 'Text spans; defaults to `[{text: ""}]`', example: [{ text: "Hello" }] });
const indent = z.number().int().min(0).max(MAX_INDENT).optional().openapi({ description: "List nesting level" });

/**
 * One schema per type, without the recursive part, so that validateContent can check an item
 * on its own and walk toggle content itself (nested paths and type hints stay precise).
 */
export const ITEM_SCHEMAS = {
  text: z.looseObject({ type: z.enum(TEXT_TYPES), children }),
  list: z.looseObject({ type: z.enum(LIST_TYPES), children, indent }),
  to_do: z.looseObject({ type: z.literal("to_do"), children, checked: z.boolean().default(false), indent }),
  callout: z.looseObject({
    type: z.literal("callout"),
    children,
    icon: z.string().optional().openapi({ description: "e.g. an emoji" }),
  }),
  code: z.looseObject({ type: z.literal("code"), children, language: z.string().optional() }),
  divider: z.looseObject({ type: z.literal("divider"), children }),
  toggle: z.looseObject({ type: z.literal("toggle"), children }),
  table: z.looseObject({
    type: z.literal("table"),
    children,
    rows: z
      .array(z.array(z.string()).min(1))
      .min(1)
      .openapi({ description: "Cells as plain strings; every row has the same length" }),
    has_header: z.boolean().optional().openapi({ description: "The first row is the header" }),
  }),
  media: z.looseObject({
    type: z.enum(MEDIA_TYPES),
    url: z.string().openapi({
      description:
        "Required: a URL only inside the text yields an empty widget. http(s), mailto, tel or without a scheme; an image, video or audio may also be inline `data:` of its kind, an image not SVG (`data:image/svg+xml` runs scripts)",
    }),
    children: children.openapi({ description: '`[{text: ""}]` or the caption' }),
  }),
} as const;

export type ItemSchemaKey = keyof typeof ITEM_SCHEMAS;

export function itemSchemaKey(type: ContentType): ItemSchemaKey {
  if ((TEXT_TYPES as readonly string[]).includes(type)) return "text";
  if ((LIST_TYPES as readonly string[]).includes(type)) return "list";
  if ((MEDIA_TYPES as readonly string[]).includes(type)) return "media";
  return type as ItemSchemaKey;
}

/** The contract: one item of a page or row body (toggle content is recursive). */
export const ContentItemSchema: z.ZodType = z
  .union([
    ITEM_SCHEMAS.text,
    ITEM_SCHEMAS.list,
    ITEM_SCHEMAS.to_do,
    ITEM_SCHEMAS.callout,
    ITEM_SCHEMAS.code,
    ITEM_SCHEMAS.divider,
    ITEM_SCHEMAS.toggle.extend({
      content: z
        .array(z.lazy(() => ContentItemSchema))
        .optional()
        .openapi({ description: "Items shown when the toggle is open" }),
    }),
    ITEM_SCHEMAS.table,
    ITEM_SCHEMAS.media,
  ])
  .openapi("ContentItem", {
    description:
      "One block of a page or row body. `type` is a canonical name; editor-library names (`text`, `heading`, " +
      "`bulletListItem`, `todo`, …) are refused with the canonical name to use.",
    example: { type: "paragraph", children: [{ text: "Hello " }, { text: "world", bold: true }] },
  });

/** A page or row body; `null` means an empty body. */
export const ContentSchema = z
  .array(ContentItemSchema)
  .nullable()
  .openapi("Content", { description: "Page or row body: an array of content items; null for an empty body" });
