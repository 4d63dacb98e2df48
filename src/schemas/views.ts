import { z } from "@hono/zod-openapi";
import { RowFilterSchema, RowSortSchema } from "./databases";

export const VIEW_TYPES = [
  "table",
  "board",
  "gallery",
  "list",
  "feed",
  "calendar",
  "timeline",
  "chart",
  "dashboard",
  "map",
  "form",
] as const;
export type ViewType = (typeof VIEW_TYPES)[number];
export const TIMELINE_SCALES = ["day", "week", "month"] as const;
export type TimelineScale = (typeof TIMELINE_SCALES)[number];

export const DatabaseViewSchema = z
  .object({
    id: z.string().openapi({ example: "a7c1e3f5-9b2d-4f6a-8c0e-1d3f5a7b9c2e" }),
    database_id: z.string().openapi({ example: "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a" }),
    name: z.string().openapi({ example: "Roadmap" }),
    view_type: z.enum(VIEW_TYPES).openapi({ example: "timeline" }),
    date_property: z.string().nullable().openapi({ description: "Calendar views: the date property", example: null }),
    start_date_property: z
      .string()
      .nullable()
      .openapi({ description: "Timeline views: start date property", example: "prop_1a2b3c4d5e6f7a8b" }),
    end_date_property: z
      .string()
      .nullable()
      .openapi({ description: "Timeline views: optional end date property", example: null }),
    timeline_scale: z.enum(TIMELINE_SCALES).nullable().openapi({ example: "week" }),
    filters: z.array(RowFilterSchema),
    sorts: z.array(RowSortSchema),
    visible_properties: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Property ids shown, in order; null: all properties", example: null }),
    position: z.number().nullable().openapi({ example: null }),
    created_by: z.string().nullable().openapi({ example: "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d" }),
    created_at: z.string().openapi({ format: "date-time", example: "2026-11-23T09:30:00.000Z" }),
    updated_at: z.string().openapi({ format: "date-time", example: "2026-11-23T09:30:00.000Z" }),
  })
  .openapi("DatabaseView");
export type DatabaseView = z.infer<typeof DatabaseViewSchema>;
