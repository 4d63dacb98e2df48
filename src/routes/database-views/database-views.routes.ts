import { createRoute, z } from "@hono/zod-openapi";
import { authenticatedErrors, bearerSecurity, jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import {
  CreateViewBody,
  DatabaseParams,
  DatabaseViewSchema,
  UpdateViewBody,
  ViewParams,
} from "./database-views.schemas";

const tags = ["Database views"];

export const list = createRoute({
  operationId: "listDatabaseViews",
  method: "get",
  path: "/api/database-views/{database_id}",
  tags,
  security: bearerSecurity,
  summary: "Saved views of a database",
  request: { params: DatabaseParams },
  responses: { 200: jsonContent(z.array(DatabaseViewSchema), "The views"), ...authenticatedErrors },
});

export const create = createRoute({
  operationId: "createDatabaseView",
  method: "post",
  path: "/api/database-views/{database_id}",
  tags,
  security: bearerSecurity,
  summary: "Save a view of a database",
  request: { params: DatabaseParams, body: jsonBody(CreateViewBody) },
  responses: { 201: jsonContent(DatabaseViewSchema, "The new view"), ...authenticatedErrors },
});

export const get = createRoute({
  operationId: "getDatabaseView",
  method: "get",
  path: "/api/database-views/view/{view_id}",
  tags,
  security: bearerSecurity,
  summary: "One saved view",
  request: { params: ViewParams },
  responses: { 200: jsonContent(DatabaseViewSchema, "The view"), ...authenticatedErrors },
});

export const update = createRoute({
  operationId: "updateDatabaseView",
  method: "patch",
  path: "/api/database-views/view/{view_id}",
  tags,
  security: bearerSecurity,
  summary: "Change a saved view",
  request: { params: ViewParams, body: jsonBody(UpdateViewBody) },
  responses: { 200: jsonContent(DatabaseViewSchema, "The view"), ...authenticatedErrors },
});

export const remove = createRoute({
  operationId: "deleteDatabaseView",
  method: "delete",
  path: "/api/database-views/view/{view_id}",
  tags,
  security: bearerSecurity,
  summary: "Delete a saved view",
  request: { params: ViewParams },
  responses: { 200: jsonContent(SuccessSchema, "Deleted"), ...authenticatedErrors },
});
