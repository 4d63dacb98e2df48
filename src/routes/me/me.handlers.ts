import type { RouteHandler } from "@hono/zod-openapi";
import { readMe } from "../../services/payments/subscriptions";
import type * as routes from "./me.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const get: Handler<"get"> = async (c) => c.json(await readMe(c.var.ctx), 200);
