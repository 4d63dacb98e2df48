/**
 * Recurrence engine for personal reminders: when does a repeating reminder fire next?
 *
 * The rules (what `occurrenceAfter` computes):
 *
 * - A series starts at `seriesStart` (an instant) in the reminder's IANA zone `timeZone`. Every occurrence
 *   keeps seriesStart's LOCAL wall-clock time in that zone (09:00 stays 09:00 across DST changes); the
 *   preset picks the local dates:
 *     daily            every day
 *     weekdays         Mon–Fri
 *     weekends         Sat, Sun
 *     weekly           every week on seriesStart's weekday
 *     weekly_on_days   every week on `days_of_week` (0 = Sunday .. 6 = Saturday; required)
 *     biweekly         every 2 weeks on seriesStart's weekday
 *     monthly          every month on seriesStart's day of month
 *     twice_monthly    every month on the two `days_of_month`; without them seriesStart's day d and d+15
 *                      (d <= 15), else d-15 and d
 *     quarterly        every 3 months on seriesStart's day of month
 *     yearly           every year on seriesStart's month and day
 *     custom           every `interval` (default 1) `unit`s; unit week: on `days_of_week` when given, else on
 *                      seriesStart's weekday; unit month/year: like monthly/yearly
 *     none, inherit    not repeating: the only occurrence is seriesStart itself
 * - Month-end clamping: a day of month the month lacks becomes the month's last day, without drifting
 *   (monthly from Jan 31: Feb 28/29, Mar 31, Apr 30, ...; yearly from Feb 29: Feb 28 in common years).
 *   When two days of twice_monthly clamp to the same day (30 and 31 in February) it fires once that month.
 * - Intervals keep the series' phase: biweekly and custom weeks count weeks from the week (Monday to
 *   Sunday, RFC 5545 WKST=MO) that holds seriesStart; months and years count from seriesStart's month/year.
 * - Start matching: seriesStart is an occurrence only if its local date matches the pattern (weekdays
 *   started on a Saturday first fire on Monday, at seriesStart's time). When it matches, the occurrence
 *   on that date is seriesStart exactly.
 * - DST: a local time that does not exist on a date (spring-forward gap) moves forward by the gap's length
 *   (02:30 -> 03:30); a local time that happens twice (fall-back) is the earlier instant. This is
 *   Temporal's "compatible" disambiguation.
 * - End rules: never (default); on_date with `end_date` either YYYY-MM-DD (inclusive: occurrences whose
 *   local date in `timeZone` is that date or earlier) or a date-time with offset (inclusive: occurrences at
 *   or before that instant); after_count with `end_count` (1..MAX_END_COUNT): the total number of
 *   occurrences, counted from the first that matches the pattern. End rules apply to repeating rules only.
 * - Fields a preset does not use are ignored; `version` and `anchor_at` do not affect the computation
 *   (callers resolve anchor_at into seriesStart).
 * - `occurrenceAfter` throws a RangeError for an unknown time zone, a rule `ruleProblem` rejects, or a
 *   time outside the Date range: validate with `isTimeZone` and `ruleProblem` before storing.
 *
 * How: the date pattern is an RFC 5545 RRULE evaluated by rrule-temporal over "floating" dates (a DTSTART at
 * 00:00 UTC on seriesStart's local date, so no DST exists there and the library's fast UTC paths apply);
 * each matching date is then joined with the wall-clock time in `timeZone` by temporal-polyfill.
 * The library is not asked to place times in the zone itself because it omits occurrences whose time falls
 * in a DST gap (its reading of RFC 5545) where we move them forward, and it is much slower with named zones.
 * Clamping is `BYMONTHDAY=d,-1;BYSETPOS=1` (k days: the first k of {days..., last day}); the library's
 * RSCALE=GREGORIAN;SKIP=BACKWARD does not clamp MONTHLY rules (2.2.8: it omits the short months).
 * Cost: without a count the library jumps to the window near `after` keeping the phase, so a series started
 * years ago costs the same as a new one; with after_count it must count from the start (bounded by
 * MAX_END_COUNT). A query looks at most a few dates around `after`.
 */
import { RRuleTemporal } from "rrule-temporal";
import { Temporal } from "temporal-polyfill";
import {
  isKnownPreset,
  isRecurring,
  parseEndDate,
  type RecurrenceRule,
  ruleProblem,
} from "../../domain/recurrence-rule";
import { isTimeZone } from "../../domain/time-zones";

// ---------------------------------------------------------------------------------------------------------
// Dates are handled as epoch days (days since 1970-01-01) of local calendar dates.

const DAY_MS = 86_400_000;
/** RFC 5545 weekday codes by our day numbers (0 = Sunday). */
const WEEKDAY_CODES = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const;

/** The local date (epoch day) and time of an instant in a zone. */
function localOf(epochMs: number, timeZone: string): { day: number; time: Temporal.PlainTime } {
  const zoned = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
  return {
    day: Math.floor((epochMs + zoned.offsetNanoseconds / 1_000_000) / DAY_MS),
    time: zoned.toPlainTime(),
  };
}

/** The instant of a local date and time in a zone, with "compatible" disambiguation (gap: forward; fold: earlier). */
function instantOf(day: number, time: Temporal.PlainTime, timeZone: string): number {
  const utc = new Date(day * DAY_MS);
  return new Temporal.PlainDateTime(
    utc.getUTCFullYear(),
    utc.getUTCMonth() + 1,
    utc.getUTCDate(),
    time.hour,
    time.minute,
    time.second,
    time.millisecond,
  )
    .toZonedDateTime(timeZone, { disambiguation: "compatible" })
    .toInstant().epochMilliseconds;
}

/** The date part of an RRULE (no times: occurrences are dates at 00:00 UTC). */
interface DatePattern {
  freq: "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";
  interval: number;
  byDay?: string[];
  byMonth?: number[];
  byMonthDay?: number[];
  bySetPos?: number[];
}

const weekdays = (days: readonly number[]) =>
  [...new Set(days)].sort((a, b) => a - b).map((day) => WEEKDAY_CODES[day] ?? "MO");

/**
 * Days of the month, each clamped to the month's last day: BYMONTHDAY=days,-1 with BYSETPOS=1..k keeps the
 * first k of {the days the month has} ∪ {its last day}, which is exactly the clamped set (see header).
 */
function monthDays(days: readonly number[]): Pick<DatePattern, "byMonthDay" | "bySetPos"> {
  const unique = [...new Set(days)].sort((a, b) => a - b);
  if ((unique.at(-1) ?? 0) < 29) return { byMonthDay: unique };
  return { byMonthDay: [...unique, -1], bySetPos: unique.map((_, index) => index + 1) };
}

function datePattern(rule: RecurrenceRule, start: Temporal.PlainDate): DatePattern {
  const startWeekday = start.dayOfWeek % 7; // Temporal: 1 = Monday .. 7 = Sunday
  const monthly = (interval: number): DatePattern => ({ freq: "MONTHLY", interval, ...monthDays([start.day]) });
  const yearly = (interval: number): DatePattern => ({
    freq: "YEARLY",
    interval,
    byMonth: [start.month],
    ...monthDays([start.day]),
  });
  switch (rule.preset) {
    case "daily":
      return { freq: "DAILY", interval: 1 };
    case "weekdays":
      return { freq: "WEEKLY", interval: 1, byDay: weekdays([1, 2, 3, 4, 5]) };
    case "weekends":
      return { freq: "WEEKLY", interval: 1, byDay: weekdays([6, 0]) };
    case "weekly":
      return { freq: "WEEKLY", interval: 1, byDay: weekdays([startWeekday]) };
    case "weekly_on_days":
      return { freq: "WEEKLY", interval: 1, byDay: weekdays(rule.days_of_week ?? []) };
    case "biweekly":
      return { freq: "WEEKLY", interval: 2, byDay: weekdays([startWeekday]) };
    case "monthly":
      return monthly(1);
    case "twice_monthly": {
      const d = start.day;
      const days = rule.days_of_month ?? (d <= 15 ? [d, d + 15] : [d - 15, d]);
      return { freq: "MONTHLY", interval: 1, ...monthDays(days) };
    }
    case "quarterly":
      return monthly(3);
    case "yearly":
      return yearly(1);
    case "custom": {
      const interval = rule.interval ?? 1;
      switch (rule.unit) {
        case "day":
          return { freq: "DAILY", interval };
        case "week":
          return { freq: "WEEKLY", interval, byDay: weekdays(rule.days_of_week ?? [startWeekday]) };
        case "month":
          return monthly(interval);
        case "year":
          return yearly(interval);
        default:
          throw new RangeError("custom recurrence without a unit");
      }
    }
    default:
      throw new RangeError(`recurrence preset ${rule.preset} does not repeat`);
  }
}

/** The library rule generating the pattern's dates from `startDay` (at 00:00 UTC), limited to `count` dates. */
function dateRule(pattern: DatePattern, startDay: number, count: number | undefined): RRuleTemporal {
  return new RRuleTemporal({
    ...pattern,
    wkst: "MO",
    dtstart: Temporal.Instant.fromEpochMilliseconds(startDay * DAY_MS).toZonedDateTimeISO("UTC"),
    ...(count === undefined
      ? {}
      : // Every period of these patterns yields a date (the first may not): this many periods reach `count`.
        { count, maxIterations: Math.max(10_000, count + 64) }),
  });
}

/** Dates examined per query at most: those within two days either side of `after`'s local date, and one more. */
const MAX_DATES_PER_QUERY = 16;

/**
 * The first occurrence of the series strictly after `after` (or at/after it when options.inclusive), as epoch ms;
 * null when the series has ended (end rule) or, for a rule that does not repeat, when seriesStart is not after `after`.
 * The series: its first candidate is `seriesStart` (epoch ms); occurrences keep seriesStart's LOCAL wall-clock time
 * in `timeZone`, and follow the preset. See the header comment for the rules.
 */
export function occurrenceAfter(
  rule: RecurrenceRule | null,
  timeZone: string,
  seriesStart: number,
  after: number,
  options?: { inclusive?: boolean },
): number | null {
  if (!Number.isFinite(seriesStart) || !Number.isFinite(after)) {
    throw new RangeError("seriesStart and after must be finite epoch milliseconds");
  }
  if (!isTimeZone(timeZone)) throw new RangeError(`unknown time zone: ${timeZone}`);
  const inclusive = options?.inclusive === true;
  const passes = (instant: number) => (inclusive ? instant >= after : instant > after);

  if (rule === null || !isRecurring(rule)) {
    if (rule !== null && !isKnownPreset(rule.preset)) throw new RangeError("unknown recurrence preset");
    return passes(seriesStart) ? seriesStart : null;
  }
  const problem = ruleProblem(rule);
  if (problem) throw new RangeError(`unusable recurrence rule: ${problem.field} ${problem.message}`);

  const start = localOf(seriesStart, timeZone);
  const startDate = Temporal.Instant.fromEpochMilliseconds(start.day * DAY_MS)
    .toZonedDateTimeISO("UTC")
    .toPlainDate();
  const endType = rule.end_type ?? "never";
  const end = endType === "on_date" && rule.end_date !== undefined ? parseEndDate(rule.end_date) : null;
  const lastDay = end !== null && "day" in end ? end.day : Number.POSITIVE_INFINITY;
  const lastInstant = end !== null && "instant" in end ? end.instant : Number.POSITIVE_INFINITY;
  const dates = dateRule(
    datePattern(rule, startDate),
    start.day,
    endType === "after_count" ? rule.end_count : undefined,
  );

  // An occurrence's local date is its pattern date, or the next one when a gap pushes its time past
  // midnight, so dates before `after`'s local date minus two cannot have an occurrence after `after`.
  const fromDay = Math.max(start.day, localOf(after, timeZone).day - 2);
  let next = dates.next(new Date(fromDay * DAY_MS), true);
  for (let examined = 0; next !== null; examined++) {
    if (examined === MAX_DATES_PER_QUERY) throw new Error("recurrence search did not converge");
    const day = Math.floor(next.epochMilliseconds / DAY_MS);
    if (day > lastDay) return null;
    const instant = day === start.day ? seriesStart : instantOf(day, start.time, timeZone);
    if (instant > lastInstant) return null;
    if (passes(instant)) return instant;
    next = dates.next(new Date(next.epochMilliseconds), false);
  }
  return null;
}
