import type { RouteHandler } from "@hono/zod-openapi";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import { vapidPublicKey as configuredPublicKey } from "../../services/push/config";
import {
  deletePushSubscription,
  listPushSubscriptions,
  registerPushSubscription,
} from "../../services/push/subscriptions";
import type * as routes from "./push-subscriptions.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const create: Handler<"create"> = async (c) => {
  const { subscription, created } = await registerPushSubscription(c.var.ctx, c.req.valid("json"));
  return created ? c.json(subscription, 201) : c.json(subscription, 200);
};

export const list: Handler<"list"> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listPushSubscriptions(c.var.ctx, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const remove: Handler<"remove"> = async (c) => {
  await deletePushSubscription(c.var.ctx, c.req.valid("param").id);
  return c.json({ success: true, message: "Push subscription deleted" }, 200);
};

export const vapidPublicKey: Handler<"vapidPublicKey"> = async (c) =>
  c.json({ public_key: await configuredPublicKey(c.var.ctx) }, 200);
