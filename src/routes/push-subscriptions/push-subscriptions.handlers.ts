import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { vapidPublicKey as configuredPublicKey } from "../../services/push/config";
import {
  deletePushSubscription,
  listPushSubscriptions,
  registerPushSubscription,
} from "../../services/push/subscriptions";
import type * as routes from "./push-subscriptions.routes";

export const create: Handler<typeof routes.create> = async (c) => {
  const { subscription, created } = await registerPushSubscription(c.get("ctx"), c.req.valid("json"));
  return created ? c.json(subscription, 201) : c.json(subscription, 200);
};

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listPushSubscriptions(c.get("ctx"), window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  await deletePushSubscription(c.get("ctx"), c.req.valid("param").id);
  return c.json({ success: true, message: "Push subscription deleted" }, 200);
};

export const vapidPublicKey: Handler<typeof routes.vapidPublicKey> = async (c) =>
  c.json({ public_key: await configuredPublicKey(c.get("ctx")) }, 200);
