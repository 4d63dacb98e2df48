import { env } from "cloudflare:test";
import type { Notification, Reminder } from "../../src/schemas/reminders";
import { type ApiResponse, api, type TestUser } from "./api";
import { createDatabase, createRow } from "./databases";

export const REMINDERS = "/api/v1/reminders";
export const NOTIFICATIONS = "/api/v1/notifications";

export type { Notification, Reminder };

/** A database with a date (Due) and a non-date (Priority) property, and one row titled `title`. */
export async function reminderTarget(user: TestUser, title = "Send the invoice") {
  const database = await createDatabase(user, {
    properties: [
      { name: "Due", type: "date" },
      { name: "Priority", type: "number" },
    ],
  });
  const row = await createRow(user, database.id, { title });
  return {
    databaseId: database.id,
    rowId: row.id,
    dueId: database.prop("Due").id,
    priorityId: database.prop("Priority").id,
  };
}

export type ReminderTarget = Awaited<ReturnType<typeof reminderTarget>>;

/** A valid create body for `target`, reminding at `remindAt`, with `extra` fields merged in. */
export const reminderBody = (target: ReminderTarget, remindAt: Date | string, extra: Record<string, unknown> = {}) => ({
  target_block_id: target.rowId,
  source_property_id: target.dueId,
  remind_at: typeof remindAt === "string" ? remindAt : remindAt.toISOString(),
  timezone: "UTC",
  channel: "in_app",
  ...extra,
});

export const postReminder = (user: TestUser, body: unknown): Promise<ApiResponse<Reminder>> =>
  api<Reminder>(REMINDERS, { method: "POST", auth: user, body });

/** Creates a reminder; throws unless 201. */
export async function createReminder(
  user: TestUser,
  target: ReminderTarget,
  remindAt: Date | string,
  extra: Record<string, unknown> = {},
): Promise<Reminder> {
  const res = await postReminder(user, reminderBody(target, remindAt, extra));
  if (res.status !== 201) throw new Error(`create reminder failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const reminderAction = (user: TestUser, id: string, action: string, body?: unknown) =>
  api<Reminder>(`${REMINDERS}/${id}/${action}`, { method: "POST", auth: user, body });

export const storedReminder = (id: string) =>
  env.DB.prepare("SELECT * FROM reminders WHERE id = ?").bind(id).first<Record<string, unknown>>();

export async function storedNotifications(reminderId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM notifications WHERE reminder_id = ? ORDER BY occurrence")
    .bind(reminderId)
    .all<{ id: string; occurrence: string; title: string; body: string; channel: string }>();
  return results;
}

export const inbox = (user: TestUser, query = ""): Promise<ApiResponse<Notification[]>> =>
  api<Notification[]>(`${NOTIFICATIONS}${query}`, { auth: user });

/** The user's ReminderQueue Durable Object. */
export const queueOf = (userId: string) => env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(userId));
