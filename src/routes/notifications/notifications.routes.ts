import { z } from "@hono/zod-openapi";
import { PaginationQuery, paginationHeaders } from "../../lib/pagination";
import { defineRoute } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { NotificationSchema } from "../../schemas/reminders";

const tags = ["Notifications"];
const base = "/api/v1/notifications";

const NotificationIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" }, example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
});

const MarkReadBody = z.strictObject({}).openapi("MarkNotificationRead", {
  description: "No fields: the body may be omitted, or sent as {}",
  example: {},
});

const ListNotificationsQuery = PaginationQuery.extend({
  unread: z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "`true`: only unread notifications; `false`: only read ones", example: "true" }),
});

export const list = defineRoute({
  operationId: "listNotifications",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "The in-app inbox",
  description:
    "The caller's notifications, newest first: one per reminder firing, whatever the reminder's channel. On the `push` channel, `push` counts the Web Push deliveries to the caller's subscriptions (pending ones are retried with backoff). Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: ListNotificationsQuery },
  responses: {
    200: { ...jsonContent(z.array(NotificationSchema), "One page of notifications"), headers: paginationHeaders },
  },
});

export const read = defineRoute({
  operationId: "markNotificationRead",
  method: "post",
  path: `${base}/{id}/read`,
  tags,
  access: "user",
  summary: "Mark a notification read",
  description:
    "Sets `read_at`; a notification already read keeps its first `read_at` (200). Another user's notification is a 404.",
  request: { params: NotificationIdParams, body: jsonBody(MarkReadBody, false) },
  responses: { 200: jsonContent(NotificationSchema, "The notification") },
});
