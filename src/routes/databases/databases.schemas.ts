import { z } from "@hono/zod-openapi";
import { PaginationBody } from "../../lib/pagination";
import { OPTION_COLORS, PROPERTY_TYPES, RowFilterSchema, RowSortSchema } from "../../schemas/databases";

export const DatabaseIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: "Database block id",
      example: "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a",
    }),
});
export const PropertyParams = DatabaseIdParams.extend({
  property_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "property_id", in: "path" }, example: "prop_9f8e7d6c5b4a3921" }),
});
export const OptionParams = PropertyParams.extend({
  option_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "option_id", in: "path" }, example: "opt_3b1d9a0c2e4f6a8b" }),
});

// `__proto__` cannot be a key of a JSON object in JavaScript without becoming its prototype:
// a row keyed by it would lose the value in properties_by_name.
const propertyName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((name) => name !== "__proto__", "This name is reserved");
const color = z.enum(OPTION_COLORS);
const NewOption = z.strictObject({ name: z.string().min(1).max(200), color: color.optional() });

export const CreatePropertyBody = z
  .strictObject({
    name: propertyName,
    type: z.enum(PROPERTY_TYPES),
    options: z.array(NewOption).max(500).optional(),
  })
  .openapi("CreatePropertyRequest", {
    example: { name: "Status", type: "status", options: [{ name: "Todo" }, { name: "Done", color: "green" }] },
  });

export const UpdatePropertyBody = z
  .strictObject({ name: propertyName.optional(), type: z.enum(PROPERTY_TYPES).optional() })
  .refine((body) => body.name !== undefined || body.type !== undefined, { message: "Give name and/or type" })
  .openapi("UpdatePropertyRequest", { example: { name: "Stage" } });

export const CreateOptionBody = NewOption.openapi("CreateOptionRequest", {
  example: { name: "Blocked", color: "red" },
});
export const UpdateOptionBody = z
  .strictObject({ name: z.string().min(1).max(200).optional(), color: color.optional() })
  .refine((body) => body.name !== undefined || body.color !== undefined, { message: "Give name and/or color" })
  .openapi("UpdateOptionRequest", { example: { name: "In review", color: "purple" } });

export const QueryRowsBody = PaginationBody.extend({
  filters: z.array(RowFilterSchema).max(50).default([]).openapi({
    description:
      "All must match. select/status: equals, not_equals (option name or id, exact). multi_select: contains, not_contains (exact option id or name, never a substring). date, created_time, last_edited_time: equals (same day), before, after, on_or_before, on_or_after (ISO date or date-time; date-only bounds are whole days). checkbox: equals (boolean). number: equals, not_equals, greater_than, less_than. text-like: equals, not_equals, contains, not_contains (case-insensitive). Most types: is_empty, is_not_empty.",
  }),
  sorts: z.array(RowSortSchema).max(10).default([]).openapi({ description: "Applied in order, then by row position" }),
  cursor: z.string().min(1).max(2000).optional().openapi({
    description:
      "The X-Next-Cursor of the previous page of the same query (same filters and sorts): the page after it, at the cost of the first. Not together with a non-zero offset",
    example: "eyJxIjoiMWs3ZjJhIiwiayI6WzAsNDIsNjFdfQ",
  }),
})
  .strict()
  .openapi("QueryRowsRequest", {
    example: {
      filters: [{ property: "Status", operator: "equals", value: "Todo" }],
      sorts: [{ property: "Due", direction: "asc" }],
      limit: 50,
    },
  });
