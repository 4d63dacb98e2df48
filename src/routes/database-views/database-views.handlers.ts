import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { createView, deleteView, getView, listViews, updateView } from "../../services/database-views/views";
import type * as routes from "./database-views.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listViews(c.get("ctx"), c.req.valid("param").database_id, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  answerTagged(c, await createView(c.get("ctx"), c.req.valid("param").database_id, c.req.valid("json")), 201);

export const get: Handler<typeof routes.get> = async (c) =>
  answerTagged(c, await getView(c.get("ctx"), c.req.valid("param").view_id), 200);

export const update: Handler<typeof routes.update> = async (c) => {
  const view = await updateView(c.get("ctx"), c.req.valid("param").view_id, c.req.valid("json"), preconditionsOf(c));
  return answerTagged(c, view, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  await deleteView(c.get("ctx"), c.req.valid("param").view_id, preconditionsOf(c));
  return c.json({ success: true, message: "View deleted" }, 200);
};
