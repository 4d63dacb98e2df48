import { z } from "@hono/zod-openapi";
import { JSON_DEPTH_MESSAGE, withinJsonDepth } from "../../lib/json-depth";
import { PaginationQuery } from "../../lib/pagination";
import { PAGE_ID_DESCRIPTION } from "../../openapi/path-params";
import { QueryBoolean } from "../../openapi/query";
import { PAGE_TYPES } from "../../schemas/pages";

const nullableId = z.string().min(1).max(128).nullable();

/**
 * Validated by validateContent (400 naming the path of each wrong item and the
 * canonical type to use), so the request schema only documents the shape.
 */
const ContentBody = z
  .unknown()
  .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
  .openapi({
    // null is taken (an empty body), so the contract says so: a generated client can then send it.
    type: ["array", "null"],
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
  .openapi("CreatePageRequest", {
    // Valid on an empty account (the explorer's Try-it sends it as is): a page at the workspace's top level.
    example: { type: "page", title: "Launch plan", content_markdown: "Draft the **quick start**." },
  });

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
  .openapi("UpdatePageRequest", {
    example: { properties: { icon: "🚀" }, content: [{ type: "paragraph", children: [{ text: "Ship on Friday." }] }] },
  });

export const PageIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: PAGE_ID_DESCRIPTION,
      example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
    }),
});

export const ListPagesQuery = PaginationQuery.extend({
  type: z.enum(PAGE_TYPES).optional().openapi({ description: "Only this kind", example: "page" }),
  parent_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Only children of this page", examples: ["6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d"] }),
  database_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Only rows of this database", examples: ["5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a"] }),
  q: z
    .string()
    .max(500)
    .optional()
    .openapi({ description: "Full-text search", examples: ["launch"] }),
  archived: QueryBoolean.optional().openapi({ description: "List archived pages instead", example: "false" }),
  in_trash: QueryBoolean.optional().openapi({ description: "List pages in the trash instead", example: "false" }),
}).strict();

export const DeletePageQuery = z.strictObject({
  permanent: QueryBoolean.optional().openapi({
    description: "true deletes the page and its subtree permanently; default moves it to the trash",
    example: "false",
  }),
});

export const DeletePageResponse = z
  .object({
    success: z.boolean(),
    message: z.string(),
    trashed: z.boolean(),
    deleted_count: z.number().int(),
  })
  .openapi("DeletePageResponse", {
    example: { success: true, message: "Page moved to the trash", trashed: true, deleted_count: 0 },
  });

export const PAGE_EXPORT_FORMATS = ["markdown", "html", "json", "pdf", "csv"] as const;

export const ExportQuery = z.strictObject({
  format: z.enum(PAGE_EXPORT_FORMATS).optional().openapi({
    description: "Pages: markdown (default), html, json, pdf. Databases: csv (default) or json.",
    example: "markdown",
  }),
});

export const BatchExportQuery = z.strictObject({
  ids: z.string().min(1).openapi({
    description: "Comma-separated page ids (at most 50)",
    example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d,9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
  }),
  format: z
    .enum(PAGE_EXPORT_FORMATS)
    .optional()
    .openapi({ description: "As for a single export", example: "markdown" }),
});
