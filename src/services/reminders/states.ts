import { isRecurring, type RecurrenceRule } from "../../domain/recurrence-rule";
import { REMINDER_LATEST, type ReminderStatus } from "../../schemas/reminders";
import { occurrenceAfter } from "./recurrence";
import { addLocalMs } from "./wall-clock";

// A reminder's states and the transitions between them, as pure functions of its timing.
// `remind_at` is the current occurrence; `next_fire_at` is when the user's ReminderQueue
// fires next (null: nothing left to fire).
//
//   state       remind_at                          next_fire_at
//   scheduled   the occurrence waiting to fire     remind_at
//   snoozed     the occurrence postponed           snoozed_until
//   fired       the occurrence that fired last     the series' next occurrence (null when one-off)
//   completed   the last occurrence of a series    null
//   dismissed, cancelled                           null
//
// A series ends at its last occurrence before 2100 (REMINDER_LATEST) whose due time is before 2100
// too: every instant a reminder holds is one the API takes back as input (1970 to 2099).
//
// Transitions:
//   create / update of the schedule   -> scheduled (a repeating series whose end has passed: completed)
//   fire      scheduled|snoozed|fired -> fired, or completed when a repeating series has no next occurrence
//             (its row trashed or archived, or its date property gone: nothing delivered; a one-off is
//             cancelled, a repeating one scheduled at its next occurrence)
//   snooze    scheduled|snoozed|fired -> snoozed (fires at `until`; occurrences before it fold into that
//             firing; a scheduled reminder cannot be snoozed to before its own time)
//   dismiss occurrence: a one-off     -> dismissed;
//                       repeating     -> scheduled at its first occurrence after remind_at and now, or completed
//   dismiss series   scheduled|snoozed|fired -> dismissed
//   cancel           scheduled|snoozed|fired -> cancelled
// dismissed, cancelled and completed are final; a create with the same schedule id and a changed
// schedule re-arms any of them, a PUT of the schedule restarts a completed one.

/** States that still fire or wait for the user: at most one per schedule id and user. */
export const LIVE_STATUSES = ["scheduled", "snoozed", "fired"] as const satisfies readonly ReminderStatus[];
export const isLive = (status: string): boolean => (LIVE_STATUSES as readonly string[]).includes(status);
/** For SQL: `status IN (...)` over the live states (the partial unique index says the same). */
export const LIVE_STATUS_LIST = `('scheduled', 'snoozed', 'fired')`;

/**
 * A repeating reminder created with a `remind_at` slightly in the past (a client that computed
 * "now" a moment ago) still fires that occurrence; older ones are not replayed.
 */
export const CATCH_UP_MS = 5 * 60_000;

/** What defines a reminder's occurrences. */
export interface Series {
  rule: RecurrenceRule | null;
  timeZone: string;
  /** Epoch ms of the series' first candidate occurrence. */
  start: number;
  /** The due time's wall-clock distance from each occurrence (ms), or null when it has none. */
  dueOffsetMs: number | null;
}

/**
 * The series' first occurrence after `after` (at or after it when inclusive), or null when none is
 * left: by its end rule, or because it would fall, or its due time would, past 2099. Occurrences
 * only grow, so the series ends there, as one that runs out does.
 */
function nextOccurrence(series: Series, after: number, options?: { inclusive?: boolean }): number | null {
  const next = occurrenceAfter(series.rule, series.timeZone, series.start, after, options);
  if (next === null || next >= REMINDER_LATEST) return null;
  const due = series.dueOffsetMs === null ? next : addLocalMs(next, series.dueOffsetMs, series.timeZone);
  return due < REMINDER_LATEST ? next : null;
}

export interface Timing {
  status: ReminderStatus;
  /** Epoch ms. */
  remindAt: number;
  nextFireAt: number | null;
  snoozedUntil: number | null;
}

/**
 * The timing of a newly created or rescheduled reminder: a one-off reminds at `remindAt`; a
 * repeating one at its first occurrence from `remindAt` on (after it, when `afterRemindAt`: a
 * series rescheduled once its current occurrence fired) that is not older than the catch-up window.
 */
export function initialTiming(series: Series, remindAt: number, now: number, afterRemindAt = false): Timing {
  if (!isRecurring(series.rule)) return { status: "scheduled", remindAt, nextFireAt: remindAt, snoozedUntil: null };
  const floor = Math.max(now - CATCH_UP_MS, series.start);
  const first =
    remindAt >= floor
      ? nextOccurrence(series, remindAt, { inclusive: !afterRemindAt })
      : nextOccurrence(series, floor, { inclusive: true });
  if (first === null) return { status: "completed", remindAt, nextFireAt: null, snoozedUntil: null };
  return { status: "scheduled", remindAt: first, nextFireAt: first, snoozedUntil: null };
}

/** After the firing at `firedAt` (the reminder's `next_fire_at`). */
export function afterFiring(series: Series, timing: Timing, firedAt: number): Timing {
  if (timing.status === "snoozed" && timing.remindAt > firedAt) {
    // Snoozed to before its current occurrence: that occurrence still comes.
    return { status: "scheduled", remindAt: timing.remindAt, nextFireAt: timing.remindAt, snoozedUntil: null };
  }
  // A fired repeating reminder fires its next occurrence; otherwise the current one (perhaps snoozed) fires.
  const delivered = timing.status === "fired" ? firedAt : timing.remindAt;
  if (!isRecurring(series.rule)) return { status: "fired", remindAt: delivered, nextFireAt: null, snoozedUntil: null };
  const next = nextOccurrence(series, Math.max(delivered, firedAt));
  if (next === null) return { status: "completed", remindAt: delivered, nextFireAt: null, snoozedUntil: null };
  return { status: "fired", remindAt: delivered, nextFireAt: next, snoozedUntil: null };
}

/**
 * Done with the current occurrence: a repeating reminder moves on to its first occurrence
 * after both it and now (occurrences already past are not replayed).
 */
export function afterDismissOccurrence(series: Series, timing: Timing, now: number): Timing {
  if (!isRecurring(series.rule)) return { ...timing, status: "dismissed", nextFireAt: null, snoozedUntil: null };
  const next = nextOccurrence(series, Math.max(timing.remindAt, now));
  if (next === null) return { ...timing, status: "completed", nextFireAt: null, snoozedUntil: null };
  return { status: "scheduled", remindAt: next, nextFireAt: next, snoozedUntil: null };
}

/**
 * When a reminder comes due while its row is in the trash or archived, or its date property is
 * gone: nothing is delivered; a one-off ends `cancelled`, a repeating one waits for its next
 * occurrence (`completed` when none is left).
 */
export function afterSkipping(series: Series, timing: Timing, firedAt: number): Timing {
  const fired = afterFiring(series, timing, firedAt);
  if (!isRecurring(series.rule)) return { ...fired, status: "cancelled", nextFireAt: null };
  if (fired.nextFireAt === null) return fired;
  return { status: "scheduled", remindAt: fired.nextFireAt, nextFireAt: fired.nextFireAt, snoozedUntil: null };
}
