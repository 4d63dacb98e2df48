import { z } from "@hono/zod-openapi";
import { OPTION_COLORS, PROPERTY_TYPES } from "../../services/databases/property-types";
import { FILTER_OPERATORS } from "../../services/databases/row-query";
import { BlockSchema } from "../blocks/blocks.schemas";

export const SelectOptionSchema = z
  .object({ id: z.string(), name: z.string(), color: z.string() })
  .openapi("SelectOption", { description: "A select-like option; row values of select properties take this shape" });

export const PropertySchema = z
  .object({
    id: z.string().openapi({ description: "Canonical id, `prop_...`" }),
    name: z.string().openapi({ description: "Display name; accepted as an alias of the id in row writes" }),
    type: z.enum(PROPERTY_TYPES),
    options: z.array(SelectOptionSchema),
    position: z.number().int(),
  })
  .openapi("DatabaseProperty");

export const DatabaseSchemaResponse = z
  .object({
    database_id: z.string(),
    legacy: z.boolean().openapi({ description: "True when read from an older database's inline properties.schema" }),
    properties: z.array(PropertySchema),
  })
  .openapi("DatabaseSchema");

export const DatabaseIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" }, description: "Database block id" }),
});
export const PropertyParams = DatabaseIdParams.extend({
  property_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "property_id", in: "path" } }),
});
export const OptionParams = PropertyParams.extend({
  option_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "option_id", in: "path" } }),
});

const propertyName = z.string().trim().min(1).max(200);
const color = z.enum(OPTION_COLORS);
const NewOption = z.strictObject({ name: z.string().min(1).max(200), color: color.optional() });

export const CreatePropertyBody = z
  .strictObject({
    name: propertyName,
    type: z.enum(PROPERTY_TYPES),
    options: z.array(NewOption).max(500).optional(),
  })
  .openapi("CreatePropertyRequest");

export const UpdatePropertyBody = z
  .strictObject({ name: propertyName.optional(), type: z.enum(PROPERTY_TYPES).optional() })
  .refine((body) => body.name !== undefined || body.type !== undefined, { message: "Give name and/or type" })
  .openapi("UpdatePropertyRequest");

export const CreateOptionBody = NewOption.openapi("CreateOptionRequest");
export const UpdateOptionBody = z
  .strictObject({ name: z.string().min(1).max(200).optional(), color: color.optional() })
  .refine((body) => body.name !== undefined || body.color !== undefined, { message: "Give name and/or color" })
  .openapi("UpdateOptionRequest");

export const RowSchema = BlockSchema.extend({
  properties_by_name: z
    .record(z.string(), z.unknown())
    .openapi({ description: "Values keyed by display name, regenerated from the canonical ids" }),
}).openapi("DatabaseRow");

export const QueryRowsBody = z
  .strictObject({
    filters: z
      .array(
        z.strictObject({
          property: z.string().min(1).openapi({ description: "Canonical id or display name" }),
          operator: z.enum(FILTER_OPERATORS),
          value: z.unknown().optional(),
        }),
      )
      .max(50)
      .default([])
      .openapi({
        description:
          "All must match. select/status: equals, not_equals (option name or id, exact). multi_select: contains, not_contains (exact option id or name, never a substring). date, created_time, last_edited_time: equals (same day), before, after, on_or_before, on_or_after (ISO date or date-time; date-only bounds are whole days). checkbox: equals (boolean). number: equals, not_equals, greater_than, less_than. text-like: equals, not_equals, contains, not_contains (case-insensitive). Most types: is_empty, is_not_empty.",
      }),
    sorts: z
      .array(z.strictObject({ property: z.string().min(1), direction: z.enum(["asc", "desc"]).default("asc") }))
      .max(10)
      .default([])
      .openapi({ description: "Applied in order, then by row position" }),
    limit: z.number().int().min(1).max(100).default(50),
    offset: z.number().int().min(0).default(0),
  })
  .openapi("QueryRowsRequest");
