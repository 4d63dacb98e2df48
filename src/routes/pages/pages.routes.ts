import { createRoute, z } from "@hono/zod-openapi";
import {
  authenticatedErrors,
  bearerSecurity,
  conflictResponse,
  forbiddenResponse,
  jsonBody,
  jsonContent,
  paginationHeaders,
} from "../../openapi/responses";
import {
  BatchExportQuery,
  CreatePageBody,
  DeletePageQuery,
  DeletePageResponse,
  ExportQuery,
  ListPagesQuery,
  PageIdParams,
  PageSchema,
  PageSummarySchema,
  UpdatePageBody,
} from "./pages.schemas";

const tags = ["Pages"];
const base = "/api/v1/pages";

const fileResponse = (description: string) => ({
  description,
  headers: {
    "Content-Disposition": { schema: { type: "string" as const }, description: "attachment; filename=..." },
  },
  content: {
    "text/markdown": { schema: { type: "string" as const } },
    "text/html": { schema: { type: "string" as const } },
    "application/json": { schema: { type: "object" as const } },
    "application/pdf": { schema: { type: "string" as const, format: "binary" } },
    "text/csv": { schema: { type: "string" as const } },
  },
});

export const list = createRoute({
  operationId: "listPages",
  method: "get",
  path: base,
  tags,
  security: bearerSecurity,
  summary: "Lightweight list of pages, databases and rows",
  request: { query: ListPagesQuery },
  responses: {
    200: {
      ...jsonContent(z.array(PageSummarySchema), "One page of summaries, most recently updated first"),
      headers: paginationHeaders,
    },
    ...authenticatedErrors,
  },
});

export const create = createRoute({
  operationId: "createPage",
  method: "post",
  path: base,
  tags,
  security: bearerSecurity,
  summary: "Create a page, database (with its default schema) or database row",
  request: { body: jsonBody(CreatePageBody) },
  responses: {
    201: jsonContent(PageSchema, "The created page"),
    ...authenticatedErrors,
    ...forbiddenResponse,
    ...conflictResponse,
  },
});

/** The contract also names an unversioned creation path (used for creating databases); same behaviour. */
export const createUnversioned = createRoute({
  ...create,
  operationId: "createPageUnversioned",
  path: "/api/pages",
  summary: "Create a page, database or row (unversioned alias of POST /api/v1/pages)",
});

export const get = createRoute({
  operationId: "getPage",
  method: "get",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "One active page, database or row",
  request: { params: PageIdParams },
  responses: { 200: jsonContent(PageSchema, "The page"), ...authenticatedErrors },
});

export const update = createRoute({
  operationId: "updatePage",
  method: "put",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "Deep-merge properties and/or replace the body",
  request: { params: PageIdParams, body: jsonBody(UpdatePageBody) },
  responses: { 200: jsonContent(PageSchema, "The updated page"), ...authenticatedErrors },
});

export const remove = createRoute({
  operationId: "deletePage",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "Move to the trash, or delete permanently with ?permanent=true",
  request: { params: PageIdParams, query: DeletePageQuery },
  responses: { 200: jsonContent(DeletePageResponse, "Trashed or deleted"), ...authenticatedErrors },
});

export const exportOne = createRoute({
  operationId: "exportPage",
  method: "get",
  path: `${base}/{id}/export`,
  tags,
  security: bearerSecurity,
  summary: "Export a page (markdown, html, json, pdf) or a database (csv, json)",
  request: { params: PageIdParams, query: ExportQuery },
  responses: { 200: fileResponse("The exported file"), ...authenticatedErrors },
});

export const exportBatch = createRoute({
  operationId: "exportPages",
  method: "get",
  path: `${base}/export/batch`,
  tags,
  security: bearerSecurity,
  summary: "Export several pages as one zip",
  request: { query: BatchExportQuery },
  responses: {
    200: {
      description: "A zip with one file per page",
      content: { "application/zip": { schema: { type: "string" as const, format: "binary" } } },
    },
    ...authenticatedErrors,
  },
});
