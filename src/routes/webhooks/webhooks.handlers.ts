import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { listDeliveries as listOfDeliveries, retryDelivery as retryOne } from "../../services/webhooks/deliveries";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from "../../services/webhooks/endpoints";
import type * as routes from "./webhooks.routes";

export const create: Handler<typeof routes.create> = async (c) =>
  answerTagged(c, await createWebhook(c.get("ctx"), c.req.valid("json")), 201);

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listWebhooks(c.get("ctx"), window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const get: Handler<typeof routes.get> = async (c) =>
  answerTagged(c, await getWebhook(c.get("ctx"), c.req.valid("param").id), 200);

export const update: Handler<typeof routes.update> = async (c) => {
  const webhook = await updateWebhook(c.get("ctx"), c.req.valid("param").id, c.req.valid("json"), preconditionsOf(c));
  return answerTagged(c, webhook, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  await deleteWebhook(c.get("ctx"), c.req.valid("param").id, preconditionsOf(c));
  return c.json({ success: true, message: "Webhook deleted" }, 200);
};

export const rotateSecret: Handler<typeof routes.rotateSecret> = async (c) =>
  answerTagged(c, await rotateWebhookSecret(c.get("ctx"), c.req.valid("param").id, preconditionsOf(c)), 200);

export const listDeliveries: Handler<typeof routes.listDeliveries> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listOfDeliveries(c.get("ctx"), c.req.valid("param").id, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const retryDelivery: Handler<typeof routes.retryDelivery> = async (c) => {
  const { id, delivery_id: deliveryId } = c.req.valid("param");
  return c.json(await retryOne(c.get("ctx"), id, deliveryId), 202);
};
