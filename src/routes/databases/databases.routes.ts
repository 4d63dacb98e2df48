import { z } from "@hono/zod-openapi";
import { digitGroups } from "../../lib/digit-groups";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { DatabaseSchemaSchema, PropertySchema, RowSchema, SelectOptionSchema } from "../../schemas/databases";
import { MAX_BATCH_ROWS, MAX_ROW_BYTES } from "../../services/block-writes/rows-batch";
import { MAX_OPTIONS, MAX_PROPERTIES } from "../../services/databases/property-types";
import { ROW_COUNT_CAP } from "../../services/databases/row-query";
import {
  CREATE_ROWS_BODY_LIMIT,
  CreatedRowsSchema,
  CreateOptionBody,
  CreatePropertyBody,
  CreateRowsBody,
  DatabaseIdParams,
  OptionParams,
  PropertyParams,
  QueryRowsBody,
  UpdateOptionBody,
  UpdatePropertyBody,
} from "./databases.schemas";

const tags = ["Databases"];
const base = "/api/v1/databases/{id}";

/** Property and option changes are writes of the database's schema (RFC 9110 §13.1.1). */
const SCHEMA_TAG =
  "A change of the database's schema: `If-Match` takes the `ETag` of GET /api/v1/databases/{id}/schema, and the answer's `ETag` is the schema's new one.";

export const getSchema = defineRoute({
  operationId: "getDatabaseSchema",
  entityTag: "read",
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
  entityTag: "write",
  method: "post",
  path: `${base}/properties`,
  tags,
  access: "user",
  location: "/api/v1/databases/{path.id}/properties/{id}",
  summary: "Add a property",
  description: `Adds a property. Names are unique per database whatever their case, and may not be another property's id (409: properties are named by id or name); a database has exactly one title property and at most ${MAX_PROPERTIES} properties (409 beyond); only select, multi_select and status properties take options, at most ${MAX_OPTIONS}. Concurrent schema changes all land: each is validated against the schema as it is when it is applied. ${SCHEMA_TAG}`,
  request: { params: DatabaseIdParams, body: jsonBody(CreatePropertyBody) },
  responses: { 201: jsonContent(PropertySchema, "The new property"), 409: ERROR_RESPONSES[409] },
});

export const updateProperty = defineRoute({
  operationId: "updateDatabaseProperty",
  entityTag: "write",
  method: "patch",
  path: `${base}/properties/{property_id}`,
  tags,
  access: "user",
  summary: "Rename and/or retype a property (stored values are kept)",
  description: `Renames and/or retypes a property. A new name follows the rules of a new property's (409). Retyping keeps stored values (new writes follow the new type) and drops saved-view filters on the property; a date property that a calendar or timeline view is laid out by cannot be retyped to a non-date type (409). The title property cannot be retyped. ${SCHEMA_TAG}`,
  request: { params: PropertyParams, body: jsonBody(UpdatePropertyBody) },
  responses: { 200: jsonContent(PropertySchema, "The property"), 409: ERROR_RESPONSES[409] },
});

export const removeProperty = defineRoute({
  operationId: "removeDatabaseProperty",
  entityTag: "write",
  method: "delete",
  path: `${base}/properties/{property_id}`,
  tags,
  access: "user",
  summary: "Remove a property and its values from every row",
  description: `Removes a property, its values from every row, and its filters, sorts and visible-column entries from every saved view, in one atomic write. A property a calendar or timeline view is laid out by is a 409 naming those views; the title property cannot be removed. ${SCHEMA_TAG}`,
  request: { params: PropertyParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), 409: ERROR_RESPONSES[409] },
});

export const addOption = defineRoute({
  operationId: "addPropertyOption",
  entityTag: "write",
  method: "post",
  path: `${base}/properties/{property_id}/options`,
  tags,
  access: "user",
  location: "/api/v1/databases/{path.id}/properties/{path.property_id}/options/{id}",
  summary: "Add an option to a select, multi_select or status property",
  description: `Adds an option to a select, multi_select or status property. Option names are unique within the property (409, case-sensitive) and may not be another option's id (409); a property has at most ${MAX_OPTIONS} options (409 beyond). Concurrent adds all land. ${SCHEMA_TAG}`,
  request: { params: PropertyParams, body: jsonBody(CreateOptionBody) },
  responses: { 201: jsonContent(SelectOptionSchema, "The new option"), 409: ERROR_RESPONSES[409] },
});

export const updateOption = defineRoute({
  operationId: "updatePropertyOption",
  entityTag: "write",
  method: "patch",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  access: "user",
  summary: "Rename or recolour an option (rows holding it follow)",
  description: `Renames or recolours an option; rows holding it, and saved-view filters naming it, follow in the same atomic write. A new name may not be another option's name or id (409). ${SCHEMA_TAG}`,
  request: { params: OptionParams, body: jsonBody(UpdateOptionBody) },
  responses: { 200: jsonContent(SelectOptionSchema, "The option"), 409: ERROR_RESPONSES[409] },
});

export const removeOption = defineRoute({
  operationId: "removePropertyOption",
  entityTag: "write",
  method: "delete",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  access: "user",
  summary: "Remove an option (rows holding it lose that value)",
  description: `Removes an option; rows holding it lose that value and saved-view filters on it are dropped, in the same atomic write. ${SCHEMA_TAG}`,
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
  description: `One page of a database's active rows matching every filter (AND), sorted by \`sorts\` then by row position. Properties are named by id or display name; operators per type are listed on \`filters\`. Multi-select matches exact options, never substrings; dates compare as instants (date-only bounds as whole days). Paginated like every listing: \`limit\` (default 50; above 100 lowered to 100), \`offset\` or \`cursor\`, and the pagination headers; \`X-Total-Count\` is counted up to ${digitGroups(ROW_COUNT_CAP)} matches and left out beyond. Queries with at most one sort, on a stored (not computed) property, of a database with schema records get keyset cursors: rows trashed or added before the cursor shift nothing. Other queries (several sorts, a sort on a created or edited time or person, a database with an older inline schema) get cursors that hold an offset: a row removed before the cursor between two requests shifts the next page by one.`,
  request: { params: DatabaseIdParams, body: jsonBody(QueryRowsBody, false) },
  responses: {
    200: {
      ...jsonContent(z.array(RowSchema), "Matching active rows"),
      headers: {
        ...paginationHeaders,
        "X-Total-Count": {
          ...paginationHeaders["X-Total-Count"],
          description: `Number of matching rows; omitted when above ${digitGroups(ROW_COUNT_CAP)}`,
        },
      },
    },
  },
});

export const createRows = defineRoute({
  operationId: "createDatabaseRows",
  method: "post",
  path: `${base}/rows/batch`,
  tags,
  access: "user",
  location: "/api/v1/blocks?database_id={path.id}",
  bodyLimit: CREATE_ROWS_BODY_LIMIT,
  summary: "Create up to 1,000 rows at once (imports, large databases)",
  description: `Creates 1 to ${MAX_BATCH_ROWS} rows in one database, all or none. Each row is validated exactly as a single row created through \`POST /api/v1/pages\` with \`type: database_row\`: property keys by id or display name, select-like values matching an option exactly, dates as an ISO date or a date object, computed properties refused, \`title\` written to the title property (not together with a different value for it in \`properties\`), \`content\` as canonical items. Any problem refuses the whole request with one 400 whose \`details.rows\` lists every row at fault: \`{index, error, ...}\` with the details a single row would give. A row's properties and content may take at most ${MAX_ROW_BYTES} bytes as stored. The rows are written in one atomic batch that lands only while the database's schema is the one they were validated against (a concurrent schema change makes them be validated again). They are placed after the database's last row, in request order, owned by the caller. The database must be visible to the caller (404 otherwise), in any state, as for a single row. Bodies up to ${CREATE_ROWS_BODY_LIMIT / 1024 / 1024} MiB (413 beyond).`,
  request: { params: DatabaseIdParams, body: jsonBody(CreateRowsBody) },
  responses: {
    201: jsonContent(CreatedRowsSchema, "The rows were created"),
    400: errorResponse(
      "Invalid request (`code` validation_failed), nothing stored: `details.issues` for the body itself (`rows` missing, empty, not an array, more than 1,000), or `details.rows` listing every row at fault as `{index, error, ...}` with the details a single row create gives (`errors` per property, `fields` for a title given twice, `issues` for content or the row's shape)",
    ),
  },
});
