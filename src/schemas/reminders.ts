import { z } from "@hono/zod-openapi";
import {
  RECURRENCE_END_TYPES,
  RECURRENCE_PRESETS,
  RECURRENCE_UNITS,
  type RecurrenceRule,
  ruleProblem,
} from "../domain/recurrence-rule";
import { REMINDER_OFFSETS } from "../domain/reminder-offsets";
import { isTimeZone } from "../domain/time-zones";

// The Reminder and Notification resources: the one zod source of their TypeScript types,
// their OpenAPI components and the request bodies.

export const REMINDER_STATUSES = ["scheduled", "snoozed", "fired", "dismissed", "cancelled", "completed"] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];
export const REMINDER_CHANNELS = ["push", "in_app"] as const;

const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";
/**
 * Instants a reminder may name: 1970 to 2099 (UTC). Beyond them ISO text stops sorting as time
 * (year 10000 is written `+010000`) and the runtime refuses alarms; no reminder needs them.
 */
export const REMINDER_EARLIEST = Date.UTC(1970, 0, 1);
export const REMINDER_LATEST = Date.UTC(2100, 0, 1);
const inRange = (value: string) => {
  const time = Date.parse(value);
  return time >= REMINDER_EARLIEST && time < REMINDER_LATEST;
};
/** Checked only on a well-formed value: text that is no date is refused as that alone. */
const IN_RANGE = {
  message: "Must be from 1970-01-01 to 2099-12-31 (UTC)",
  when: (payload: { issues: unknown[] }) => payload.issues.length === 0,
};
/** An ISO-8601 date-time with an offset, within the range above. */
export const ReminderInstant = z.iso.datetime({ offset: true }).refine(inRange, IN_RANGE);
const isoDateTime = ReminderInstant;
const dayOfWeek = z.number().int().min(0).max(6);

export const RecurrenceRuleSchema = z
  .strictObject({
    version: z.number().int().min(1).optional().openapi({ example: 1 }),
    preset: z.enum(RECURRENCE_PRESETS).openapi({
      description:
        "How the reminder repeats; `none` and `inherit` (resolved by the client from the date property) do not repeat",
      example: "weekly_on_days",
    }),
    days_of_week: z
      .array(dayOfWeek)
      .min(1)
      .max(7)
      .optional()
      .openapi({ description: "0 = Sunday to 6 = Saturday: `weekly_on_days`, or `custom` by weeks", example: [1, 3] }),
    days_of_month: z
      .array(z.number().int().min(1).max(31))
      .length(2)
      .optional()
      .openapi({
        description: "`twice_monthly`: the two days (a day a month lacks is its last day)",
        example: [1, 15],
      }),
    interval: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: "`custom`: every `interval` units (default 1)", example: 2 }),
    unit: z.enum(RECURRENCE_UNITS).optional().openapi({ description: "`custom`: the unit", example: "week" }),
    end_type: z.enum(RECURRENCE_END_TYPES).optional().openapi({ description: "Default `never`", example: "never" }),
    end_date: z
      .union([z.iso.date().refine(inRange, IN_RANGE), isoDateTime])
      .optional()
      .openapi({
        description: "`on_date`: the last day (a date, in the reminder's time zone) or instant, inclusive",
        example: "2027-06-30",
      }),
    end_count: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: "`after_count`: how many occurrences in all, the first included", example: 10 }),
    anchor_at: isoDateTime.optional().openapi({
      description: "The series' first occurrence; default `remind_at`. Its local time of day is every occurrence's",
      example: "2026-11-23T09:00:00+01:00",
    }),
  })
  .openapi("RecurrenceRule") satisfies z.ZodType<RecurrenceRule>;

export const ReminderMetadataSchema = z
  .looseObject({
    version: z.number().int().optional().openapi({ example: 1 }),
    source: z.string().max(100).optional().openapi({ example: "database_date_property" }),
    schedule_id: z.string().min(1).max(200).optional().openapi({
      description:
        "The date property's `reminder_schedules[].id`: one reminder per schedule id and user (a second create updates it)",
      example: "sched_1",
    }),
    reminder_offset: z.enum(REMINDER_OFFSETS).optional().openapi({ example: "1_day_before" }),
    reminder_days_of_week: z
      .array(dayOfWeek)
      .max(7)
      .optional()
      .openapi({ example: [1, 2, 3, 4, 5] }),
    reminder_time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Expected HH:mm")
      .optional()
      .openapi({ example: "09:00" }),
    recurrence_preset: z.enum(RECURRENCE_PRESETS).optional().openapi({ example: "weekly" }),
  })
  .openapi("ReminderMetadata", {
    description: "Free-form beyond the named fields (stored as JSON, at most 4 KiB), returned as an object",
  });

/** Stored metadata stays small: it is returned with every reminder. */
const METADATA_MAX_BYTES = 4096;

type Issues = z.core.$RefinementCtx;

/** Checks zod cannot express field by field: time zone names, rule combinations, metadata size. */
function refineReminder(
  value: { timezone?: string; recurrence_rule?: RecurrenceRule | null; metadata?: Record<string, unknown> },
  ctx: Issues,
) {
  if (value.timezone !== undefined && !isTimeZone(value.timezone)) {
    ctx.addIssue({ code: "custom", path: ["timezone"], message: "Not an IANA time zone name (e.g. Europe/Paris)" });
  }
  if (value.recurrence_rule) {
    const problem = ruleProblem(value.recurrence_rule);
    if (problem) ctx.addIssue({ code: "custom", path: ["recurrence_rule", problem.field], message: problem.message });
  }
  if (value.metadata && new TextEncoder().encode(JSON.stringify(value.metadata)).length > METADATA_MAX_BYTES) {
    ctx.addIssue({ code: "custom", path: ["metadata"], message: `At most ${METADATA_MAX_BYTES} bytes as JSON` });
  }
}

const reminderFields = {
  target_block_id: z.string().min(1).max(200).openapi({
    description: "The database row the reminder is about: it must be visible to the caller and active (404 otherwise)",
    example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
  }),
  source_property_id: z.string().min(1).max(200).openapi({
    description: "A date property of the row's database (400 otherwise)",
    example: "due",
  }),
  remind_at: isoDateTime.openapi({
    description:
      "When to remind (ISO-8601 with an offset). A one-off reminder in the past fires at once; a repeating one starts at its first occurrence from now",
    example: "2026-11-24T08:00:00Z",
  }),
  due_at: isoDateTime.nullable().optional().openapi({
    description:
      "When the task is due; every occurrence keeps the same distance between the two on the local clock (a day later at 09:00 stays 09:00 across DST)",
    example: "2026-11-24T09:00:00Z",
  }),
  timezone: z.string().min(1).max(100).optional().openapi({
    description: "IANA time zone the reminder repeats in (09:00 stays 09:00 across DST); default UTC",
    example: "Europe/Paris",
  }),
  channel: z.enum(REMINDER_CHANNELS).optional().openapi({
    description:
      "`push`: the in-app inbox and Web Push to the caller's subscriptions; `in_app`: the inbox only. Default `push`",
    example: "push",
  }),
  recurrence_rule: RecurrenceRuleSchema.nullable().optional(),
  metadata: ReminderMetadataSchema.optional(),
};

export const CreateReminderBody = z
  .strictObject(reminderFields)
  .superRefine(refineReminder)
  .openapi("CreateReminder", {
    example: {
      target_block_id: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
      source_property_id: "due",
      remind_at: "2026-11-24T08:00:00Z",
      due_at: "2026-11-24T09:00:00Z",
      timezone: "Europe/Paris",
      channel: "push",
      recurrence_rule: { version: 1, preset: "weekly", end_type: "never" },
      metadata: {
        version: 1,
        source: "database_date_property",
        schedule_id: "sched_1",
        reminder_offset: "1_hour_before",
      },
    },
  });
export type CreateReminderInput = z.infer<typeof CreateReminderBody>;

export const UpdateReminderBody = z
  .strictObject({
    target_block_id: reminderFields.target_block_id.optional(),
    source_property_id: reminderFields.source_property_id.optional(),
    remind_at: reminderFields.remind_at.optional(),
    due_at: reminderFields.due_at,
    timezone: reminderFields.timezone,
    channel: reminderFields.channel,
    recurrence_rule: reminderFields.recurrence_rule,
    metadata: reminderFields.metadata,
  })
  .superRefine((value, ctx) => {
    if (Object.keys(value).length === 0) ctx.addIssue({ code: "custom", path: [], message: "Give at least one field" });
    refineReminder(value, ctx);
  })
  .openapi("UpdateReminder", { example: { remind_at: "2026-11-25T08:00:00Z", channel: "in_app" } });
export type UpdateReminderInput = z.infer<typeof UpdateReminderBody>;

/** Longest snooze: a year. */
export const SNOOZE_MAX_MINUTES = 525_600;

export const SnoozeReminderBody = z
  .strictObject({
    until: isoDateTime.optional().openapi({ description: "Fire again at this instant (in the future)" }),
    minutes: z
      .number()
      .int()
      .min(1)
      .max(SNOOZE_MAX_MINUTES)
      .optional()
      .openapi({ description: "Fire again this many minutes from now" }),
  })
  .superRefine((value, ctx) => {
    if ((value.until === undefined) === (value.minutes === undefined)) {
      ctx.addIssue({ code: "custom", path: [], message: "Give exactly one of until and minutes" });
    }
  })
  .openapi("SnoozeReminder", { example: { minutes: 10 } });

/** Cancel takes no fields; an empty object (or no body) is accepted. */
export const CancelReminderBody = z.strictObject({}).openapi("CancelReminder", { example: {} });

export const DismissReminderBody = z
  .strictObject({
    scope: z.enum(["occurrence", "series"]).openapi({
      description:
        "`occurrence`: this firing is done (a repeating reminder goes on with its next occurrence); `series`: the reminder ends",
    }),
  })
  .openapi("DismissReminder", { example: { scope: "occurrence" } });

export const ReminderSchema = z
  .object({
    id: z.string().openapi({ example: "2b8f0c4e-9d1a-4f3b-8e7c-5a6b7c8d9e0f" }),
    target_block_id: z.string().openapi({ example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d" }),
    source_property_id: z.string().openapi({ example: "due" }),
    remind_at: z.string().openapi({
      format: "date-time",
      description: "The current occurrence: the next to fire, or while `fired` the one that fired last",
      example: "2026-11-24T08:00:00.000Z",
    }),
    due_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "The current occurrence's due time", example: EXAMPLE_TIME }),
    timezone: z.string().openapi({ example: "Europe/Paris" }),
    channel: z.enum(REMINDER_CHANNELS).openapi({ example: "push" }),
    recurrence_rule: RecurrenceRuleSchema.nullable(),
    metadata: z.record(z.string(), z.unknown()).openapi({ example: { schedule_id: "sched_1" } }),
    status: z.enum(REMINDER_STATUSES).openapi({
      description:
        "`scheduled`: waiting for `remind_at`. `snoozed`: postponed to `snoozed_until`. `fired`: `remind_at` fired and is not dismissed (a repeating reminder still fires its next occurrence at `next_fire_at`). `dismissed`, `cancelled`: ended by the caller. `completed`: a repeating reminder whose series ran out (by its end rule, or at its last occurrence before 2100: past it no instant can be stored)",
      example: "scheduled",
    }),
    next_fire_at: z.string().nullable().openapi({
      format: "date-time",
      description: "When it fires next; null when nothing is left to fire",
      example: "2026-11-24T08:00:00.000Z",
    }),
    snoozed_until: z.string().nullable().openapi({ format: "date-time", example: null }),
    occurrence_count: z.number().int().openapi({ description: "Firings so far", example: 0 }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    updated_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("Reminder");
export type Reminder = z.infer<typeof ReminderSchema>;

export const NotificationSchema = z
  .object({
    id: z.string().openapi({ example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    kind: z.enum(["reminder"]).openapi({ example: "reminder" }),
    reminder_id: z.string().nullable().openapi({ example: "2b8f0c4e-9d1a-4f3b-8e7c-5a6b7c8d9e0f" }),
    occurrence: z
      .string()
      .openapi({ format: "date-time", description: "The instant this firing was for", example: EXAMPLE_TIME }),
    target_block_id: z.string().nullable().openapi({ example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d" }),
    title: z.string().openapi({ description: "The row's title when it fired", example: "Send the invoice" }),
    body: z.string().openapi({ example: "Due Tue, Nov 24, 10:00 AM (Europe/Paris)" }),
    channel: z.enum(REMINDER_CHANNELS).openapi({ example: "push" }),
    push: z
      .object({
        pending: z.number().int(),
        sent: z.number().int(),
        failed: z.number().int(),
      })
      .nullable()
      .openapi({
        description:
          "Web Push deliveries to the caller's subscriptions (pending ones are retried with backoff; `failed` gave up after the last attempt); null on the in_app channel",
        example: { pending: 0, sent: 1, failed: 0 },
      }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    read_at: z.string().nullable().openapi({ format: "date-time", example: null }),
  })
  .openapi("Notification");
export type Notification = z.infer<typeof NotificationSchema>;
