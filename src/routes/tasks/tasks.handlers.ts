import type { RouteHandler } from "@hono/zod-openapi";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import { listDatabaseOptions } from "../../services/quick-tasks/database-options";
import { createQuickTask, previewQuickTask } from "../../services/quick-tasks/quick-tasks";
import type * as routes from "./tasks.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const preview: Handler<"preview"> = async (c) => {
  const { preview: bodyMarker, ...input } = c.req.valid("json");
  const queryMarker = c.req.valid("query").preview;
  const previewMarked = bodyMarker === true || queryMarker === "1" || queryMarker === "true";
  const outcome = await previewQuickTask(c.var.ctx, input, { previewMarked });
  return outcome.created ? c.json(outcome, 201) : c.json(outcome, 200);
};

export const create: Handler<"create"> = async (c) => {
  return c.json(await createQuickTask(c.var.ctx, c.req.valid("json")), 201);
};

export const databaseOptions: Handler<"databaseOptions"> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listDatabaseOptions(c.var.ctx, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};
