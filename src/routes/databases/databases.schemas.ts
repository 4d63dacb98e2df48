import { z } from "@hono/zod-openapi";
import { validationDetails } from "../../lib/errors";
import { JSON_DEPTH_MESSAGE, withinJsonDepth } from "../../lib/json-depth";
import { PaginationBody } from "../../lib/pagination";
import { OPTION_ID_DESCRIPTION, PROPERTY_ID_DESCRIPTION } from "../../openapi/path-params";
import {
  OPTION_COLORS,
  OptionNameSchema,
  PROPERTY_TYPES,
  PropertyNameSchema,
  RowFilterSchema,
  RowSortSchema,
} from "../../schemas/databases";
import { type BatchRowInput, MAX_BATCH_ROWS } from "../../services/block-writes/rows-batch";
import { MAX_OPTIONS } from "../../services/databases/property-types";

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
    .openapi({
      param: { name: "property_id", in: "path" },
      description: PROPERTY_ID_DESCRIPTION,
      example: "prop_9f8e7d6c5b4a3921",
    }),
});
export const OptionParams = PropertyParams.extend({
  option_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: "option_id", in: "path" },
      description: OPTION_ID_DESCRIPTION,
      example: "opt_3b1d9a0c2e4f6a8b",
    }),
});

const color = z.enum(OPTION_COLORS);
const NewOption = z.strictObject({ name: OptionNameSchema, color: color.optional() });

export const CreatePropertyBody = z
  .strictObject({
    name: PropertyNameSchema,
    type: z.enum(PROPERTY_TYPES),
    options: z.array(NewOption).max(MAX_OPTIONS).optional(),
  })
  .openapi("CreatePropertyRequest", {
    example: { name: "Status", type: "status", options: [{ name: "Todo" }, { name: "Done", color: "green" }] },
  });

export const UpdatePropertyBody = z
  .strictObject({ name: PropertyNameSchema.optional(), type: z.enum(PROPERTY_TYPES).optional() })
  .refine((body) => body.name !== undefined || body.type !== undefined, { message: "Give name and/or type" })
  .openapi("UpdatePropertyRequest", { example: { name: "Stage" } });

export const CreateOptionBody = NewOption.openapi("CreateOptionRequest", {
  example: { name: "Blocked", color: "red" },
});
export const UpdateOptionBody = z
  .strictObject({ name: OptionNameSchema.optional(), color: color.optional() })
  .refine((body) => body.name !== undefined || body.color !== undefined, { message: "Give name and/or color" })
  .openapi("UpdateOptionRequest", { example: { name: "In review", color: "purple" } });

export const QueryRowsBody = PaginationBody.extend({
  filters: z.array(RowFilterSchema).max(50).default([]).openapi({
    description:
      "All must match. select/status: equals, not_equals (option name or id, exact). multi_select: contains, not_contains (exact option id or name, never a substring). date, created_time, last_edited_time: equals (the same calendar day, as written: the bound's date part against the value's), before, after, on_or_before, on_or_after (ISO date or date-time; a date-only bound compares the calendar day the value is written in, a date-time bound compares instants; created and edited times are written in UTC). checkbox: equals (boolean). number: equals, not_equals, greater_than, less_than. text-like (title, text, url, email, phone_number): equals, not_equals (exact, case included), contains, not_contains (ignoring the case of ASCII letters). not_equals and not_contains keep rows without a value. Most types: is_empty, is_not_empty. Values are compared as stored: after a retype, values of the old type match only what they equal as stored (a number left in a text property is not the text '50').",
  }),
  sorts: z.array(RowSortSchema).max(10).default([]).openapi({ description: "Applied in order, then by row position" }),
  cursor: z.string().min(1).max(2000).optional().openapi({
    description:
      "The X-Next-Cursor of the previous page of the same query (same database, filters and sorts), sent by the same user: the page after it, at the cost of the first. Opaque and signed by the server: another user's cursor, another query's, or an altered one is a 400 (`details.parameter` `cursor`). Not together with a non-zero offset",
    example: "eyJsIjoiZGF0YWJhc2VzLnF1ZXJ5IiwiZiI6IjFrN2YyYSIsImsiOlswLDQyLDYxXX0bFtNoxnVWbXJNWY2pPqEe",
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

/** Body limit of a bulk row create: 1,000 rows with modest content each (413 beyond). */
export const CREATE_ROWS_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * One row of a bulk create, as a single row created through POST /api/v1/pages takes it.
 * Each row is checked against this in the handler (not by the route), so a 400 lists every
 * row at fault, shape and values alike; the route documents it by reference.
 */
export const BatchRowSchema = z
  .strictObject({
    title: z.string().max(2000).optional().openapi({
      description:
        "Written to the database's title property, whatever it is named; not together with a different value for that property in `properties`",
      example: "Write docs",
    }),
    properties: z
      .record(z.string(), z.unknown())
      .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
      .optional()
      .openapi({
        description:
          "Values keyed by property id or display name (exact, then case-insensitive when unambiguous; `title` for the title property); stored by id. Select-like values by option name, `{id}` or `{name}`; dates as an ISO date or a date object",
        example: { Status: "Todo", Due: "2026-07-01", Priority: 2 },
      }),
    content: z
      .unknown()
      .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
      .optional()
      .openapi({
        type: ["array", "null"],
        items: { $ref: "#/components/schemas/ContentItem" },
        description: "The row's page body: canonical editor items (see ContentItem); null for an empty body",
        example: [{ type: "paragraph", children: [{ text: "Draft the quick start." }] }],
      }),
  })
  .openapi("DatabaseRowInput", {
    example: {
      title: "Write docs",
      properties: { Status: "Todo", Due: "2026-07-01" },
      content: [{ type: "paragraph", children: [{ text: "Draft the quick start." }] }],
    },
  });

/**
 * Each row of a bulk create checked against BatchRowSchema, a row of the wrong shape kept as its
 * problem: the service then lists every row at fault in one 400, shape and values alike.
 */
export const batchRowInputs = (rows: readonly unknown[]): BatchRowInput[] =>
  rows.map((row) => {
    const parsed = BatchRowSchema.safeParse(row);
    return parsed.success
      ? { row: parsed.data }
      : { problem: { error: "Invalid row", ...validationDetails(parsed.error, "row") } };
  });

export const CreateRowsBody = z
  .strictObject({
    rows: z
      .array(z.unknown())
      .min(1, "Give at least one row")
      .max(MAX_BATCH_ROWS, `At most ${MAX_BATCH_ROWS} rows per request`)
      .openapi({
        type: "array",
        items: { $ref: "#/components/schemas/DatabaseRowInput" },
        minItems: 1,
        maxItems: MAX_BATCH_ROWS,
        description: `1 to ${MAX_BATCH_ROWS} rows (DatabaseRowInput), created in this order`,
      }),
  })
  .openapi("CreateRowsRequest", {
    example: {
      rows: [
        { title: "Write docs", properties: { Status: "Todo", Due: "2026-07-01" } },
        {
          title: "Ship",
          properties: { status: "Done", Due: { start: "2026-07-02T09:00:00Z", end: "2026-07-02T10:00:00Z" } },
          content: [{ type: "paragraph", children: [{ text: "Release notes in the changelog." }] }],
        },
      ],
    },
  });

export const CreatedRowsSchema = z
  .object({
    created: z.number().int().openapi({ description: "How many rows were created", example: 2 }),
    ids: z.array(z.string()).openapi({
      description: "The new rows' ids, in request order",
      example: ["0b6f2c1e-8d4a-4f3b-9c2d-1e5a7b9c0d21", "7e3a9d40-2b1c-4e8f-a6d5-3c2b1a0f9e87"],
    }),
  })
  .openapi("CreatedRows");
