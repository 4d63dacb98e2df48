import { z } from "@hono/zod-openapi";
import { PaginationQuery } from "../../lib/pagination";
import { DATABASE_ID_DESCRIPTION, VIEW_ID_DESCRIPTION } from "../../openapi/path-params";
import { RowFilterSchema as Filter, RowSortSchema as Sort } from "../../schemas/databases";
import { TIMELINE_SCALES, VIEW_TYPES } from "../../schemas/views";

const propertyRef = z
  .string()
  .min(1)
  .max(200)
  .nullable()
  .openapi({ description: "Property id or display name (stored as the canonical id)" });

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
  .openapi("CreateDatabaseViewRequest", {
    example: {
      view_type: "timeline",
      name: "Roadmap",
      start_date_property: "Due",
      filters: [{ property: "Status", operator: "not_equals", value: "Done" }],
      sorts: [{ property: "Due", direction: "asc" }],
    },
  });

export const UpdateViewBody = z
  .strictObject({ view_type: z.enum(VIEW_TYPES).optional(), ...settings })
  .openapi("UpdateDatabaseViewRequest", { example: { name: "Roadmap (Q1)", timeline_scale: "month" } });

export const ListViewsQuery = PaginationQuery.strict();

export const DatabaseParams = z.object({
  database_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "database_id", in: "path" },
      description: DATABASE_ID_DESCRIPTION,
      example: "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a",
    }),
});
export const ViewParams = z.object({
  view_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "view_id", in: "path" },
      description: VIEW_ID_DESCRIPTION,
      example: "a7c1e3f5-9b2d-4f6a-8c0e-1d3f5a7b9c2e",
    }),
});
