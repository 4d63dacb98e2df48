import type { RouteHandler } from "@hono/zod-openapi";
import { getSettings, updateSettings } from "../../services/settings/settings";
import type * as routes from "./settings.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const get: Handler<"get"> = async (c) => c.json(await getSettings(c.var.ctx), 200);

export const update: Handler<"update"> = async (c) => c.json(await updateSettings(c.var.ctx, c.req.valid("json")), 200);
