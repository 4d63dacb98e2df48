import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { DatabaseSchemaSchema, PropertySchema, RowSchema, SelectOptionSchema } from "../../schemas/databases";
import {
  CreateOptionBody,
  CreatePropertyBody,
  DatabaseIdParams,
  OptionParams,
  PropertyParams,
  QueryRowsBody,
  UpdateOptionBody,
  UpdatePropertyBody,
} from "./databases.schemas";

const tags = ["Databases"];
const base = "/api/v1/databases/{id}";

export const getSchema = defineRoute({
  operationId: "getDatabaseSchema",
  method: "get",
  path: `${base}/schema`,
  tags,
  access: "user",
  summary: "A database's properties (its authoritative schema)",
  description:
    "A database's properties in order: its authoritative schema records, or for an older database without records its inline `properties.schema` (`legacy: true`).",
  request: { params: DatabaseIdParams },
  responses: { 200: jsonContent(DatabaseSchemaSchema, "The schema") },
});

export const addProperty = defineRoute({
  operationId: "addDatabaseProperty",
  method: "post",
  path: `${base}/properties`,
  tags,
  access: "user",
  summary: "Add a property",
  description:
    "Adds a property. Names are unique per database whatever their case (409); a database has exactly one title property; only select, multi_select and status properties take options. Concurrent schema changes all land: each is validated against the schema as it is when it is applied.",
  request: { params: DatabaseIdParams, body: jsonBody(CreatePropertyBody) },
  responses: { 201: jsonContent(PropertySchema, "The new property"), 409: ERROR_RESPONSES[409] },
});

export const updateProperty = defineRoute({
  operationId: "updateDatabaseProperty",
  method: "patch",
  path: `${base}/properties/{property_id}`,
  tags,
  access: "user",
  summary: "Rename and/or retype a property (stored values are kept)",
  description:
    "Renames and/or retypes a property. Retyping keeps stored values (new writes follow the new type) and drops saved-view filters on the property; a date property that a calendar or timeline view is laid out by cannot be retyped to a non-date type (409). The title property cannot be retyped.",
  request: { params: PropertyParams, body: jsonBody(UpdatePropertyBody) },
  responses: { 200: jsonContent(PropertySchema, "The property"), 409: ERROR_RESPONSES[409] },
});

export const removeProperty = defineRoute({
  operationId: "removeDatabaseProperty",
  method: "delete",
  path: `${base}/properties/{property_id}`,
  tags,
  access: "user",
  summary: "Remove a property and its values from every row",
  description:
    "Removes a property, its values from every row, and its filters, sorts and visible-column entries from every saved view, in one atomic write. A property a calendar or timeline view is laid out by is a 409 naming those views; the title property cannot be removed.",
  request: { params: PropertyParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), 409: ERROR_RESPONSES[409] },
});

export const addOption = defineRoute({
  operationId: "addPropertyOption",
  method: "post",
  path: `${base}/properties/{property_id}/options`,
  tags,
  access: "user",
  summary: "Add an option to a select, multi_select or status property",
  description:
    "Adds an option to a select, multi_select or status property. Option names are unique within the property (409, case-sensitive). Concurrent adds all land.",
  request: { params: PropertyParams, body: jsonBody(CreateOptionBody) },
  responses: { 201: jsonContent(SelectOptionSchema, "The new option"), 409: ERROR_RESPONSES[409] },
});

export const updateOption = defineRoute({
  operationId: "updatePropertyOption",
  method: "patch",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  access: "user",
  summary: "Rename or recolour an option (rows holding it follow)",
  description:
    "Renames or recolours an option; rows holding it, and saved-view filters naming it, follow in the same atomic write.",
  request: { params: OptionParams, body: jsonBody(UpdateOptionBody) },
  responses: { 200: jsonContent(SelectOptionSchema, "The option"), 409: ERROR_RESPONSES[409] },
});

export const removeOption = defineRoute({
  operationId: "removePropertyOption",
  method: "delete",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  access: "user",
  summary: "Remove an option (rows holding it lose that value)",
  description:
    "Removes an option; rows holding it lose that value and saved-view filters on it are dropped, in the same atomic write.",
  request: { params: OptionParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), 409: ERROR_RESPONSES[409] },
});

export const queryRows = defineRoute({
  operationId: "queryDatabaseRows",
  method: "post",
  path: `${base}/query`,
  tags,
  access: "user",
  // Only reads: a read-only API key may query.
  scope: "read",
  summary: "Filter and sort a database's rows",
  description:
    "One page of a database's active rows matching every filter (AND), sorted by `sorts` then by row position. Properties are named by id or display name; operators per type are listed on `filters`. Multi-select matches exact options, never substrings; dates compare as instants (date-only bounds as whole days). Paginated like every listing: `limit` (default 50; above 100 lowered to 100), `offset`, and the pagination headers.",
  request: { params: DatabaseIdParams, body: jsonBody(QueryRowsBody, false) },
  responses: {
    200: {
      ...jsonContent(z.array(RowSchema), "Matching active rows"),
      headers: paginationHeaders,
    },
  },
});
