import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import {
  createComment,
  deleteComment,
  listBlockComments,
  listPageComments,
  setResolved,
  updateComment,
} from "../../services/comments/comments";
import type * as routes from "./comments.routes";

export const listByBlock: Handler<typeof routes.listByBlock> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listBlockComments(
    c.get("ctx"),
    c.req.valid("param").blockId,
    { resolved: query.resolved },
    window,
  );
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const listByPage: Handler<typeof routes.listByPage> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listPageComments(c.get("ctx"), c.req.valid("param").pageId, { resolved: query.resolved }, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  c.json(await createComment(c.get("ctx"), c.req.valid("json")), 201);

export const update: Handler<typeof routes.update> = async (c) =>
  c.json(await updateComment(c.get("ctx"), c.req.valid("param").id, c.req.valid("json").content), 200);

export const remove: Handler<typeof routes.remove> = async (c) => {
  const deletedCount = await deleteComment(c.get("ctx"), c.req.valid("param").id);
  return c.json({ success: true, message: "Comment deleted", deleted_count: deletedCount }, 200);
};

export const resolve: Handler<typeof routes.resolve> = async (c) =>
  c.json(await setResolved(c.get("ctx"), c.req.valid("param").id, true), 200);

export const unresolve: Handler<typeof routes.unresolve> = async (c) =>
  c.json(await setResolved(c.get("ctx"), c.req.valid("param").id, false), 200);
