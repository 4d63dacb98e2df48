import { Temporal } from "temporal-polyfill";

// A recurrence rule as reminders store it and requests send it: its presets, fields and limits,
// and when a rule is usable (ruleProblem), which the request schemas check before anything is
// stored. What occurrences a rule makes is the engine's: services/reminders/recurrence.ts.

/** How a date repeats: the presets of a date property and of a reminder's rule. */
export const RECURRENCE_PRESETS = [
  "none",
  "daily",
  "weekdays",
  "weekends",
  "weekly",
  "weekly_on_days",
  "biweekly",
  "monthly",
  "twice_monthly",
  "quarterly",
  "yearly",
  "custom",
  "inherit",
] as const;

export const RECURRENCE_UNITS = ["day", "week", "month", "year"] as const;
export const RECURRENCE_END_TYPES = ["never", "on_date", "after_count"] as const;

export interface RecurrenceRule {
  version?: number;
  preset: (typeof RECURRENCE_PRESETS)[number];
  /** 0 = Sunday .. 6 = Saturday; weekly_on_days (required there), custom with unit week (optional). */
  days_of_week?: number[];
  /** 1..31; twice_monthly (two days; when absent: the anchor's day d and d+15 if d <= 15, else d-15 and d). */
  days_of_month?: number[];
  /** custom: every N units (>= 1, default 1). */
  interval?: number;
  /** custom: required. */
  unit?: (typeof RECURRENCE_UNITS)[number];
  /** Default never. */
  end_type?: (typeof RECURRENCE_END_TYPES)[number];
  /** on_date: ISO date YYYY-MM-DD (inclusive, that local date in the reminder's zone) or ISO date-time with offset (inclusive instant). */
  end_date?: string;
  /** after_count: total occurrences, the first included (>= 1). */
  end_count?: number;
  /** ISO date-time: the series start (callers resolve it; the engine only receives it inside the rule). */
  anchor_at?: string;
}

/** Largest `end_count`: an after_count series is counted from its start on every query. */
export const MAX_END_COUNT = 10_000;
/** Largest custom `interval`. */
export const MAX_INTERVAL = 1_000;

const KNOWN_PRESETS: ReadonlySet<string> = new Set(RECURRENCE_PRESETS);
const NOT_REPEATING: ReadonlySet<string> = new Set(["none", "inherit"]);

/** True for a preset of RECURRENCE_PRESETS (a stored rule may carry any text). */
export const isKnownPreset = (preset: string): boolean => KNOWN_PRESETS.has(preset);

/** True when the rule repeats: a preset other than none/inherit. null/undefined: false. */
export function isRecurring(rule: RecurrenceRule | null | undefined): boolean {
  return rule != null && KNOWN_PRESETS.has(rule.preset) && !NOT_REPEATING.has(rule.preset);
}

type Problem = { field: string; message: string };

const isIntIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

function daysProblem(field: string, days: unknown, min: number, max: number): Problem | null {
  if (!Array.isArray(days)) return { field, message: "must be an array of days" };
  if (days.length === 0) return { field, message: "must list at least one day" };
  if (!days.every((day) => isIntIn(day, min, max))) {
    return { field, message: `days must be integers from ${min} to ${max}` };
  }
  return null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** The inclusive end of an on_date rule: a local date (as an epoch day, days since 1970-01-01) or an instant (epoch ms); null if unparsable. */
export function parseEndDate(value: string): { day: number } | { instant: number } | null {
  try {
    if (ISO_DATE.test(value)) return { day: epochDayOf(Temporal.PlainDate.from(value, { overflow: "reject" })) };
    // Instant.from requires an offset (Z or ±hh:mm): a date-time without one is refused here.
    if (ISO_DATE_TIME.test(value)) return { instant: Temporal.Instant.from(value).epochMilliseconds };
  } catch {
    // Falls through: not a date Temporal can read.
  }
  return null;
}

/**
 * Why a rule cannot be used, as {field, message}, or null when usable. Covers what zod cannot: required
 * fields per preset/end type, twice_monthly's two days, ranges. Fields the preset does not use are ignored.
 */
export function ruleProblem(rule: RecurrenceRule): Problem | null {
  if (!KNOWN_PRESETS.has(rule.preset)) return { field: "preset", message: "unknown recurrence preset" };
  if (rule.anchor_at !== undefined && parseEndDate(rule.anchor_at) === null) {
    return { field: "anchor_at", message: "must be an ISO date or a date-time with offset" };
  }
  if (NOT_REPEATING.has(rule.preset)) return null;

  if (rule.preset === "weekly_on_days") {
    if (rule.days_of_week === undefined) return { field: "days_of_week", message: "required for weekly_on_days" };
    const problem = daysProblem("days_of_week", rule.days_of_week, 0, 6);
    if (problem) return problem;
  }
  if (rule.preset === "twice_monthly" && rule.days_of_month !== undefined) {
    const problem = daysProblem("days_of_month", rule.days_of_month, 1, 31);
    if (problem) return problem;
    if (new Set(rule.days_of_month).size !== 2) {
      return { field: "days_of_month", message: "twice_monthly takes exactly two different days" };
    }
  }
  if (rule.preset === "custom") {
    if (rule.interval !== undefined && !isIntIn(rule.interval, 1, MAX_INTERVAL)) {
      return { field: "interval", message: `must be an integer from 1 to ${MAX_INTERVAL}` };
    }
    if (rule.unit === undefined) return { field: "unit", message: "required for custom" };
    if (!(RECURRENCE_UNITS as readonly string[]).includes(rule.unit)) {
      return { field: "unit", message: `must be one of ${RECURRENCE_UNITS.join(", ")}` };
    }
    if (rule.unit === "week" && rule.days_of_week !== undefined) {
      const problem = daysProblem("days_of_week", rule.days_of_week, 0, 6);
      if (problem) return problem;
    }
  }

  const endType = rule.end_type ?? "never";
  if (!(RECURRENCE_END_TYPES as readonly string[]).includes(endType)) {
    return { field: "end_type", message: `must be one of ${RECURRENCE_END_TYPES.join(", ")}` };
  }
  if (endType === "on_date") {
    if (rule.end_date === undefined || rule.end_date === null) {
      return { field: "end_date", message: "required when end_type is on_date" };
    }
    if (typeof rule.end_date !== "string" || parseEndDate(rule.end_date) === null) {
      return { field: "end_date", message: "must be an ISO date (YYYY-MM-DD) or a date-time with offset" };
    }
  }
  if (endType === "after_count") {
    if (rule.end_count === undefined || rule.end_count === null) {
      return { field: "end_count", message: "required when end_type is after_count" };
    }
    if (!isIntIn(rule.end_count, 1, MAX_END_COUNT)) {
      return { field: "end_count", message: `must be an integer from 1 to ${MAX_END_COUNT}` };
    }
  }
  return null;
}

interface YearMonthDay {
  year: number;
  month: number;
  day: number;
}

const DAY_MS = 86_400_000;

/** Epoch day of a calendar date (Date's UTC fields, which take any year). */
function epochDayOf(date: YearMonthDay): number {
  const utc = new Date(0);
  utc.setUTCFullYear(date.year, date.month - 1, date.day);
  return Math.floor(utc.getTime() / DAY_MS);
}
