import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
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
  const page = await listReminders(c.get("ctx"), filters, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) => {
  const { reminder, created } = await createReminder(c.get("ctx"), c.req.valid("json"));
  return created ? answerTagged(c, reminder, 201) : answerTagged(c, reminder, 200);
};

export const due: Handler<typeof routes.due> = async (c) => {
  const { limit, offset, cursor, before } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listDueReminders(c.get("ctx"), before, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const get: Handler<typeof routes.get> = async (c) =>
  answerTagged(c, await getReminder(c.get("ctx"), c.req.valid("param").reminder_id), 200);

export const update: Handler<typeof routes.update> = async (c) => {
  const { reminder_id: id } = c.req.valid("param");
  return answerTagged(c, await updateReminder(c.get("ctx"), id, c.req.valid("json"), preconditionsOf(c)), 200);
};

export const snooze: Handler<typeof routes.snooze> = async (c) => {
  const { reminder_id: id } = c.req.valid("param");
  return answerTagged(c, await snoozeReminder(c.get("ctx"), id, c.req.valid("json"), preconditionsOf(c)), 200);
};

export const dismiss: Handler<typeof routes.dismiss> = async (c) => {
  const { reminder_id: id } = c.req.valid("param");
  const scope = c.req.valid("json").scope;
  return answerTagged(c, await dismissReminder(c.get("ctx"), id, scope, preconditionsOf(c)), 200);
};

export const cancel: Handler<typeof routes.cancel> = async (c) =>
  answerTagged(c, await cancelReminder(c.get("ctx"), c.req.valid("param").reminder_id, preconditionsOf(c)), 200);

export const notifications: Handler<typeof routes.notifications> = async (c) => {
  const { limit, offset, cursor, unread } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listNotifications(c.get("ctx"), { unread }, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const readNotification: Handler<typeof routes.readNotification> = async (c) =>
  c.json(await markNotificationRead(c.get("ctx"), c.req.valid("param").id), 200);
