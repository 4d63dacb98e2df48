import { z } from "@hono/zod-openapi";
import { BlockSchema, PropertiesByNameSchema } from "./blocks";

/** Property types a database schema can hold. */
export const PROPERTY_TYPES = [
  "title",
  "text",
  "number",
  "select",
  "multi_select",
  "status",
  "date",
  "checkbox",
  "url",
  "email",
  "phone_number",
  "created_time",
  "created_by",
  "last_edited_time",
  "last_edited_by",
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const OPTION_COLORS = [
  "default",
  "gray",
  "brown",
  "orange",
  "yellow",
  "green",
  "blue",
  "purple",
  "pink",
  "red",
] as const;

// `__proto__` cannot be a key of a JSON object in JavaScript without becoming its prototype:
// a row keyed by it would lose the value in properties_by_name.
/** A property's display name, as written by the schema endpoints and an inline schema. */
export const PropertyNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((name) => name !== "__proto__", "This name is reserved");
/** An option's name. */
export const OptionNameSchema = z.string().min(1).max(200);

export const FILTER_OPERATORS = [
  "equals",
  "not_equals",
  "contains",
  "not_contains",
  "before",
  "after",
  "on_or_before",
  "on_or_after",
  "greater_than",
  "less_than",
  "is_empty",
  "is_not_empty",
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const SelectOptionSchema = z
  .object({
    id: z.string().openapi({ example: "opt_3b1d9a0c2e4f6a8b" }),
    name: z.string().openapi({ example: "Todo" }),
    color: z.string().openapi({ example: "default" }),
  })
  .openapi("SelectOption", { description: "A select-like option; row values of select properties take this shape" });
export type SelectOption = z.infer<typeof SelectOptionSchema>;

export const PropertySchema = z
  .object({
    id: z.string().openapi({ description: "Canonical id, `prop_...`", example: "prop_9f8e7d6c5b4a3921" }),
    name: z
      .string()
      .openapi({ description: "Display name; accepted as an alias of the id in row writes", example: "Status" }),
    type: z.enum(PROPERTY_TYPES).openapi({ example: "status" }),
    options: z.array(SelectOptionSchema),
    position: z.number().int().openapi({ example: 5 }),
  })
  .openapi("DatabaseProperty");
export type PropertyDefinition = z.infer<typeof PropertySchema>;

export const DatabaseSchemaSchema = z
  .object({
    database_id: z.string().openapi({ example: "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a" }),
    legacy: z.boolean().openapi({
      description: "True when read from an older database's inline properties.schema",
      example: false,
    }),
    properties: z.array(PropertySchema),
  })
  .openapi("DatabaseSchema");
export type DatabaseSchemaResponse = z.infer<typeof DatabaseSchemaSchema>;

export const RowSchema = BlockSchema.extend({ properties_by_name: PropertiesByNameSchema }).openapi("DatabaseRow");
/** A database row: the block, plus its properties keyed by display name (regenerated, never stored). */
export type Row = z.infer<typeof RowSchema>;

export const RowFilterSchema = z
  .strictObject({
    property: z.string().min(1).openapi({ description: "Canonical id or display name", example: "Status" }),
    operator: z.enum(FILTER_OPERATORS).openapi({ example: "equals" }),
    value: z.unknown().optional().openapi({ example: "Todo" }),
  })
  .openapi("RowFilter", { description: "One condition on a property; see POST /api/v1/databases/{id}/query" });
export type RowFilter = z.infer<typeof RowFilterSchema>;

export const RowSortSchema = z
  .strictObject({
    property: z.string().min(1).openapi({ description: "Canonical id or display name", example: "Due" }),
    direction: z.enum(["asc", "desc"]).default("asc").openapi({ example: "asc" }),
  })
  .openapi("RowSort");
export type RowSort = z.output<typeof RowSortSchema>;
