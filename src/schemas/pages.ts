import { z } from "@hono/zod-openapi";
import { BlockSchema, PropertiesByNameSchema } from "./blocks";

export const PAGE_TYPES = ["page", "database", "database_row"] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export const PageSchema = BlockSchema.extend({
  properties_by_name: PropertiesByNameSchema.optional().openapi({ description: "Rows only" }),
}).openapi("Page");

/** A page, database or row; rows also carry their values keyed by display name. */
export type Page = z.infer<typeof PageSchema>;

export const PageSummarySchema = z
  .object({
    id: z.string().openapi({ example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d" }),
    type: z.enum(PAGE_TYPES).openapi({ example: "page" }),
    title: z.string().openapi({ description: "A row's title is its title property's value", example: "Launch plan" }),
    parent_id: z.string().nullable().openapi({ example: null }),
    database_id: z.string().nullable().openapi({ example: null }),
    icon: z.unknown().openapi({ description: "properties.icon, or null", example: "🚀" }),
    archived: z.boolean().openapi({ example: false }),
    in_trash: z.boolean().openapi({ example: false }),
    created_by: z.string().nullable().openapi({ example: "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d" }),
    created_at: z.string().openapi({ format: "date-time", example: "2026-11-23T09:30:00.000Z" }),
    updated_at: z.string().openapi({ format: "date-time", example: "2026-11-23T09:30:00.000Z" }),
  })
  .openapi("PageSummary");

export type PageSummary = z.infer<typeof PageSummarySchema>;
