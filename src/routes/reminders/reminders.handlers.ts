import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { listNotifications, markNotificationRead } from "../../services/reminders/notifications";
import {
  cancelReminder,
  createReminder,
  dismissReminder,
  getReminder,
  listDueReminders,
  listReminders,
  snoozeReminder,
  updateReminder,
} from "../../services/reminders/reminders";
import type * as routes from "./reminders.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const { limit, offset, cursor, ...filters } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listReminders(c.var.ctx, filters, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) => {
  const { reminder, created } = await createReminder(c.var.ctx, c.req.valid("json"));
  return created ? c.json(reminder, 201) : c.json(reminder, 200);
};

export const due: Handler<typeof routes.due> = async (c) => {
  const { limit, offset, cursor, before } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listDueReminders(c.var.ctx, before, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const get: Handler<typeof routes.get> = async (c) =>
  c.json(await getReminder(c.var.ctx, c.req.valid("param").reminder_id), 200);

export const update: Handler<typeof routes.update> = async (c) =>
  c.json(await updateReminder(c.var.ctx, c.req.valid("param").reminder_id, c.req.valid("json")), 200);

export const snooze: Handler<typeof routes.snooze> = async (c) =>
  c.json(await snoozeReminder(c.var.ctx, c.req.valid("param").reminder_id, c.req.valid("json")), 200);

export const dismiss: Handler<typeof routes.dismiss> = async (c) =>
  c.json(await dismissReminder(c.var.ctx, c.req.valid("param").reminder_id, c.req.valid("json").scope), 200);

export const cancel: Handler<typeof routes.cancel> = async (c) =>
  c.json(await cancelReminder(c.var.ctx, c.req.valid("param").reminder_id), 200);

export const notifications: Handler<typeof routes.notifications> = async (c) => {
  const { limit, offset, cursor, unread } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listNotifications(c.var.ctx, { unread }, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const readNotification: Handler<typeof routes.readNotification> = async (c) =>
  c.json(await markNotificationRead(c.var.ctx, c.req.valid("param").id), 200);
