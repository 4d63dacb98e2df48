import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { eitherSpelling } from "../../lib/spellings";
import { setPaginationHeaders } from "../../openapi/responses";
import { exportBatch as buildZip, contentDisposition, exportPage } from "../../services/exports/export";
import { createPage, deletePage, getPage, listPages, updatePage } from "../../services/pages/pages";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "../blocks/blocks.schemas";
import type * as routes from "./pages.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R], AppEnv>;

export const list: Handler<"list"> = async (c) => {
  const query = c.req.valid("query");
  const limit = Math.min(query.limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT);
  const offset = query.offset ?? 0;
  const page = await listPages(c.var.db, c.var.user.id, {
    type: query.type,
    parentId: query.parent_id,
    databaseId: query.database_id,
    q: query.q,
    archived: query.archived === "true",
    inTrash: query.in_trash === "true",
    limit,
    offset,
  });
  setPaginationHeaders(c, page, { limit, offset });
  return c.json(page.summaries, 200);
};

export const create: Handler<"create"> = async (c) => {
  const body = c.req.valid("json");
  const page = await createPage(c.var.db, c.var.user.id, {
    id: body.id,
    type: body.type ?? "page",
    title: body.title,
    parentId: eitherSpelling<string | null>(body, "parent_id", "parentId") ?? null,
    databaseId: eitherSpelling<string | null>(body, "database_id", "databaseId") ?? null,
    properties: body.properties,
    content: body.content,
    contentMarkdown: body.content_markdown,
  });
  return c.json(page, 201);
};

export const get: Handler<"get"> = async (c) => {
  return c.json(await getPage(c.var.db, c.var.user.id, c.req.valid("param").id), 200);
};

export const update: Handler<"update"> = async (c) => {
  const body = c.req.valid("json");
  const page = await updatePage(c.var.db, c.var.user.id, c.req.valid("param").id, {
    title: body.title,
    properties: body.properties,
    content: body.content,
    contentMarkdown: body.content_markdown,
  });
  return c.json(page, 200);
};

export const remove: Handler<"remove"> = async (c) => {
  const permanent = c.req.valid("query").permanent === "true";
  const result = await deletePage(c.var.db, c.var.user.id, c.req.valid("param").id, permanent);
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

export const exportOne: Handler<"exportOne"> = async (c) => {
  const file = await exportPage(c.var.db, c.var.user.id, c.req.valid("param").id, c.req.valid("query").format);
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": file.contentType,
    "Content-Disposition": contentDisposition(file.filename),
  });
};

export const exportBatch: Handler<"exportBatch"> = async (c) => {
  const query = c.req.valid("query");
  const ids = query.ids
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  const zip = await buildZip(c.var.db, c.var.user.id, ids, query.format);
  return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/zip",
    "Content-Disposition": contentDisposition(`pages-export-${new Date().toISOString().slice(0, 10)}.zip`),
  });
};
