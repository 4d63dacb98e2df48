import { z } from "@hono/zod-openapi";
import { PaginationQuery } from "../../lib/pagination";
import { NOTIFICATION_ID_DESCRIPTION, REMINDER_ID_DESCRIPTION } from "../../openapi/path-params";
import { QueryBoolean } from "../../openapi/query";
import { REMINDER_STATUSES, ReminderInstant } from "../../schemas/reminders";

const isoDateTime = ReminderInstant;

export const ReminderIdParams = z.object({
  reminder_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "reminder_id", in: "path" },
      description: REMINDER_ID_DESCRIPTION,
      example: "2b8f0c4e-9d1a-4f3b-8e7c-5a6b7c8d9e0f",
    }),
});

export const ListRemindersQuery = PaginationQuery.extend({
  status: z
    .enum(REMINDER_STATUSES)
    .optional()
    .openapi({ description: "Only reminders in this state", example: "scheduled" }),
  target_block_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Only reminders on this row", examples: ["6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d"] }),
  from: isoDateTime.optional().openapi({
    description: "Only reminders whose `remind_at` is at or after this instant",
    example: "2026-11-23T00:00:00Z",
  }),
  to: isoDateTime.optional().openapi({
    description: "Only reminders whose `remind_at` is before this instant",
    example: "2026-12-01T00:00:00Z",
  }),
});

export const DueRemindersQuery = PaginationQuery.extend({
  before: isoDateTime.optional().openapi({
    description: "The instant the time has come by; default now",
    example: "2026-11-23T18:00:00Z",
  }),
});

export const NotificationIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: NOTIFICATION_ID_DESCRIPTION,
      example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    }),
});

export const MarkNotificationReadBody = z.strictObject({}).openapi("MarkNotificationRead", {
  description: "No fields: the body may be omitted, or sent as {}",
  example: {},
});

export const ListNotificationsQuery = PaginationQuery.extend({
  unread: QueryBoolean.optional().openapi({
    description: "`true`: only unread notifications; `false`: only read ones",
    example: "true",
  }),
});
