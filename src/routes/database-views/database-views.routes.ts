import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { DatabaseViewSchema } from "../../schemas/views";
import { CreateViewBody, DatabaseParams, ListViewsQuery, UpdateViewBody, ViewParams } from "./database-views.schemas";

const tags = ["Database views"];

export const list = defineRoute({
  operationId: "listDatabaseViews",
  method: "get",
  path: "/api/database-views/{database_id}",
  tags,
  access: "user",
  summary: "Saved views of a database",
  description:
    "The saved views of a database the caller can see: their own and shared views, ordered by `position` (unpositioned last), then oldest first. Paginated like every listing (`limit`, default 50, above 100 lowered to 100; `offset` or `cursor`, the previous page's X-Next-Cursor; the pagination headers).",
  request: { params: DatabaseParams, query: ListViewsQuery },
  responses: { 200: { ...jsonContent(z.array(DatabaseViewSchema), "One page of views"), headers: paginationHeaders } },
});

export const create = defineRoute({
  operationId: "createDatabaseView",
  entityTag: "create",
  method: "post",
  path: "/api/database-views/{database_id}",
  tags,
  access: "user",
  location: "/api/database-views/view/{id}",
  summary: "Save a view of a database",
  description:
    "Saves a view. `view_type` is one of table, board, gallery, list, feed, calendar, timeline (Gantt), chart, dashboard, map, form; anything else is a 400. Calendar views need `date_property`; timeline views need `start_date_property` and may have `end_date_property` and `timeline_scale` (day, week, month; default week). Property references (ids or display names) are stored as ids; filters and sorts are checked as row queries check them.",
  request: { params: DatabaseParams, body: jsonBody(CreateViewBody) },
  responses: { 201: jsonContent(DatabaseViewSchema, "The new view"), 409: ERROR_RESPONSES[409] },
});

export const get = defineRoute({
  operationId: "getDatabaseView",
  entityTag: "read",
  method: "get",
  path: "/api/database-views/view/{view_id}",
  tags,
  access: "user",
  summary: "One saved view",
  description: "One saved view the caller can see.",
  request: { params: ViewParams },
  responses: { 200: jsonContent(DatabaseViewSchema, "The view") },
});

export const update = defineRoute({
  operationId: "updateDatabaseView",
  entityTag: "write",
  method: "patch",
  path: "/api/database-views/view/{view_id}",
  tags,
  access: "user",
  summary: "Change a saved view",
  description:
    "Changes a view's settings; the result is validated as a whole (as at creation), against the view and the database's schema as they are when the change lands, so concurrent changes compose and never combine into settings a single change would refuse. Layout fields of the old type are dropped when the type changes unless given again.",
  request: { params: ViewParams, body: jsonBody(UpdateViewBody) },
  responses: { 200: jsonContent(DatabaseViewSchema, "The view"), 409: ERROR_RESPONSES[409] },
});

export const remove = defineRoute({
  operationId: "deleteDatabaseView",
  entityTag: "remove",
  method: "delete",
  path: "/api/database-views/view/{view_id}",
  tags,
  access: "user",
  summary: "Delete a saved view",
  description: "Deletes a saved view.",
  request: { params: ViewParams },
  responses: { 200: jsonContent(SuccessSchema, "Deleted") },
});
