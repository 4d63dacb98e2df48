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

export function parseQuickTaskLocally(text: string, timeZone: string, referenceAt: Date): QuickTaskParse {
  const ambiguities: QuickTaskAmbiguity[] = [];
  const refZdt = Temporal.Instant.fromEpochMilliseconds(referenceAt.getTime()).toZonedDateTimeISO(timeZone);
  const refDate = refZdt.toPlainDate();

  // 1. Notes: everything after the first separator.
  let main = text;
  let notes: string | null = null;
  let cut = -1;
  let sepLength = 0;
  for (const sep of NOTE_SEPARATORS) {
    const at = text.toLowerCase().indexOf(sep);
    if (at >= 0 && (cut < 0 || at < cut)) {
      cut = at;
      sepLength = sep.length;
    }
  }
  if (cut >= 0) {
    main = text.slice(0, cut);
    const rest = text.slice(cut + sepLength).trim();
    notes = rest === "" ? null : rest;
  }

  const spans: Span[] = [];
  // Masked copy of `main` (removed parts blanked with spaces) so indices stay aligned.
  let masked = main;
  const mask = (start: number, end: number) => {
    spans.push({ start, end });
    masked = masked.slice(0, start) + " ".repeat(end - start) + masked.slice(end);
  };

  // 2. Reminder.
  let reminder_offset: ReminderOffset | null = null;
  const rm = REMINDER_RE.exec(masked);
  if (rm) {
    let minutes: number | null = null;
    if (rm[1]) minutes = 0;
    else if (rm[2]) minutes = 1440;
    else if (rm[3]) minutes = 10080;
    else if (rm[4] && rm[5]) {
      const word = rm[4].toLowerCase();
      const amount = /^\d/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? 1);
      const unit = rm[5].toLowerCase()[0] ?? "m";
      minutes = amount * (UNIT_MINUTES[unit] ?? 1);
    }
    if (minutes !== null) {
      const exact = OFFSET_MINUTES.find((o) => o.minutes === minutes);
      if (exact) {
        reminder_offset = exact.offset;
      } else {
        // Nearest offset that does not remind later than asked (i.e. at least as early);
        // beyond a week, fall back to the largest supported offset.
        const notLater = OFFSET_MINUTES.find((o) => o.minutes >= minutes);
        const below = [...OFFSET_MINUTES].reverse().find((o) => o.minutes < minutes);
        const chosen = notLater ?? OFFSET_MINUTES[OFFSET_MINUTES.length - 1];
        if (chosen) reminder_offset = chosen.offset;
        ambiguities.push({
          field: "reminder_offset",
          text: rm[0].trim(),
          alternatives: below && below.offset !== chosen?.offset ? [below.offset] : [],
        });
      }
    }
    mask(rm.index, rm.index + rm[0].length);
  }

  // 3. Priority (first match wins; every priority token is removed from the title).
  let priority: QuickTaskParse["priority"] = null;
  for (const { re, value } of PRIORITY_PATTERNS) {
    const global = new RegExp(re.source, `${re.flags.replace("g", "")}g`);
    for (const m of masked.matchAll(global)) {
      if (priority === null) priority = value;
      mask(m.index, m.index + m[0].length);
    }
  }

  // 4. Date / time.
  let due_at: string | null = null;
  let due_date: string | null = null;
  const offsetMinutes = refZdt.offsetNanoseconds / 60_000_000_000;
  const results = chrono.parse(masked, { instant: referenceAt, timezone: offsetMinutes }, { forwardDate: true });
  // Prefer the most specific result ("Night job tomorrow at 1:30am": chrono also reads "Night").
  const score = (r: chrono.ParsedResult) =>
    (["year", "month", "day", "weekday", "hour", "minute"] as const).filter((c) => r.start.isCertain(c)).length * 1000 +
    r.text.length;
  const result = results.reduce<chrono.ParsedResult | undefined>(
    (best, r) => (best === undefined || score(r) > score(best) ? r : best),
    undefined,
  );
  const fmt = (zdt: Temporal.ZonedDateTime) => zdt.toString({ timeZoneName: "never", smallestUnit: "second" });
  const atWallTime = (date: Temporal.PlainDate, hour: number, minute: number, second = 0) =>
    date.toPlainDateTime({ hour, minute, second }).toZonedDateTime(timeZone, { disambiguation: "compatible" });

  if (result) {
    const s = result.start;
    const y = s.get("year");
    const mo = s.get("month");
    const d = s.get("day");
    const rText = result.text;
    if (y !== null && mo !== null && d !== null) {
      let date = Temporal.PlainDate.from({ year: y, month: mo, day: d });
      const dayGiven = s.isCertain("day") || s.isCertain("weekday");
      const tags = result.tags();

      // Bare weekday naming today: today (this week) or a week later. Picks today and records
      // next week's date as the alternative.
      const wd = WEEKDAY_RE.exec(rText);
      if (
        wd &&
        !/\b(?:this|next|last|coming)\s*$/i.test(rText.slice(0, wd.index)) &&
        !s.isCertain("day") &&
        s.isCertain("weekday") &&
        s.get("weekday") === refDate.dayOfWeek % 7
      ) {
        date = refDate;
        let other = refDate.add({ days: 7 });
        const h = s.get("hour");
        if (
          s.isCertain("hour") &&
          h !== null &&
          Temporal.ZonedDateTime.compare(atWallTime(refDate, h, s.get("minute") ?? 0), refZdt) <= 0
        ) {
          // Today's time has already passed: next week's is the likelier one.
          [date, other] = [other, refDate];
        }
        ambiguities.push({
          field: "due_date",
          text: wd[0],
          alternatives: [other.toString()],
        });
      }

      if (s.isCertain("hour")) {
        let hour = s.get("hour") ?? 0;
        const minute = s.get("minute") ?? 0;
        const second = s.get("second") ?? 0;
        if (tags.has("result/relativeDateAndTime")) {
          // "in 3 hours": a real duration from the reference instant.
          const zdt = Temporal.Instant.fromEpochMilliseconds(s.date().getTime()).toZonedDateTimeISO(timeZone);
          due_at = fmt(zdt);
        } else {
          const noMeridiem =
            !s.isCertain("meridiem") &&
            hour >= 1 &&
            hour <= 7 &&
            !/\b0\d[:.]/.test(rText) &&
            !/\b(?:am|pm|a\.m\.|p\.m\.|morning|evening|afternoon|tonight)\b/i.test(rText);
          if (noMeridiem) {
            // "at 5": pick the daytime (pm) one, in the future when no day was given.
            const amHour = hour;
            hour += 12;
            if (!dayGiven) {
              date = refDate;
              if (Temporal.ZonedDateTime.compare(atWallTime(date, hour, minute, second), refZdt) <= 0)
                date = date.add({ days: 1 });
            }
            ambiguities.push({
              field: "due_at",
              text: rText.trim(),
              alternatives: [fmt(atWallTime(date, amHour, minute, second))],
            });
          }
          due_at = fmt(atWallTime(date, hour, minute, second));
        }
      } else {
        if (/^next\s+week$/i.test(rText.trim())) {
          // No day given: start of next week (Monday), alternative its Friday.
          const monday = refDate.add({ days: 8 - refDate.dayOfWeek });
          date = monday;
          ambiguities.push({
            field: "due_date",
            text: rText.trim(),
            alternatives: [monday.add({ days: 4 }).toString()],
          });
        }
        due_date = date.toString();
      }
      mask(result.index, result.index + rText.length);
    }
  } else {
    // "on the 31st": next occurrence of that day of month; clamp in shorter months.
    const dm = /\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b/i.exec(masked);
    const day = dm ? Number(dm[1]) : 0;
    if (dm && day >= 1 && day <= 31) {
      let month = refDate.toPlainYearMonth();
      if (day < refDate.day) month = month.add({ months: 1 });
      if (day <= month.daysInMonth) {
        due_date = month.toPlainDate({ day }).toString();
      } else {
        due_date = month.toPlainDate({ day: month.daysInMonth }).toString();
        let next = month.add({ months: 1 });
        while (next.daysInMonth < day) next = next.add({ months: 1 });
        ambiguities.push({
          field: "due_date",
          text: dm[0].trim(),
          alternatives: [next.toPlainDate({ day }).toString()],
        });
      }
      mask(dm.index, dm.index + dm[0].length);
    }
  }

  // 5. Title: the text without the removed spans and their leading connector words.
  spans.sort((a, b) => a.start - b.start);
  let title = "";
  let pos = 0;
  for (const span of spans) {
    if (span.start < pos) {
      pos = Math.max(pos, span.end);
      continue;
    }
    title += main.slice(pos, span.start).replace(CONNECTOR_BEFORE_RE, "");
    title += " ";
    pos = span.end;
  }
  title += main.slice(pos);
  title = cleanTitle(title);

  return {
    title,
    due_at,
    due_date,
    all_day: due_date !== null,
    reminder_offset,
    priority,
    notes,
    ambiguities,
  };
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
