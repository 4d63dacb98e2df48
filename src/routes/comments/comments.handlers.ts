import type { RouteHandler } from "@hono/zod-openapi";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import {
  createComment,
  deleteComment,
  listBlockComments,
  listPageComments,
  setResolved,
  updateComment,
} from "../../services/comments/comments";
import type * as routes from "./comments.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

const resolvedFilter = (value: "true" | "false" | undefined) => (value === undefined ? undefined : value === "true");

export const listByBlock: Handler<"listByBlock"> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listBlockComments(
    c.var.ctx,
    c.req.valid("param").blockId,
    { resolved: resolvedFilter(query.resolved) },
    window,
  );
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const listByPage: Handler<"listByPage"> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listPageComments(
    c.var.ctx,
    c.req.valid("param").pageId,
    { resolved: resolvedFilter(query.resolved) },
    window,
  );
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<"create"> = async (c) => c.json(await createComment(c.var.ctx, c.req.valid("json")), 201);

export const update: Handler<"update"> = async (c) =>
  c.json(await updateComment(c.var.ctx, c.req.valid("param").id, c.req.valid("json").content), 200);

export const remove: Handler<"remove"> = async (c) => {
  const deletedCount = await deleteComment(c.var.ctx, c.req.valid("param").id);
  return c.json({ success: true, message: "Comment deleted", deleted_count: deletedCount }, 200);
};

export const resolve: Handler<"resolve"> = async (c) =>
  c.json(await setResolved(c.var.ctx, c.req.valid("param").id, true), 200);

export const unresolve: Handler<"unresolve"> = async (c) =>
  c.json(await setResolved(c.var.ctx, c.req.valid("param").id, false), 200);
