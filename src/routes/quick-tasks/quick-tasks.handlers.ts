import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { listDatabaseOptions } from "../../services/quick-tasks/database-options";
import { createQuickTask, previewQuickTask } from "../../services/quick-tasks/quick-tasks";
import type * as routes from "./quick-tasks.routes";

export const preview: Handler<typeof routes.preview> = async (c) => {
  const { preview: bodyMarker, ...input } = c.req.valid("json");
  const previewMarked = bodyMarker === true || c.req.valid("query").preview === true;
  const outcome = await previewQuickTask(c.var.ctx, input, { previewMarked });
  return outcome.created ? c.json(outcome, 201) : c.json(outcome, 200);
};

export const create: Handler<typeof routes.create> = async (c) => {
  return c.json(await createQuickTask(c.var.ctx, c.req.valid("json")), 201);
};

export const databaseOptions: Handler<typeof routes.databaseOptions> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listDatabaseOptions(c.var.ctx, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};
