import type { Context } from "hono";
import { validatorOf } from "../../lib/entity-tags";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged } from "../../openapi/entity-tags";
import type { QuickTaskCreated } from "../../schemas/quick-tasks";
import { listDatabaseOptions } from "../../services/quick-tasks/database-options";
import { createQuickTask, previewQuickTask } from "../../services/quick-tasks/quick-tasks";
import type * as routes from "./quick-tasks.routes";

/** A created task's answer carries the new page's ETag, as GET of its Location answers it (RFC 9110 §15.3.2). */
const answerCreated = <C extends Context>(c: C, created: QuickTaskCreated) =>
  answerTagged(c, created, 201, validatorOf(created.task));

export const preview: Handler<typeof routes.preview> = async (c) => {
  const { preview: bodyMarker, ...input } = c.req.valid("json");
  const previewMarked = bodyMarker === true || c.req.valid("query").preview === true;
  const outcome = await previewQuickTask(c.get("ctx"), input, { previewMarked });
  return outcome.created ? answerCreated(c, outcome) : c.json(outcome, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  answerCreated(c, await createQuickTask(c.get("ctx"), c.req.valid("json")));

export const databaseOptions: Handler<typeof routes.databaseOptions> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listDatabaseOptions(c.get("ctx"), window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};
