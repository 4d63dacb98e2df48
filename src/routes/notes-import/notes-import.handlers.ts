import type { RouteHandler } from "@hono/zod-openapi";
import { importNotes as sendToNotesTool } from "../../services/notes-import/notes-import";
import type * as routes from "./notes-import.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const importNotes: Handler<"importNotes"> = async (c) =>
  c.json(await sendToNotesTool(c.var.ctx, c.req.valid("json")), 200);
