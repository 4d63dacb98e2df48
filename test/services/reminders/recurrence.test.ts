import { RRuleTemporal } from "rrule-temporal";
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { isRecurring, MAX_END_COUNT, type RecurrenceRule, ruleProblem } from "../../../src/domain/recurrence-rule";
import { isTimeZone } from "../../../src/domain/time-zones";
import { occurrenceAfter } from "../../../src/services/reminders/recurrence";

const ms = (iso: string) => Temporal.Instant.from(iso).epochMilliseconds;

/** An instant as local ISO with offset in `timeZone` ("2025-03-10T09:00:00-04:00"): readable, and still exact. */
const local = (instant: number | null, timeZone: string) =>
  instant === null
    ? null
    : Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(timeZone).toString({ timeZoneName: "never" });

/** The next occurrence after `after`, as local ISO in `timeZone`. */
const nextAfter = (rule: RecurrenceRule | null, timeZone: string, start: string, after: string, inclusive = false) =>
  local(occurrenceAfter(rule, timeZone, ms(start), ms(after), { inclusive }), timeZone);

/** The first `n` occurrences of a series (fewer when it ends), as local ISO in `timeZone`. */
function series(rule: RecurrenceRule | null, timeZone: string, start: string, n: number): string[] {
  const out: string[] = [];
  let cursor = ms(start);
  let next = occurrenceAfter(rule, timeZone, ms(start), cursor, { inclusive: true });
  while (next !== null && out.length < n) {
    expect(next).toBeGreaterThanOrEqual(cursor);
    out.push(local(next, timeZone) ?? "");
    cursor = next;
    next = occurrenceAfter(rule, timeZone, ms(start), cursor);
  }
  return out;
}

describe("isRecurring", () => {
  it("is false for no rule and for the presets that do not repeat", () => {
    expect(isRecurring(null)).toBe(false);
    expect(isRecurring(undefined)).toBe(false);
    expect(isRecurring({ preset: "none" })).toBe(false);
    expect(isRecurring({ preset: "inherit" })).toBe(false);
  });

  it("is true for every repeating preset", () => {
    for (const preset of ["daily", "weekdays", "weekly", "twice_monthly", "yearly", "custom"] as const) {
      expect(isRecurring({ preset })).toBe(true);
    }
  });
});

describe("isTimeZone", () => {
  it("accepts IANA names the runtime knows", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("America/New_York")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
  });

  it("refuses anything else without throwing", () => {
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(isTimeZone("+01:00")).toBe(false);
    expect(isTimeZone("Europe/Paris[u-ca=iso8601]")).toBe(false);
    expect(isTimeZone(42 as unknown as string)).toBe(false);
  });
});

describe("ruleProblem", () => {
  const problemField = (rule: RecurrenceRule) => ruleProblem(rule)?.field ?? null;

  it("accepts usable rules", () => {
    expect(ruleProblem({ preset: "none" })).toBeNull();
    expect(ruleProblem({ preset: "daily" })).toBeNull();
    expect(ruleProblem({ preset: "weekly_on_days", days_of_week: [1, 3] })).toBeNull();
    expect(ruleProblem({ preset: "twice_monthly" })).toBeNull();
    expect(ruleProblem({ preset: "twice_monthly", days_of_month: [15, 31] })).toBeNull();
    expect(ruleProblem({ preset: "custom", unit: "week", interval: 3, days_of_week: [1, 3] })).toBeNull();
    expect(ruleProblem({ preset: "custom", unit: "month" })).toBeNull();
    expect(ruleProblem({ preset: "daily", end_type: "on_date", end_date: "2025-03-01" })).toBeNull();
    expect(ruleProblem({ preset: "daily", end_type: "on_date", end_date: "2025-03-01T10:00:00+01:00" })).toBeNull();
    expect(ruleProblem({ preset: "daily", end_type: "on_date", end_date: "2025-03-01T09:00:00Z" })).toBeNull();
    expect(ruleProblem({ preset: "daily", end_type: "after_count", end_count: 1 })).toBeNull();
    expect(ruleProblem({ preset: "daily", anchor_at: "2025-03-01T09:00:00Z" })).toBeNull();
  });

  it("ignores fields the preset does not use", () => {
    expect(ruleProblem({ preset: "daily", days_of_week: [9], days_of_month: [0], interval: 0 })).toBeNull();
    expect(ruleProblem({ preset: "none", end_type: "on_date" })).toBeNull();
    expect(ruleProblem({ preset: "daily", end_type: "never", end_count: 0 })).toBeNull();
  });

  it("names the field of each combination zod cannot check", () => {
    expect(problemField({ preset: "weekly_on_days" })).toBe("days_of_week");
    expect(problemField({ preset: "weekly_on_days", days_of_week: [] })).toBe("days_of_week");
    expect(problemField({ preset: "weekly_on_days", days_of_week: [7] })).toBe("days_of_week");
    expect(problemField({ preset: "weekly_on_days", days_of_week: [1.5] })).toBe("days_of_week");
    expect(problemField({ preset: "custom", unit: "week", days_of_week: [] })).toBe("days_of_week");
    expect(problemField({ preset: "custom" })).toBe("unit");
    expect(problemField({ preset: "custom", unit: "fortnight" as "week" })).toBe("unit");
    expect(problemField({ preset: "custom", unit: "day", interval: 0 })).toBe("interval");
    expect(problemField({ preset: "custom", unit: "day", interval: 2.5 })).toBe("interval");
    expect(problemField({ preset: "twice_monthly", days_of_month: [15] })).toBe("days_of_month");
    expect(problemField({ preset: "twice_monthly", days_of_month: [15, 15] })).toBe("days_of_month");
    expect(problemField({ preset: "twice_monthly", days_of_month: [1, 15, 31] })).toBe("days_of_month");
    expect(problemField({ preset: "twice_monthly", days_of_month: [0, 15] })).toBe("days_of_month");
    expect(problemField({ preset: "daily", end_type: "on_date" })).toBe("end_date");
    expect(problemField({ preset: "daily", end_type: "on_date", end_date: "2025-02-30" })).toBe("end_date");
    expect(problemField({ preset: "daily", end_type: "on_date", end_date: "2025-03-01T10:00" })).toBe("end_date");
    expect(problemField({ preset: "daily", end_type: "on_date", end_date: "soon" })).toBe("end_date");
    expect(problemField({ preset: "daily", end_type: "after_count" })).toBe("end_count");
    expect(problemField({ preset: "daily", end_type: "after_count", end_count: 0 })).toBe("end_count");
    expect(problemField({ preset: "daily", end_type: "after_count", end_count: MAX_END_COUNT + 1 })).toBe("end_count");
    expect(problemField({ preset: "daily", end_type: "sometime" as "never" })).toBe("end_type");
    expect(problemField({ preset: "hourly" as "daily" })).toBe("preset");
    expect(problemField({ preset: "daily", anchor_at: "yesterday" })).toBe("anchor_at");
  });

  it("gives a message with the field", () => {
    expect(ruleProblem({ preset: "custom" })).toEqual({ field: "unit", message: "required for custom" });
  });
});

describe("occurrenceAfter: presets", () => {
  // 2025-01-01 is a Wednesday.
  it("daily", () => {
    expect(series({ preset: "daily" }, "UTC", "2025-01-30T08:00:00Z", 3)).toEqual([
      "2025-01-30T08:00:00+00:00",
      "2025-01-31T08:00:00+00:00",
      "2025-02-01T08:00:00+00:00",
    ]);
  });

  it("weekdays: Monday to Friday; a Saturday start first fires on Monday", () => {
    expect(series({ preset: "weekdays" }, "Europe/Paris", "2025-01-04T09:00:00+01:00", 6)).toEqual([
      "2025-01-06T09:00:00+01:00",
      "2025-01-07T09:00:00+01:00",
      "2025-01-08T09:00:00+01:00",
      "2025-01-09T09:00:00+01:00",
      "2025-01-10T09:00:00+01:00",
      "2025-01-13T09:00:00+01:00",
    ]);
  });

  it("weekends: Saturday and Sunday", () => {
    expect(series({ preset: "weekends" }, "Europe/Paris", "2025-01-01T10:00:00+01:00", 4)).toEqual([
      "2025-01-04T10:00:00+01:00",
      "2025-01-05T10:00:00+01:00",
      "2025-01-11T10:00:00+01:00",
      "2025-01-12T10:00:00+01:00",
    ]);
  });

  it("weekly: the start's weekday", () => {
    expect(series({ preset: "weekly" }, "UTC", "2025-01-01T07:15:00Z", 3)).toEqual([
      "2025-01-01T07:15:00+00:00",
      "2025-01-08T07:15:00+00:00",
      "2025-01-15T07:15:00+00:00",
    ]);
  });

  it("weekly_on_days: the listed days (0 = Sunday)", () => {
    const rule: RecurrenceRule = { preset: "weekly_on_days", days_of_week: [5, 1] };
    expect(series(rule, "UTC", "2025-01-01T07:00:00Z", 4)).toEqual([
      "2025-01-03T07:00:00+00:00",
      "2025-01-06T07:00:00+00:00",
      "2025-01-10T07:00:00+00:00",
      "2025-01-13T07:00:00+00:00",
    ]);
    expect(series({ preset: "weekly_on_days", days_of_week: [0] }, "UTC", "2025-01-01T07:00:00Z", 2)).toEqual([
      "2025-01-05T07:00:00+00:00",
      "2025-01-12T07:00:00+00:00",
    ]);
  });

  it("biweekly: every two weeks on the start's weekday", () => {
    expect(series({ preset: "biweekly" }, "UTC", "2025-01-01T07:00:00Z", 4)).toEqual([
      "2025-01-01T07:00:00+00:00",
      "2025-01-15T07:00:00+00:00",
      "2025-01-29T07:00:00+00:00",
      "2025-02-12T07:00:00+00:00",
    ]);
  });

  it("monthly from Jan 31 through a leap-year February and April, never drifting (and across DST)", () => {
    expect(series({ preset: "monthly" }, "America/New_York", "2024-01-31T09:00:00-05:00", 6)).toEqual([
      "2024-01-31T09:00:00-05:00",
      "2024-02-29T09:00:00-05:00",
      "2024-03-31T09:00:00-04:00",
      "2024-04-30T09:00:00-04:00",
      "2024-05-31T09:00:00-04:00",
      "2024-06-30T09:00:00-04:00",
    ]);
    expect(series({ preset: "monthly" }, "UTC", "2025-01-31T09:00:00Z", 3)).toEqual([
      "2025-01-31T09:00:00+00:00",
      "2025-02-28T09:00:00+00:00",
      "2025-03-31T09:00:00+00:00",
    ]);
  });

  it("monthly on a day every month has", () => {
    expect(series({ preset: "monthly" }, "UTC", "2025-01-15T09:00:00Z", 3)).toEqual([
      "2025-01-15T09:00:00+00:00",
      "2025-02-15T09:00:00+00:00",
      "2025-03-15T09:00:00+00:00",
    ]);
  });

  it("twice_monthly on [15, 31], clamping the 31st (the start does not match)", () => {
    const rule: RecurrenceRule = { preset: "twice_monthly", days_of_month: [31, 15] };
    expect(series(rule, "UTC", "2025-01-10T09:00:00Z", 8)).toEqual([
      "2025-01-15T09:00:00+00:00",
      "2025-01-31T09:00:00+00:00",
      "2025-02-15T09:00:00+00:00",
      "2025-02-28T09:00:00+00:00",
      "2025-03-15T09:00:00+00:00",
      "2025-03-31T09:00:00+00:00",
      "2025-04-15T09:00:00+00:00",
      "2025-04-30T09:00:00+00:00",
    ]);
    expect(nextAfter(rule, "UTC", "2024-01-10T09:00:00Z", "2024-02-15T09:00:00Z")).toBe("2024-02-29T09:00:00+00:00");
  });

  it("twice_monthly without days: the start's day and 15 days later, or 15 days earlier", () => {
    expect(series({ preset: "twice_monthly" }, "UTC", "2025-01-10T09:00:00Z", 3)).toEqual([
      "2025-01-10T09:00:00+00:00",
      "2025-01-25T09:00:00+00:00",
      "2025-02-10T09:00:00+00:00",
    ]);
    expect(series({ preset: "twice_monthly" }, "UTC", "2025-01-31T09:00:00Z", 5)).toEqual([
      "2025-01-31T09:00:00+00:00",
      "2025-02-16T09:00:00+00:00",
      "2025-02-28T09:00:00+00:00",
      "2025-03-16T09:00:00+00:00",
      "2025-03-31T09:00:00+00:00",
    ]);
  });

  it("twice_monthly fires once in a month where both days clamp to the same day", () => {
    const rule: RecurrenceRule = { preset: "twice_monthly", days_of_month: [30, 31] };
    expect(series(rule, "UTC", "2025-01-30T09:00:00Z", 5)).toEqual([
      "2025-01-30T09:00:00+00:00",
      "2025-01-31T09:00:00+00:00",
      "2025-02-28T09:00:00+00:00",
      "2025-03-30T09:00:00+00:00",
      "2025-03-31T09:00:00+00:00",
    ]);
  });

  it("quarterly from Nov 30: every three months, clamped in February", () => {
    expect(series({ preset: "quarterly" }, "UTC", "2024-11-30T09:00:00Z", 6)).toEqual([
      "2024-11-30T09:00:00+00:00",
      "2025-02-28T09:00:00+00:00",
      "2025-05-30T09:00:00+00:00",
      "2025-08-30T09:00:00+00:00",
      "2025-11-30T09:00:00+00:00",
      "2026-02-28T09:00:00+00:00",
    ]);
    expect(nextAfter({ preset: "quarterly" }, "UTC", "2024-11-30T09:00:00Z", "2027-12-01T00:00:00Z")).toBe(
      "2028-02-29T09:00:00+00:00",
    );
  });

  it("yearly from Feb 29: Feb 28 in common years, Feb 29 again in leap years", () => {
    expect(series({ preset: "yearly" }, "Europe/Berlin", "2024-02-29T08:30:00+01:00", 5)).toEqual([
      "2024-02-29T08:30:00+01:00",
      "2025-02-28T08:30:00+01:00",
      "2026-02-28T08:30:00+01:00",
      "2027-02-28T08:30:00+01:00",
      "2028-02-29T08:30:00+01:00",
    ]);
    expect(series({ preset: "yearly" }, "UTC", "2025-07-04T12:00:00Z", 2)).toEqual([
      "2025-07-04T12:00:00+00:00",
      "2026-07-04T12:00:00+00:00",
    ]);
  });

  it("custom every 3 weeks on Monday and Wednesday", () => {
    const rule: RecurrenceRule = { preset: "custom", unit: "week", interval: 3, days_of_week: [1, 3] };
    expect(series(rule, "UTC", "2025-01-01T07:00:00Z", 6)).toEqual([
      "2025-01-01T07:00:00+00:00",
      "2025-01-20T07:00:00+00:00",
      "2025-01-22T07:00:00+00:00",
      "2025-02-10T07:00:00+00:00",
      "2025-02-12T07:00:00+00:00",
      "2025-03-03T07:00:00+00:00",
    ]);
  });

  it("custom weeks run Monday to Sunday (a Sunday belongs to the week before it)", () => {
    const rule: RecurrenceRule = { preset: "custom", unit: "week", interval: 2, days_of_week: [0, 1] };
    expect(series(rule, "UTC", "2025-01-06T07:00:00Z", 4)).toEqual([
      "2025-01-06T07:00:00+00:00",
      "2025-01-12T07:00:00+00:00",
      "2025-01-20T07:00:00+00:00",
      "2025-01-26T07:00:00+00:00",
    ]);
  });

  it("custom weeks without days use the start's weekday", () => {
    expect(series({ preset: "custom", unit: "week", interval: 2 }, "UTC", "2025-01-01T07:00:00Z", 3)).toEqual([
      "2025-01-01T07:00:00+00:00",
      "2025-01-15T07:00:00+00:00",
      "2025-01-29T07:00:00+00:00",
    ]);
  });

  it("custom every 2 months from Jan 31 clamps to short months without drifting", () => {
    const rule: RecurrenceRule = { preset: "custom", unit: "month", interval: 2 };
    expect(series(rule, "UTC", "2025-01-31T09:00:00Z", 7)).toEqual([
      "2025-01-31T09:00:00+00:00",
      "2025-03-31T09:00:00+00:00",
      "2025-05-31T09:00:00+00:00",
      "2025-07-31T09:00:00+00:00",
      "2025-09-30T09:00:00+00:00",
      "2025-11-30T09:00:00+00:00",
      "2026-01-31T09:00:00+00:00",
    ]);
  });

  it("custom days and years, interval defaulting to 1", () => {
    expect(series({ preset: "custom", unit: "day", interval: 10 }, "UTC", "2025-01-01T07:00:00Z", 3)).toEqual([
      "2025-01-01T07:00:00+00:00",
      "2025-01-11T07:00:00+00:00",
      "2025-01-21T07:00:00+00:00",
    ]);
    expect(series({ preset: "custom", unit: "day" }, "UTC", "2025-01-01T07:00:00Z", 2)).toEqual([
      "2025-01-01T07:00:00+00:00",
      "2025-01-02T07:00:00+00:00",
    ]);
    expect(series({ preset: "custom", unit: "year", interval: 2 }, "UTC", "2024-02-29T07:00:00Z", 3)).toEqual([
      "2024-02-29T07:00:00+00:00",
      "2026-02-28T07:00:00+00:00",
      "2028-02-29T07:00:00+00:00",
    ]);
  });
});

describe("occurrenceAfter: time zones and DST", () => {
  it("keeps 09:00 local across both DST changes in America/New_York", () => {
    expect(series({ preset: "daily" }, "America/New_York", "2025-03-08T09:00:00-05:00", 3)).toEqual([
      "2025-03-08T09:00:00-05:00",
      "2025-03-09T09:00:00-04:00",
      "2025-03-10T09:00:00-04:00",
    ]);
    expect(series({ preset: "daily" }, "America/New_York", "2025-11-01T09:00:00-04:00", 3)).toEqual([
      "2025-11-01T09:00:00-04:00",
      "2025-11-02T09:00:00-05:00",
      "2025-11-03T09:00:00-05:00",
    ]);
  });

  it("keeps 09:00 local across both DST changes in Europe/Berlin", () => {
    expect(series({ preset: "weekly" }, "Europe/Berlin", "2025-03-23T09:00:00+01:00", 2)).toEqual([
      "2025-03-23T09:00:00+01:00",
      "2025-03-30T09:00:00+02:00",
    ]);
    expect(series({ preset: "daily" }, "Europe/Berlin", "2025-10-25T09:00:00+02:00", 3)).toEqual([
      "2025-10-25T09:00:00+02:00",
      "2025-10-26T09:00:00+01:00",
      "2025-10-27T09:00:00+01:00",
    ]);
  });

  it("moves a time in the spring-forward gap forward by the gap (02:30 -> 03:30), the next day back to 02:30", () => {
    expect(series({ preset: "daily" }, "America/New_York", "2025-03-08T02:30:00-05:00", 3)).toEqual([
      "2025-03-08T02:30:00-05:00",
      "2025-03-09T03:30:00-04:00",
      "2025-03-10T02:30:00-04:00",
    ]);
    expect(series({ preset: "daily" }, "Europe/Berlin", "2025-03-29T02:30:00+01:00", 3)).toEqual([
      "2025-03-29T02:30:00+01:00",
      "2025-03-30T03:30:00+02:00",
      "2025-03-31T02:30:00+02:00",
    ]);
  });

  it("takes the earlier instant of a time that happens twice, once per date", () => {
    expect(series({ preset: "daily" }, "America/New_York", "2025-11-01T01:30:00-04:00", 3)).toEqual([
      "2025-11-01T01:30:00-04:00",
      "2025-11-02T01:30:00-04:00",
      "2025-11-03T01:30:00-05:00",
    ]);
    expect(series({ preset: "daily" }, "Europe/Berlin", "2025-10-25T02:30:00+02:00", 3)).toEqual([
      "2025-10-25T02:30:00+02:00",
      "2025-10-26T02:30:00+02:00",
      "2025-10-27T02:30:00+01:00",
    ]);
    // The later 01:30 is not a second occurrence of that date.
    expect(
      nextAfter({ preset: "daily" }, "America/New_York", "2025-11-01T01:30:00-04:00", "2025-11-02T01:30:00-04:00"),
    ).toBe("2025-11-03T01:30:00-05:00");
  });

  it("a series starting at the later of two equal local times starts exactly there", () => {
    expect(series({ preset: "daily" }, "America/New_York", "2025-11-02T01:30:00-05:00", 2)).toEqual([
      "2025-11-02T01:30:00-05:00",
      "2025-11-03T01:30:00-05:00",
    ]);
  });

  it("uses the local date in the zone, not the UTC date", () => {
    // 23:30 in Los Angeles is the next day in UTC; Monday-to-Friday is judged on the local date.
    expect(series({ preset: "weekdays" }, "America/Los_Angeles", "2025-01-03T23:30:00-08:00", 2)).toEqual([
      "2025-01-03T23:30:00-08:00",
      "2025-01-06T23:30:00-08:00",
    ]);
    expect(series({ preset: "weekly" }, "Pacific/Auckland", "2025-01-05T06:00:00+13:00", 2)).toEqual([
      "2025-01-05T06:00:00+13:00",
      "2025-01-12T06:00:00+13:00",
    ]);
  });

  it("refuses an unknown time zone and an unusable rule", () => {
    expect(() => occurrenceAfter({ preset: "daily" }, "Mars/Olympus", 0, 0)).toThrow(RangeError);
    expect(() => occurrenceAfter({ preset: "custom" }, "UTC", 0, 0)).toThrow(RangeError);
    expect(() => occurrenceAfter({ preset: "daily" }, "UTC", Number.NaN, 0)).toThrow(RangeError);
  });
});

describe("occurrenceAfter: end rules", () => {
  const start = "2025-01-01T09:00:00-05:00";
  const tz = "America/New_York";

  it("never: keeps going", () => {
    expect(nextAfter({ preset: "daily", end_type: "never" }, tz, start, "2040-06-01T12:00:00-04:00")).toBe(
      "2040-06-02T09:00:00-04:00",
    );
  });

  it("on_date with a date: includes that local date, then ends", () => {
    const rule: RecurrenceRule = { preset: "daily", end_type: "on_date", end_date: "2025-01-03" };
    expect(series(rule, tz, start, 10)).toEqual([
      "2025-01-01T09:00:00-05:00",
      "2025-01-02T09:00:00-05:00",
      "2025-01-03T09:00:00-05:00",
    ]);
    expect(nextAfter(rule, tz, start, "2025-01-03T09:00:00-05:00")).toBeNull();
    expect(nextAfter(rule, tz, start, "2025-01-03T09:00:00-05:00", true)).toBe("2025-01-03T09:00:00-05:00");
  });

  it("on_date with a date compares the local date, not the UTC date", () => {
    const rule: RecurrenceRule = { preset: "daily", end_type: "on_date", end_date: "2025-01-03" };
    // 23:30 in Los Angeles on Jan 3 is Jan 4 in UTC: still included.
    expect(series(rule, "America/Los_Angeles", "2025-01-02T23:30:00-08:00", 10)).toEqual([
      "2025-01-02T23:30:00-08:00",
      "2025-01-03T23:30:00-08:00",
    ]);
  });

  it("on_date with a date-time: inclusive instant", () => {
    const atNine: RecurrenceRule = { preset: "daily", end_type: "on_date", end_date: "2025-01-03T14:00:00Z" };
    expect(series(atNine, tz, start, 10)).toHaveLength(3);
    expect(nextAfter(atNine, tz, start, "2025-01-02T09:00:00-05:00")).toBe("2025-01-03T09:00:00-05:00");
    const justBefore: RecurrenceRule = {
      preset: "daily",
      end_type: "on_date",
      end_date: "2025-01-03T08:59:59-05:00",
    };
    expect(series(justBefore, tz, start, 10)).toEqual(["2025-01-01T09:00:00-05:00", "2025-01-02T09:00:00-05:00"]);
    expect(nextAfter(justBefore, tz, start, "2025-01-02T09:00:00-05:00")).toBeNull();
  });

  it("on_date before the start: no occurrence at all", () => {
    const rule: RecurrenceRule = { preset: "daily", end_type: "on_date", end_date: "2024-12-31" };
    expect(nextAfter(rule, tz, start, "2024-01-01T00:00:00Z")).toBeNull();
  });

  it("after_count: the total number of occurrences, the first included", () => {
    const rule: RecurrenceRule = { preset: "daily", end_type: "after_count", end_count: 3 };
    expect(series(rule, tz, start, 10)).toEqual([
      "2025-01-01T09:00:00-05:00",
      "2025-01-02T09:00:00-05:00",
      "2025-01-03T09:00:00-05:00",
    ]);
    expect(nextAfter(rule, tz, start, "2030-01-01T00:00:00Z")).toBeNull();
    expect(nextAfter(rule, tz, start, "2020-01-01T00:00:00Z")).toBe("2025-01-01T09:00:00-05:00");
    expect(series({ ...rule, end_count: 1 }, tz, start, 10)).toEqual(["2025-01-01T09:00:00-05:00"]);
  });

  it("after_count counts from the first occurrence that matches, not from a start that does not", () => {
    const weekdays: RecurrenceRule = { preset: "weekdays", end_type: "after_count", end_count: 3 };
    expect(series(weekdays, "UTC", "2025-01-04T09:00:00Z", 10)).toEqual([
      "2025-01-06T09:00:00+00:00",
      "2025-01-07T09:00:00+00:00",
      "2025-01-08T09:00:00+00:00",
    ]);
    const twice: RecurrenceRule = {
      preset: "twice_monthly",
      days_of_month: [15, 31],
      end_type: "after_count",
      end_count: 3,
    };
    expect(series(twice, "UTC", "2025-01-10T09:00:00Z", 10)).toEqual([
      "2025-01-15T09:00:00+00:00",
      "2025-01-31T09:00:00+00:00",
      "2025-02-15T09:00:00+00:00",
    ]);
  });

  it("after_count with a long count started years ago", () => {
    const rule: RecurrenceRule = { preset: "daily", end_type: "after_count", end_count: 2000 };
    const started = "2020-06-01T09:00:00+02:00";
    // The 2000th occurrence is 1999 days after the first.
    expect(nextAfter(rule, "Europe/Paris", started, "2025-11-20T12:00:00+01:00")).toBe("2025-11-21T09:00:00+01:00");
    expect(nextAfter(rule, "Europe/Paris", started, "2025-11-21T09:00:00+01:00")).toBeNull();
  });
});

describe("occurrenceAfter: inclusive and strict", () => {
  const start = "2025-01-01T09:00:00Z";

  it("strict skips an occurrence at `after`; inclusive returns it", () => {
    expect(nextAfter({ preset: "daily" }, "UTC", start, "2025-01-05T09:00:00Z")).toBe("2025-01-06T09:00:00+00:00");
    expect(nextAfter({ preset: "daily" }, "UTC", start, "2025-01-05T09:00:00Z", true)).toBe(
      "2025-01-05T09:00:00+00:00",
    );
    expect(nextAfter({ preset: "daily" }, "UTC", start, start)).toBe("2025-01-02T09:00:00+00:00");
    expect(nextAfter({ preset: "daily" }, "UTC", start, start, true)).toBe("2025-01-01T09:00:00+00:00");
  });

  it("a moment after or before an occurrence", () => {
    expect(nextAfter({ preset: "daily" }, "UTC", start, "2025-01-05T09:00:00.001Z", true)).toBe(
      "2025-01-06T09:00:00+00:00",
    );
    expect(nextAfter({ preset: "daily" }, "UTC", start, "2025-01-05T08:59:59.999Z")).toBe("2025-01-05T09:00:00+00:00");
  });

  it("an `after` long before the start gives the first occurrence", () => {
    expect(nextAfter({ preset: "weekdays" }, "UTC", "2025-01-04T09:00:00Z", "1990-01-01T00:00:00Z")).toBe(
      "2025-01-06T09:00:00+00:00",
    );
  });
});

describe("occurrenceAfter: rules that do not repeat", () => {
  const start = "2025-01-01T09:00:00Z";

  it("the single occurrence is the start, for no rule, none and inherit", () => {
    for (const rule of [null, { preset: "none" }, { preset: "inherit" }] as const) {
      expect(nextAfter(rule, "UTC", start, "2024-12-31T00:00:00Z")).toBe("2025-01-01T09:00:00+00:00");
      expect(nextAfter(rule, "UTC", start, start)).toBeNull();
      expect(nextAfter(rule, "UTC", start, start, true)).toBe("2025-01-01T09:00:00+00:00");
      expect(nextAfter(rule, "UTC", start, "2025-01-02T00:00:00Z")).toBeNull();
    }
  });

  it("ignores end rules", () => {
    const rule: RecurrenceRule = { preset: "none", end_type: "on_date", end_date: "2020-01-01" };
    expect(nextAfter(rule, "UTC", start, "2024-12-31T00:00:00Z")).toBe("2025-01-01T09:00:00+00:00");
  });
});

describe("occurrenceAfter: series started years ago", () => {
  // 2020-06-01 is a Monday; queried in June 2025.
  const started = "2020-06-01T09:00:00+02:00";
  const tz = "Europe/Paris";
  const today = "2025-06-10T12:00:00+02:00";

  it("daily", () => {
    expect(nextAfter({ preset: "daily" }, tz, started, today)).toBe("2025-06-11T09:00:00+02:00");
  });

  it("biweekly keeps its phase (1834 days = 131 weeks after the start is 2025-06-09)", () => {
    expect(nextAfter({ preset: "biweekly" }, tz, started, today)).toBe("2025-06-23T09:00:00+02:00");
    expect(nextAfter({ preset: "biweekly" }, tz, started, "2025-06-08T12:00:00+02:00")).toBe(
      "2025-06-09T09:00:00+02:00",
    );
  });

  it("custom every 3 weeks keeps its phase (87 × 21 days after the start is 2025-06-02)", () => {
    const rule: RecurrenceRule = { preset: "custom", unit: "week", interval: 3, days_of_week: [1, 3] };
    expect(nextAfter(rule, tz, started, "2025-06-03T12:00:00+02:00")).toBe("2025-06-04T09:00:00+02:00");
    expect(nextAfter(rule, tz, started, today)).toBe("2025-06-23T09:00:00+02:00");
  });

  it("monthly from a 31st keeps clamping without drifting", () => {
    expect(nextAfter({ preset: "monthly" }, tz, "2020-01-31T09:00:00+01:00", "2025-02-10T12:00:00+01:00")).toBe(
      "2025-02-28T09:00:00+01:00",
    );
    expect(nextAfter({ preset: "monthly" }, tz, "2020-01-31T09:00:00+01:00", "2025-03-01T12:00:00+01:00")).toBe(
      "2025-03-31T09:00:00+02:00",
    );
  });

  it("many queries stay correct", () => {
    const rule: RecurrenceRule = { preset: "weekdays" };
    let cursor = ms(today);
    const seen: string[] = [];
    for (let i = 0; i < 500; i++) {
      const next = occurrenceAfter(rule, tz, ms(started), cursor);
      if (next === null) throw new Error("weekdays never ends");
      if (i < 6) seen.push(local(next, tz) ?? "");
      cursor = next;
    }
    expect(seen).toEqual([
      "2025-06-11T09:00:00+02:00",
      "2025-06-12T09:00:00+02:00",
      "2025-06-13T09:00:00+02:00",
      "2025-06-16T09:00:00+02:00",
      "2025-06-17T09:00:00+02:00",
      "2025-06-18T09:00:00+02:00",
    ]);
    // 500 weekdays = 100 weeks after 2025-06-10 (a Tuesday): 2027-05-11.
    expect(local(cursor, tz)).toBe("2027-05-11T09:00:00+02:00");
  });
});

// What the engine assumes about rrule-temporal (2.2.8); if one of these changes, revisit the header comment of
// recurrence.ts.
describe("rrule-temporal behaviour the engine works around", () => {
  const dates = (rule: RRuleTemporal) => rule.all().map((date) => date.toString().slice(0, 10));

  it("omits a generated local time that falls in a DST gap (so the engine places times itself)", () => {
    const rule = new RRuleTemporal({
      rruleString: "DTSTART;TZID=America/New_York:20250308T023000\nRRULE:FREQ=DAILY;COUNT=3",
    });
    expect(dates(rule)).toEqual(["2025-03-08", "2025-03-10", "2025-03-11"]);
  });

  it("does not clamp MONTHLY with RSCALE=GREGORIAN;SKIP=BACKWARD (so the engine clamps with BYSETPOS)", () => {
    const skip = new RRuleTemporal({
      rruleString:
        "DTSTART;TZID=UTC:20250131T090000\nRRULE:RSCALE=GREGORIAN;FREQ=MONTHLY;BYMONTHDAY=31;SKIP=BACKWARD;COUNT=3",
    });
    expect(dates(skip)).toEqual(["2025-01-31", "2025-03-31", "2025-05-31"]);
    const setPos = new RRuleTemporal({
      rruleString: "DTSTART;TZID=UTC:20250131T090000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=31,-1;BYSETPOS=1;COUNT=3",
    });
    expect(dates(setPos)).toEqual(["2025-01-31", "2025-02-28", "2025-03-31"]);
  });
});
