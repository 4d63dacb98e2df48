import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { ETAG_HEADER } from "../../openapi/entity-tags";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { PageSchema, PageSummarySchema } from "../../schemas/pages";
import {
  BatchExportQuery,
  CreatePageBody,
  DeletePageQuery,
  DeletePageResponse,
  ExportQuery,
  ListPagesQuery,
  PageIdParams,
  UpdatePageBody,
} from "./pages.schemas";

const tags = ["Pages"];
const base = "/api/v1/pages";

/** An export's file name (RFC 6266): the title in any script in `filename*`, its ASCII form in `filename`. */
const DISPOSITION_HEADER = {
  schema: { type: "string" as const },
  description:
    "`attachment`, named after the title (its letters and digits in any script, words joined by `-`, lower case; `untitled` when none): `filename*` carries the name as RFC 5987 UTF-8, `filename` its ASCII form (accents folded, other scripts dropped) for clients that read nothing else",
  example: `attachment; filename="uber-uns.md"; filename*=UTF-8''%C3%BCber-uns.md`,
};

const fileResponse = (description: string) => ({
  description,
  headers: {
    "Content-Disposition": DISPOSITION_HEADER,
    "X-Export-Row-Count": {
      schema: { type: "integer" as const },
      description: "Database exports: the rows in the file (the database's active rows when the export began)",
    },
    "X-Export-Truncated": {
      schema: { type: "string" as const, enum: ["true"] },
      description:
        "Database exports: present when the database has more rows than one export carries (1,000,000 unless the server's EXPORT_MAX_ROWS sets another limit) and the file holds the first of them",
    },
    "Content-Security-Policy": { schema: { type: "string" as const }, description: "HTML exports: runs nothing" },
  },
  content: {
    "text/markdown": { schema: { type: "string" as const } },
    "text/html": { schema: { type: "string" as const } },
    "application/json": { schema: { type: "object" as const } },
    "application/pdf": { schema: { type: "string" as const, format: "binary" } },
    "text/csv": { schema: { type: "string" as const } },
  },
});

export const list = defineRoute({
  operationId: "listPages",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "Lightweight list of pages, databases and rows",
  description:
    "Lightweight summaries of the caller's visible pages, databases and rows (title, icon, parent, state), most recently updated first. A row's title is its database's title property. Filters: `type`, `parent_id`, `database_id`, `q` (full-text), `archived`, `in_trash`. Paginated like every listing: `limit` (default 50; above 100 lowered to 100), `offset` or `cursor` (the previous page's X-Next-Cursor), and the pagination headers.",
  request: { query: ListPagesQuery },
  responses: {
    200: {
      ...jsonContent(z.array(PageSummarySchema), "One page of summaries, most recently updated first"),
      headers: paginationHeaders,
    },
  },
});

const createSpec = {
  operationId: "createPage",
  entityTag: "create" as const,
  method: "post" as const,
  path: base,
  tags,
  access: "user" as const,
  location: "/api/v1/pages/{id}",
  summary: "Create a page, database (with its default schema) or database row",
  description:
    "Creates a page, a database (with its schema records in the same write: the default columns and the properties of an inline `properties.schema`, ids kept) or a row (`database_id` required). `title` goes to `properties.title`, or for a row to its database's title property. Row properties may use display names or `prop_` ids; select-like values must match an option exactly (400 otherwise, nothing stored). The body is `content` (canonical editor items) or `content_markdown` (converted), not both.",
  request: { body: jsonBody(CreatePageBody) },
  responses: {
    201: jsonContent(PageSchema, "The created page"),
    403: ERROR_RESPONSES[403],
    404: ERROR_RESPONSES[404],
    409: ERROR_RESPONSES[409],
  },
};

export const create = defineRoute(createSpec);

/** The contract also names an unversioned creation path (used for creating databases); same behaviour. */
export const createUnversioned = defineRoute({
  ...createSpec,
  operationId: "createPageUnversioned",
  path: "/api/pages",
  summary: "Create a page, database or row (unversioned alias of POST /api/v1/pages)",
  description: `The unversioned creation path the contract names (used to create databases). ${createSpec.description}`,
});

export const get = defineRoute({
  operationId: "getPage",
  entityTag: "read",
  method: "get",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "One active page, database or row",
  description:
    "One active page, database or row the caller can see. Rows carry `properties_by_name` besides `properties` (canonical ids). An editor block's id is a 404 here.",
  request: { params: PageIdParams },
  responses: { 200: jsonContent(PageSchema, "The page") },
});

export const update = defineRoute({
  operationId: "updatePage",
  entityTag: "write",
  method: "put",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Deep-merge properties and/or replace the body",
  description:
    "`properties` are deep-merged into the stored ones (RFC 7396; a row's values are each replaced whole and validated against its schema); `content` or `content_markdown` replaces the body. Concurrent writers of different keys never lose each other's changes.",
  request: { params: PageIdParams, body: jsonBody(UpdatePageBody) },
  responses: { 200: jsonContent(PageSchema, "The updated page"), 409: ERROR_RESPONSES[409] },
});

export const remove = defineRoute({
  operationId: "deletePage",
  entityTag: "remove",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Move to the trash, or delete permanently with ?permanent=true",
  description: "Moves the page to the trash, or with `?permanent=true` deletes it and its subtree for good.",
  request: { params: PageIdParams, query: DeletePageQuery },
  responses: {
    200: {
      ...jsonContent(DeletePageResponse, "Trashed or deleted"),
      headers: {
        ETag: {
          ...ETAG_HEADER.ETag,
          description:
            "Moved to the trash, the page still exists: its new entity tag (RFC 9110 §8.8.3), for an `If-Match` on its permanent delete (`?permanent=true`). None after a permanent delete.",
        },
      },
    },
  },
});

export const exportOne = defineRoute({
  operationId: "exportPage",
  method: "get",
  path: `${base}/{id}/export`,
  tags,
  access: "user",
  summary: "Export a page (markdown, html, json, pdf) or a database (csv, json)",
  description:
    "The page with its whole subtree as markdown (default), html, json or pdf; a database's rows as csv (default) or json, streamed however many rows there are. Sent as an attachment. HTML carries a restrictive Content-Security-Policy; CSV cells that a spreadsheet would run as formulas are prefixed with `'`.",
  request: { params: PageIdParams, query: ExportQuery },
  responses: { 200: fileResponse("The exported file") },
});

export const exportBatch = defineRoute({
  operationId: "exportPages",
  method: "get",
  path: `${base}/export/batch`,
  tags,
  access: "user",
  summary: "Export several pages as one zip",
  description:
    "Several pages (1 to 50 ids, comma-separated) exported as one zip, one file per page with unique names. Any missing page fails the whole batch with 404.",
  request: { query: BatchExportQuery },
  responses: {
    200: {
      description: "A zip with one file per page, each named as a single export names its file (UTF-8 names)",
      headers: {
        "Content-Disposition": {
          schema: { type: "string" as const },
          description: "`attachment`, named `pages-export-<YYYY-MM-DD>.zip` (UTC)",
          example: `attachment; filename="pages-export-2026-11-28.zip"; filename*=UTF-8''pages-export-2026-11-28.zip`,
        },
      },
      content: { "application/zip": { schema: { type: "string" as const, format: "binary" } } },
    },
    404: ERROR_RESPONSES[404],
  },
});
