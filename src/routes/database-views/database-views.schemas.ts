import { z } from "@hono/zod-openapi";
import { TIMELINE_SCALES, VIEW_TYPES } from "../../services/database-views/views";
import { FILTER_OPERATORS } from "../../services/databases/row-query";

const Filter = z
  .strictObject({ property: z.string().min(1), operator: z.enum(FILTER_OPERATORS), value: z.unknown().optional() })
  .openapi("RowFilter", { description: "As in POST /api/v1/databases/{id}/query" });
const Sort = z
  .strictObject({ property: z.string().min(1), direction: z.enum(["asc", "desc"]).default("asc") })
  .openapi("RowSort");

const propertyRef = z
  .string()
  .min(1)
  .max(200)
  .nullable()
  .openapi({ description: "Property id or display name (stored as the canonical id)" });

export const DatabaseViewSchema = z
  .object({
    id: z.string(),
    database_id: z.string(),
    name: z.string(),
    view_type: z.enum(VIEW_TYPES),
    date_property: z.string().nullable().openapi({ description: "Calendar views: the date property" }),
    start_date_property: z.string().nullable().openapi({ description: "Timeline views: start date property" }),
    end_date_property: z.string().nullable().openapi({ description: "Timeline views: optional end date property" }),
    timeline_scale: z.enum(TIMELINE_SCALES).nullable(),
    filters: z.array(Filter),
    sorts: z.array(Sort),
    visible_properties: z.array(z.string()).nullable().openapi({ description: "null: all properties" }),
    position: z.number().nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("DatabaseView");

const settings = {
  name: z.string().trim().min(1).max(200).optional(),
  date_property: propertyRef.optional(),
  start_date_property: propertyRef.optional(),
  end_date_property: propertyRef.optional(),
  timeline_scale: z
    .enum(TIMELINE_SCALES)
    .nullable()
    .optional()
    .openapi({ description: "Timeline views; default week" }),
  filters: z.array(Filter).max(50).optional(),
  sorts: z.array(Sort).max(10).optional(),
  visible_properties: z.array(z.string().min(1)).max(500).nullable().optional(),
  position: z.number().nullable().optional(),
};

export const CreateViewBody = z
  .strictObject({
    view_type: z.enum(VIEW_TYPES).openapi({
      description: "table, board, gallery, list, feed, calendar, timeline (Gantt), chart, dashboard, map, form",
    }),
    ...settings,
  })
  .openapi("CreateDatabaseViewRequest");

export const UpdateViewBody = z
  .strictObject({ view_type: z.enum(VIEW_TYPES).optional(), ...settings })
  .openapi("UpdateDatabaseViewRequest");

export const DatabaseParams = z.object({
  database_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "database_id", in: "path" } }),
});
export const ViewParams = z.object({
  view_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "view_id", in: "path" } }),
});
