/**
 * Local (no model) parser for quick-task capture.
 *
 * Extracts a due date/time (chrono-node, evaluated in the caller's IANA zone relative to
 * `referenceAt`), priority, reminder offset and notes from one line of text; whatever is left
 * becomes the title. Wall times are resolved with temporal-polyfill so the UTC offset is the one in
 * force on the parsed local date (DST-correct), not the one at `referenceAt`.
 */
import * as chrono from "chrono-node";
import { Temporal } from "temporal-polyfill";
import type { REMINDER_OFFSETS } from "../../domain/reminder-offsets";

export type ReminderOffset = (typeof REMINDER_OFFSETS)[number];

export interface QuickTaskAmbiguity {
  field: string;
  text: string;
  alternatives: string[];
}

export interface QuickTaskParse {
  title: string;
  /** ISO with the caller's UTC offset, e.g. "2026-03-03T09:00:00+01:00", when a time was given. */
  due_at: string | null;
  /** "YYYY-MM-DD" for an all-day due date (no time given). */
  due_date: string | null;
  all_day: boolean;
  reminder_offset: ReminderOffset | null;
  priority: "low" | "medium" | "high" | null;
  notes: string | null;
  ambiguities: QuickTaskAmbiguity[];
}

interface Span {
  start: number;
  end: number;
}

const NOTE_SEPARATORS = [" -- ", " — ", ": notes ", "\n"];

const PRIORITY_PATTERNS: { re: RegExp; value: "low" | "medium" | "high" }[] = [
  { re: /\b(?:high|top)[ -]?prio(?:rity)?\b/i, value: "high" },
  { re: /\b(?:medium|med|normal)[ -]?prio(?:rity)?\b/i, value: "medium" },
  { re: /\blow[ -]?prio(?:rity)?\b/i, value: "low" },
  { re: /\bprio(?:rity)?\s*:?\s*high\b/i, value: "high" },
  { re: /\bprio(?:rity)?\s*:?\s*(?:medium|med|normal)\b/i, value: "medium" },
  { re: /\bprio(?:rity)?\s*:?\s*low\b/i, value: "low" },
  { re: /\burgent(?:ly)?\b/i, value: "high" },
  { re: /\basap\b/i, value: "high" },
  { re: /(?<=^|\s)!{2,3}(?=\s|$)/, value: "high" },
  { re: /(?<=^|\s)!(?=\s|$)/, value: "medium" },
  { re: /\bp1\b/i, value: "high" },
  { re: /\bp2\b/i, value: "medium" },
  { re: /\bp3\b/i, value: "low" },
  { re: /\bsomeday\b/i, value: "low" },
];

/** Supported "N before" offsets in minutes, ascending. */
const OFFSET_MINUTES: { offset: ReminderOffset; minutes: number }[] = [
  { offset: "at_time", minutes: 0 },
  { offset: "5_minutes_before", minutes: 5 },
  { offset: "10_minutes_before", minutes: 10 },
  { offset: "15_minutes_before", minutes: 15 },
  { offset: "30_minutes_before", minutes: 30 },
  { offset: "1_hour_before", minutes: 60 },
  { offset: "2_hours_before", minutes: 120 },
  { offset: "1_day_before", minutes: 1440 },
  { offset: "2_days_before", minutes: 2880 },
  { offset: "1_week_before", minutes: 10080 },
];

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  "forty-five": 45,
  half: 0.5,
};

const UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 1440, w: 10080 };

const REMINDER_RE =
  /\b(?:and\s+)?remind\s+me\s+(?:(at\s+the\s+time|on\s+time|when\s+(?:it'?s|it\s+is)\s+due)|(the\s+day\s+before)|(the\s+week\s+before)|(?:(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|forty-five|half)(?:\s+an?)?\s*(minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w)\s+(?:before|early|earlier|ahead|prior)))/i;

const WEEKDAY_RE =
  /\b(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\b/i;
const CONNECTOR_BEFORE_RE = /(?:(?:^|\s)(?:due(?:\s+(?:on|by|at))?|at|on|by)|,)\s*$/i;

/**
 * Reads one line of text: the notes after the first separator, then from the rest a reminder, a
 * priority and a due date (each blanked out once read, so the next step cannot read it again),
 * and whatever is left as the title.
 */
export function parseQuickTaskLocally(text: string, timeZone: string, referenceAt: Date): QuickTaskParse {
  const reference = referenceIn(timeZone, referenceAt);
  const ambiguities: QuickTaskAmbiguity[] = [];
  const { main, notes } = splitOffNotes(text);
  const line = unreadLine(main);
  const reminder_offset = readReminder(line, ambiguities);
  const priority = readPriority(line);
  const { due_at, due_date } = readDue(line, reference, ambiguities);
  return {
    title: titleOf(line),
    due_at,
    due_date,
    all_day: due_date !== null,
    reminder_offset,
    priority,
    notes,
    ambiguities,
  };
}

/** The instant a parse is relative to, on the caller's clock. */
interface Reference {
  instant: Date;
  timeZone: string;
  zoned: Temporal.ZonedDateTime;
  date: Temporal.PlainDate;
}

function referenceIn(timeZone: string, instant: Date): Reference {
  const zoned = Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone);
  return { instant, timeZone, zoned, date: zoned.toPlainDate() };
}

/** Notes: everything after the earliest separator. */
function splitOffNotes(text: string): { main: string; notes: string | null } {
  let cut = -1;
  let separatorLength = 0;
  for (const separator of NOTE_SEPARATORS) {
    const at = text.toLowerCase().indexOf(separator);
    if (at >= 0 && (cut < 0 || at < cut)) {
      cut = at;
      separatorLength = separator.length;
    }
  }
  if (cut < 0) return { main: text, notes: null };
  const rest = text.slice(cut + separatorLength).trim();
  return { main: text.slice(0, cut), notes: rest === "" ? null : rest };
}

/** The text before the notes, and what has been read of it. */
interface Line {
  text: string;
  /** `text` with every part read blanked with spaces, so indices stay aligned with `text`. */
  masked: string;
  /** The parts read, left out of the title. */
  spans: Span[];
}

const unreadLine = (text: string): Line => ({ text, masked: text, spans: [] });

function markRead(line: Line, start: number, end: number): void {
  line.spans.push({ start, end });
  line.masked = line.masked.slice(0, start) + " ".repeat(end - start) + line.masked.slice(end);
}

/** "remind me 10 minutes before": the supported offset, the nearest one not later when it is not exact. */
function readReminder(line: Line, ambiguities: QuickTaskAmbiguity[]): ReminderOffset | null {
  const match = REMINDER_RE.exec(line.masked);
  if (!match) return null;
  markRead(line, match.index, match.index + match[0].length);
  const minutes = reminderMinutes(match);
  if (minutes === null) return null;
  const exact = OFFSET_MINUTES.find((o) => o.minutes === minutes);
  if (exact) return exact.offset;
  // Nearest offset that does not remind later than asked (i.e. at least as early);
  // beyond a week, fall back to the largest supported offset.
  const notLater = OFFSET_MINUTES.find((o) => o.minutes >= minutes);
  const below = [...OFFSET_MINUTES].reverse().find((o) => o.minutes < minutes);
  const chosen = notLater ?? OFFSET_MINUTES[OFFSET_MINUTES.length - 1];
  ambiguities.push({
    field: "reminder_offset",
    text: match[0].trim(),
    alternatives: below && below.offset !== chosen?.offset ? [below.offset] : [],
  });
  return chosen ? chosen.offset : null;
}

/** How long before the due time a REMINDER_RE match asks for, in minutes. */
function reminderMinutes(match: RegExpExecArray): number | null {
  if (match[1]) return 0;
  if (match[2]) return 1440;
  if (match[3]) return 10080;
  if (!match[4] || !match[5]) return null;
  const word = match[4].toLowerCase();
  const amount = /^\d/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? 1);
  const unit = match[5].toLowerCase()[0] ?? "m";
  return amount * (UNIT_MINUTES[unit] ?? 1);
}

/** The first priority pattern that matches wins; every priority token is removed from the title. */
function readPriority(line: Line): QuickTaskParse["priority"] {
  let priority: QuickTaskParse["priority"] = null;
  for (const { re, value } of PRIORITY_PATTERNS) {
    const global = new RegExp(re.source, `${re.flags.replace("g", "")}g`);
    for (const m of line.masked.matchAll(global)) {
      if (priority === null) priority = value;
      markRead(line, m.index, m.index + m[0].length);
    }
  }
  return priority;
}

type Due = Pick<QuickTaskParse, "due_at" | "due_date">;

const NO_DUE: Due = { due_at: null, due_date: null };

/** The due date or time chrono reads; else a bare day of the month ("on the 31st"), which chrono does not. */
function readDue(line: Line, reference: Reference, ambiguities: QuickTaskAmbiguity[]): Due {
  const result = mostSpecificDate(line.masked, reference);
  return result ? readChronoDue(line, result, reference, ambiguities) : readDayOfMonth(line, reference, ambiguities);
}

/** Of chrono's readings, the most specific ("Night job tomorrow at 1:30am": chrono also reads "Night"). */
function mostSpecificDate(text: string, reference: Reference): chrono.ParsedResult | undefined {
  const offsetMinutes = reference.zoned.offsetNanoseconds / 60_000_000_000;
  const results = chrono.parse(text, { instant: reference.instant, timezone: offsetMinutes }, { forwardDate: true });
  const score = (r: chrono.ParsedResult) =>
    (["year", "month", "day", "weekday", "hour", "minute"] as const).filter((c) => r.start.isCertain(c)).length * 1000 +
    r.text.length;
  return results.reduce<chrono.ParsedResult | undefined>(
    (best, r) => (best === undefined || score(r) > score(best) ? r : best),
    undefined,
  );
}

const formatted = (zdt: Temporal.ZonedDateTime) => zdt.toString({ timeZoneName: "never", smallestUnit: "second" });

const atWallTime = (reference: Reference, date: Temporal.PlainDate, hour: number, minute: number, second = 0) =>
  date.toPlainDateTime({ hour, minute, second }).toZonedDateTime(reference.timeZone, { disambiguation: "compatible" });

/** The wall time on `date` is the reference instant or before it: already passed. */
const notAfterReference = (reference: Reference, date: Temporal.PlainDate, hour: number, minute: number, second = 0) =>
  Temporal.ZonedDateTime.compare(atWallTime(reference, date, hour, minute, second), reference.zoned) <= 0;

/** A due time when chrono read an hour, else an all-day due date. */
function readChronoDue(
  line: Line,
  result: chrono.ParsedResult,
  reference: Reference,
  ambiguities: QuickTaskAmbiguity[],
): Due {
  const s = result.start;
  const year = s.get("year");
  const month = s.get("month");
  const day = s.get("day");
  if (year === null || month === null || day === null) return NO_DUE;
  const date = bareWeekdayDate(result, Temporal.PlainDate.from({ year, month, day }), reference, ambiguities);
  const due = s.isCertain("hour")
    ? { due_at: dueTime(result, date, reference, ambiguities), due_date: null }
    : { due_at: null, due_date: dueDate(result, date, reference, ambiguities).toString() };
  markRead(line, result.index, result.index + result.text.length);
  return due;
}

/**
 * A bare weekday naming today: today (this week) or a week later. Picks today and records
 * next week's date as the alternative; when today's time has already passed, the other way round.
 */
function bareWeekdayDate(
  result: chrono.ParsedResult,
  date: Temporal.PlainDate,
  reference: Reference,
  ambiguities: QuickTaskAmbiguity[],
): Temporal.PlainDate {
  const s = result.start;
  const weekday = WEEKDAY_RE.exec(result.text);
  if (
    !weekday ||
    /\b(?:this|next|last|coming)\s*$/i.test(result.text.slice(0, weekday.index)) ||
    s.isCertain("day") ||
    !s.isCertain("weekday") ||
    s.get("weekday") !== reference.date.dayOfWeek % 7
  ) {
    return date;
  }
  let chosen = reference.date;
  let other = reference.date.add({ days: 7 });
  const hour = s.get("hour");
  if (
    s.isCertain("hour") &&
    hour !== null &&
    notAfterReference(reference, reference.date, hour, s.get("minute") ?? 0)
  ) {
    // Today's time has already passed: next week's is the likelier one.
    [chosen, other] = [other, reference.date];
  }
  ambiguities.push({ field: "due_date", text: weekday[0], alternatives: [other.toString()] });
  return chosen;
}

/** The due time, with the caller's UTC offset in force on that date. */
function dueTime(
  result: chrono.ParsedResult,
  date: Temporal.PlainDate,
  reference: Reference,
  ambiguities: QuickTaskAmbiguity[],
): string {
  const s = result.start;
  if (result.tags().has("result/relativeDateAndTime")) {
    // "in 3 hours": a real duration from the reference instant.
    return formatted(Temporal.Instant.fromEpochMilliseconds(s.date().getTime()).toZonedDateTimeISO(reference.timeZone));
  }
  let hour = s.get("hour") ?? 0;
  const minute = s.get("minute") ?? 0;
  const second = s.get("second") ?? 0;
  let day = date;
  if (withoutMeridiem(result, hour)) {
    // "at 5": pick the daytime (pm) one, in the future when no day was given.
    const amHour = hour;
    hour += 12;
    if (!s.isCertain("day") && !s.isCertain("weekday")) {
      day = reference.date;
      if (notAfterReference(reference, day, hour, minute, second)) day = day.add({ days: 1 });
    }
    ambiguities.push({
      field: "due_at",
      text: result.text.trim(),
      alternatives: [formatted(atWallTime(reference, day, amHour, minute, second))],
    });
  }
  return formatted(atWallTime(reference, day, hour, minute, second));
}

/** An hour from 1 to 7 with nothing saying morning or afternoon ("at 5"; not "05:00", not "5am"). */
const withoutMeridiem = (result: chrono.ParsedResult, hour: number): boolean =>
  !result.start.isCertain("meridiem") &&
  hour >= 1 &&
  hour <= 7 &&
  !/\b0\d[:.]/.test(result.text) &&
  !/\b(?:am|pm|a\.m\.|p\.m\.|morning|evening|afternoon|tonight)\b/i.test(result.text);

/** An all-day due date; "next week" alone is its Monday, its Friday the alternative. */
function dueDate(
  result: chrono.ParsedResult,
  date: Temporal.PlainDate,
  reference: Reference,
  ambiguities: QuickTaskAmbiguity[],
): Temporal.PlainDate {
  const text = result.text.trim();
  if (!/^next\s+week$/i.test(text)) return date;
  const monday = reference.date.add({ days: 8 - reference.date.dayOfWeek });
  ambiguities.push({ field: "due_date", text, alternatives: [monday.add({ days: 4 }).toString()] });
  return monday;
}

/** "on the 31st": the next occurrence of that day of the month, clamped in a shorter month. */
function readDayOfMonth(line: Line, reference: Reference, ambiguities: QuickTaskAmbiguity[]): Due {
  const match = /\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b/i.exec(line.masked);
  const day = match ? Number(match[1]) : 0;
  if (!match || day < 1 || day > 31) return NO_DUE;
  markRead(line, match.index, match.index + match[0].length);
  let month = reference.date.toPlainYearMonth();
  if (day < reference.date.day) month = month.add({ months: 1 });
  if (day <= month.daysInMonth) return { due_at: null, due_date: month.toPlainDate({ day }).toString() };
  let next = month.add({ months: 1 });
  while (next.daysInMonth < day) next = next.add({ months: 1 });
  ambiguities.push({ field: "due_date", text: match[0].trim(), alternatives: [next.toPlainDate({ day }).toString()] });
  return { due_at: null, due_date: month.toPlainDate({ day: month.daysInMonth }).toString() };
}

/** The title: the text without the parts read and the connector words before them. */
function titleOf(line: Line): string {
  const spans = [...line.spans].sort((a, b) => a.start - b.start);
  let title = "";
  let pos = 0;
  for (const span of spans) {
    if (span.start < pos) {
      pos = Math.max(pos, span.end);
      continue;
    }
    title += line.text.slice(pos, span.start).replace(CONNECTOR_BEFORE_RE, "");
    title += " ";
    pos = span.end;
  }
  title += line.text.slice(pos);
  return cleanTitle(title);
}

function cleanTitle(raw: string): string {
  let t = raw.replace(/\s+/g, " ").replace(/\s+([,;.])/g, "$1");
  let prev = "";
  while (prev !== t) {
    prev = t;
    t = t
      .trim()
      .replace(/^[,;:\s]+|[,;:\s]+$/g, "")
      .replace(/,(\s*,)+/g, ",")
      .replace(/(?:^|\s)(?:due(?:\s+(?:on|by|at))?|at|on|by|and)$/i, "")
      .replace(/^(?:due|at|on|by)(?:\s|$)/i, "");
  }
  return t;
}
