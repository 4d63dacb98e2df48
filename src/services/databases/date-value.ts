import { z } from "zod";
import { RECURRENCE_PRESETS } from "../../domain/recurrence-rule";
import { REMINDER_OFFSETS } from "../../domain/reminder-offsets";

const isoDate = z.iso.date();
const isoDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
/** An ISO date (YYYY-MM-DD) or date-time with offset: what date filters take. */
export const IsoDateOrDateTime = isoDateTime;
const dayOfWeek = z.number().int().min(0).max(6);

const ReminderSchedule = z.strictObject({
  id: z.string().min(1).max(100),
  offset: z.enum(REMINDER_OFFSETS),
  days_of_week: z.array(dayOfWeek).optional(),
  time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Expected HH:mm")
    .optional(),
});

/** The object form of a date property value (contract: Date property value). */
export const DateValueObject = z
  .strictObject({
    start: isoDateTime,
    end: isoDateTime.nullish(),
    reminder: z.enum(REMINDER_OFFSETS).optional(),
    reminder_schedules: z.array(ReminderSchedule).optional(),
    recurrence: z.enum(RECURRENCE_PRESETS).optional(),
    recurrence_end_type: z.enum(["never", "on_date", "after_count"]).optional(),
    recurrence_end_date: isoDateTime.nullish(),
    recurrence_end_count: z.number().int().min(1).nullish(),
    recurrence_days_of_week: z.array(dayOfWeek).optional(),
    recurrence_days_of_month: z.array(z.number().int().min(1).max(31)).optional(),
    recurrence_interval: z.number().int().min(1).nullish(),
    recurrence_unit: z.enum(["day", "week", "month", "year"]).nullish(),
  })
  .superRefine((value, ctx) => {
    // Compared as instants: the two may be written with different offsets.
    if (value.end && Date.parse(value.end) < Date.parse(value.start)) {
      ctx.addIssue({ code: "custom", path: ["end"], message: "end is before start" });
    }
    if (value.recurrence_end_type === "on_date" && !value.recurrence_end_date) {
      ctx.addIssue({
        code: "custom",
        path: ["recurrence_end_date"],
        message: "required when recurrence_end_type is on_date",
      });
    }
    if (value.recurrence_end_type === "after_count" && !value.recurrence_end_count) {
      ctx.addIssue({
        code: "custom",
        path: ["recurrence_end_count"],
        message: "required when recurrence_end_type is after_count",
      });
    }
    if (value.recurrence === "custom" && (!value.recurrence_interval || !value.recurrence_unit)) {
      ctx.addIssue({
        code: "custom",
        path: ["recurrence_interval"],
        message: "custom recurrence needs recurrence_interval and recurrence_unit",
      });
    }
    const scheduleIds = (value.reminder_schedules ?? []).map((schedule) => schedule.id);
    if (new Set(scheduleIds).size !== scheduleIds.length) {
      ctx.addIssue({ code: "custom", path: ["reminder_schedules"], message: "schedule ids must be unique" });
    }
  });

/** A date property value: an ISO date string, or the object form. Saving one creates no reminder. */
export const DateValue = z.union([isoDate, DateValueObject]);
export type DateValue = z.infer<typeof DateValue>;

/** The comparable start of a stored date value (for filters, sorts and exports). */
export const dateStart = (value: unknown): string | null =>
  typeof value === "string"
    ? value
    : value && typeof value === "object" && typeof (value as { start?: unknown }).start === "string"
      ? (value as { start: string }).start
      : null;
