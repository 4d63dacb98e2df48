import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { createView, deleteView, getView, listViews, updateView } from "../../services/database-views/views";
import type * as routes from "./database-views.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listViews(c.var.ctx, c.req.valid("param").database_id, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  c.json(await createView(c.var.ctx, c.req.valid("param").database_id, c.req.valid("json")), 201);

export const get: Handler<typeof routes.get> = async (c) =>
  c.json(await getView(c.var.ctx, c.req.valid("param").view_id), 200);

export const update: Handler<typeof routes.update> = async (c) =>
  c.json(await updateView(c.var.ctx, c.req.valid("param").view_id, c.req.valid("json")), 200);

export const remove: Handler<typeof routes.remove> = async (c) => {
  await deleteView(c.var.ctx, c.req.valid("param").view_id);
  return c.json({ success: true, message: "View deleted" }, 200);
};
