import { z } from "@hono/zod-openapi";
import { JSON_DEPTH_MESSAGE, withinJsonDepth } from "../../lib/json-depth";
import { PAGE_TYPES } from "../../services/pages/pages";
import { BlockSchema, LIST_MAX_LIMIT } from "../blocks/blocks.schemas";

export const PageSchema = BlockSchema.extend({
  properties_by_name: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi({ description: "Rows only: values keyed by display name, regenerated from the canonical ids" }),
}).openapi("Page");

export const PageSummarySchema = z
  .object({
    id: z.string(),
    type: z.string().openapi({ description: "page, database or database_row" }),
    title: z.string(),
    parent_id: z.string().nullable(),
    database_id: z.string().nullable(),
    icon: z.unknown(),
    archived: z.boolean(),
    in_trash: z.boolean(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("PageSummary");

const nullableId = z.string().min(1).max(128).nullable();

/**
 * Validated by validateContent (400 naming the path of each wrong item and the
 * canonical type to use), so the request schema only documents the shape.
 */
const ContentBody = z
  .unknown()
  .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
  .openapi({
    type: "array",
    items: { $ref: "#/components/schemas/ContentItem" },
    description: "Canonical editor items (see ContentItem); null for an empty body",
  });
const markdown = z
  .string()
  .max(500_000)
  .optional()
  .openapi({ description: "Markdown body, converted to canonical content items (instead of `content`)" });

export const CreatePageBody = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    title: z.string().max(2000).optional(),
    type: z.enum(PAGE_TYPES).default("page"),
    database_id: nullableId.optional().openapi({ description: "Required for database_row" }),
    databaseId: nullableId.optional(),
    parent_id: nullableId.optional(),
    parentId: nullableId.optional(),
    properties: z
      .record(z.string(), z.unknown())
      .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
      .optional()
      .openapi({ description: "Rows: keys are property ids or display names (translated to ids)" }),
    content: ContentBody.optional(),
    content_markdown: markdown,
  })
  .openapi("CreatePageRequest");

export const UpdatePageBody = z
  .strictObject({
    title: z.string().max(2000).optional(),
    properties: z
      .record(z.string(), z.unknown())
      .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
      .optional()
      .openapi({ description: "Deep-merged into the stored properties (null removes a key)" }),
    content: ContentBody.optional(),
    content_markdown: markdown,
  })
  .openapi("UpdatePageRequest");

export const PageIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" } }),
});

const booleanFlag = z.enum(["true", "false"]);

export const ListPagesQuery = z.strictObject({
  type: z.enum(PAGE_TYPES).optional(),
  parent_id: z.string().min(1).max(128).optional(),
  database_id: z.string().min(1).max(128).optional(),
  q: z.string().max(500).optional(),
  archived: booleanFlag.optional(),
  in_trash: booleanFlag.optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ description: `Default 50; above ${LIST_MAX_LIMIT} is clamped` }),
  offset: z.coerce.number().int().min(0).optional(),
});

export const DeletePageQuery = z.strictObject({
  permanent: booleanFlag
    .optional()
    .openapi({ description: "true deletes the page and its subtree permanently; default moves it to the trash" }),
});

export const DeletePageResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    trashed: z.boolean(),
    deleted_count: z.number().int(),
  })
  .openapi("DeletePageResponse");

export const PAGE_EXPORT_FORMATS = ["markdown", "html", "json", "pdf", "csv"] as const;

export const ExportQuery = z.strictObject({
  format: z
    .enum(PAGE_EXPORT_FORMATS)
    .optional()
    .openapi({ description: "Pages: markdown (default), html, json, pdf. Databases: csv (default) or json." }),
});

export const BatchExportQuery = z.strictObject({
  ids: z.string().min(1).openapi({ description: "Comma-separated page ids (at most 50)" }),
  format: z.enum(PAGE_EXPORT_FORMATS).optional().openapi({ description: "As for a single export" }),
});
