import { createRoute, z } from "@hono/zod-openapi";
import {
  authenticatedErrors,
  bearerSecurity,
  conflictResponse,
  jsonBody,
  jsonContent,
  paginationHeaders,
  SuccessSchema,
} from "../../openapi/responses";
import {
  CreateOptionBody,
  CreatePropertyBody,
  DatabaseIdParams,
  DatabaseSchemaResponse,
  OptionParams,
  PropertyParams,
  PropertySchema,
  QueryRowsBody,
  RowSchema,
  SelectOptionSchema,
  UpdateOptionBody,
  UpdatePropertyBody,
} from "./databases.schemas";

const tags = ["Databases"];
const base = "/api/v1/databases/{id}";

export const getSchema = createRoute({
  operationId: "getDatabaseSchema",
  method: "get",
  path: `${base}/schema`,
  tags,
  security: bearerSecurity,
  summary: "A database's properties (its authoritative schema)",
  request: { params: DatabaseIdParams },
  responses: { 200: jsonContent(DatabaseSchemaResponse, "The schema"), ...authenticatedErrors },
});

export const addProperty = createRoute({
  operationId: "addDatabaseProperty",
  method: "post",
  path: `${base}/properties`,
  tags,
  security: bearerSecurity,
  summary: "Add a property",
  request: { params: DatabaseIdParams, body: jsonBody(CreatePropertyBody) },
  responses: { 201: jsonContent(PropertySchema, "The new property"), ...authenticatedErrors, ...conflictResponse },
});

export const updateProperty = createRoute({
  operationId: "updateDatabaseProperty",
  method: "patch",
  path: `${base}/properties/{property_id}`,
  tags,
  security: bearerSecurity,
  summary: "Rename and/or retype a property (stored values are kept)",
  request: { params: PropertyParams, body: jsonBody(UpdatePropertyBody) },
  responses: { 200: jsonContent(PropertySchema, "The property"), ...authenticatedErrors, ...conflictResponse },
});

export const removeProperty = createRoute({
  operationId: "removeDatabaseProperty",
  method: "delete",
  path: `${base}/properties/{property_id}`,
  tags,
  security: bearerSecurity,
  summary: "Remove a property and its values from every row",
  request: { params: PropertyParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), ...authenticatedErrors },
});

export const addOption = createRoute({
  operationId: "addPropertyOption",
  method: "post",
  path: `${base}/properties/{property_id}/options`,
  tags,
  security: bearerSecurity,
  summary: "Add an option to a select, multi_select or status property",
  request: { params: PropertyParams, body: jsonBody(CreateOptionBody) },
  responses: { 201: jsonContent(SelectOptionSchema, "The new option"), ...authenticatedErrors, ...conflictResponse },
});

export const updateOption = createRoute({
  operationId: "updatePropertyOption",
  method: "patch",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  security: bearerSecurity,
  summary: "Rename or recolour an option (rows holding it follow)",
  request: { params: OptionParams, body: jsonBody(UpdateOptionBody) },
  responses: { 200: jsonContent(SelectOptionSchema, "The option"), ...authenticatedErrors, ...conflictResponse },
});

export const removeOption = createRoute({
  operationId: "removePropertyOption",
  method: "delete",
  path: `${base}/properties/{property_id}/options/{option_id}`,
  tags,
  security: bearerSecurity,
  summary: "Remove an option (rows holding it lose that value)",
  request: { params: OptionParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), ...authenticatedErrors },
});

export const queryRows = createRoute({
  operationId: "queryDatabaseRows",
  method: "post",
  path: `${base}/query`,
  tags,
  security: bearerSecurity,
  summary: "Filter and sort a database's rows",
  request: { params: DatabaseIdParams, body: jsonBody(QueryRowsBody, false) },
  responses: {
    200: {
      ...jsonContent(z.array(RowSchema), "Matching active rows"),
      headers: paginationHeaders,
    },
    ...authenticatedErrors,
  },
});
