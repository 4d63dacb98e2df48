import { sql } from "drizzle-orm";
import type { RawRow } from "../../db/rows";
import type { reminders } from "../../db/schema";
import type { RecurrenceRule } from "../../domain/recurrence-rule";
import { type Validator, type Versioned, withValidator } from "../../lib/entity-tags";
import type { Reminder, ReminderStatus } from "../../schemas/reminders";
import type { Series, Timing } from "./states";
import { addLocalMs } from "./wall-clock";

// A stored reminder read two ways: as the API shows it (presentReminder) and as the state rules
// take it (seriesOf, timingOf).

/** A `reminders` row as D1 returns it. */
export type ReminderRecord = RawRow<typeof reminders, { channel: "push" | "in_app"; status: ReminderStatus }>;

const iso = (epochMs: number): string => new Date(epochMs).toISOString();
export const isoOrNull = (epochMs: number | null): string | null => (epochMs === null ? null : iso(epochMs));
export const epochOrNull = (value: string | null): number | null => (value === null ? null : Date.parse(value));

export const parseRule = (json: string | null): RecurrenceRule | null =>
  json === null ? null : (JSON.parse(json) as RecurrenceRule);

export const seriesOf = (record: ReminderRecord): Series => ({
  rule: parseRule(record.recurrence_rule),
  timeZone: record.timezone,
  start: Date.parse(record.series_start),
  dueOffsetMs: record.due_offset_ms,
});

export const timingOf = (record: ReminderRecord): Timing => ({
  status: record.status,
  remindAt: Date.parse(record.remind_at),
  nextFireAt: record.next_fire_at,
  snoozedUntil: epochOrNull(record.snoozed_until),
});

/** The due time of the occurrence at `remindAt`, or null. */
export const dueAtOf = (record: Pick<ReminderRecord, "due_offset_ms" | "timezone">, remindAt: number): number | null =>
  record.due_offset_ms === null ? null : addLocalMs(remindAt, record.due_offset_ms, record.timezone);

/** The kind of a reminder's entity tag: it names the row's `version`, bumped by every write (RFC 9110 §8.8.3). */
const REMINDER_TAG = "r";

export const reminderValidator = (record: Pick<ReminderRecord, "id" | "version">): Validator => ({
  kind: REMINDER_TAG,
  id: record.id,
  parts: [record.version],
});

/** A reminder's version in SQL (the `reminders` table unaliased). */
export const reminderVersioned = (id: string): Versioned => ({ kind: REMINDER_TAG, id, columns: [sql`version`] });

/** The response object of a stored reminder, carrying its validator for the answer's ETag. */
export function presentReminder(record: ReminderRecord): Reminder {
  return withValidator(presentReminderFields(record), reminderValidator(record));
}

function presentReminderFields(record: ReminderRecord): Reminder {
  const remindAt = Date.parse(record.remind_at);
  return {
    id: record.id,
    target_block_id: record.target_block_id,
    source_property_id: record.source_property_id,
    remind_at: iso(remindAt),
    due_at: isoOrNull(dueAtOf(record, remindAt)),
    timezone: record.timezone,
    channel: record.channel,
    recurrence_rule: parseRule(record.recurrence_rule),
    metadata: JSON.parse(record.metadata) as Record<string, unknown>,
    status: record.status,
    next_fire_at: isoOrNull(record.next_fire_at),
    snoozed_until: record.snoozed_until,
    occurrence_count: record.occurrence_count,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The key of one firing: its instant, ISO-8601 UTC. One delivery per (reminder, firing key). */
export const firingKey = (fireAt: number): string => iso(fireAt);
