import { entityTag } from "../../lib/entity-tags";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import { eitherSpelling } from "../../lib/snake-or-camel";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { exportBatch as buildZip, contentDisposition, exportPage } from "../../services/exports/export";
import { createPage, deletePage, getPage, listPages, updatePage } from "../../services/pages/pages";
import type * as routes from "./pages.routes";

/** Exported HTML runs nothing and loads nothing but images and its own inline styles. */
const EXPORT_HTML_CSP =
  "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

export const list: Handler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listPages(c.get("ctx"), {
    ...window,
    type: query.type,
    parentId: query.parent_id,
    databaseId: query.database_id,
    q: query.q,
    archived: query.archived ?? false,
    inTrash: query.in_trash ?? false,
  });
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const page = await createPage(c.get("ctx"), {
    id: body.id,
    type: body.type ?? "page",
    title: body.title,
    parentId: eitherSpelling<string | null>(body, "parent_id", "parentId") ?? null,
    databaseId: eitherSpelling<string | null>(body, "database_id", "databaseId") ?? null,
    properties: body.properties,
    content: body.content,
    contentMarkdown: body.content_markdown,
  });
  return answerTagged(c, page, 201);
};

export const get: Handler<typeof routes.get> = async (c) => {
  return answerTagged(c, await getPage(c.get("ctx"), c.req.valid("param").id), 200);
};

export const update: Handler<typeof routes.update> = async (c) => {
  const body = c.req.valid("json");
  const change = {
    title: body.title,
    properties: body.properties,
    content: body.content,
    contentMarkdown: body.content_markdown,
  };
  const page = await updatePage(c.get("ctx"), c.req.valid("param").id, change, preconditionsOf(c));
  return answerTagged(c, page, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  const permanent = c.req.valid("query").permanent ?? false;
  const result = await deletePage(c.get("ctx"), c.req.valid("param").id, permanent, preconditionsOf(c));
  if (result.validator) c.header("ETag", entityTag(result.validator));
  return c.json(
    {
      success: true,
      message: result.trashed ? "Page moved to the trash" : "Page permanently deleted",
      trashed: result.trashed,
      deleted_count: result.deletedCount,
    },
    200,
  );
};

export const exportOne: Handler<typeof routes.exportOne> = async (c) => {
  const file = await exportPage(c.get("ctx"), c.req.valid("param").id, c.req.valid("query").format);
  return c.body(file.body as Uint8Array<ArrayBuffer> | ReadableStream, 200, {
    "Content-Type": file.contentType,
    "Content-Disposition": contentDisposition(file.filename),
    ...(file.contentType.startsWith("text/html") ? { "Content-Security-Policy": EXPORT_HTML_CSP } : {}),
    ...(file.rows
      ? {
          "X-Export-Row-Count": String(file.rows.exported),
          ...(file.rows.truncated ? { "X-Export-Truncated": "true" } : {}),
        }
      : {}),
  });
};

export const exportBatch: Handler<typeof routes.exportBatch> = async (c) => {
  const query = c.req.valid("query");
  const ids = query.ids
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  const zip = await buildZip(c.get("ctx"), ids, query.format);
  return c.body(zip, 200, {
    "Content-Type": "application/zip",
    "Content-Disposition": contentDisposition(`pages-export-${c.get("ctx").now().toISOString().slice(0, 10)}.zip`),
  });
};
