import { describe, expect, it } from "vitest";
import { parseQuickTaskLocally, type QuickTaskParse } from "../../../src/services/quick-tasks/local-parser";

const BERLIN = "Europe/Berlin";
const NY = "America/New_York";
const TOKYO = "Asia/Tokyo";
const SYDNEY = "Australia/Sydney";
const UTC = "UTC";

/** Monday 2026-03-02 10:00 in Berlin (winter time, +01:00). */
const BERLIN_REF = "2026-03-02T10:00:00+01:00";
/** Friday 2026-03-27, two days before Berlin switches to summer time (2026-03-29). */
const BERLIN_DST_REF = "2026-03-27T10:00:00+01:00";
/** Saturday 2026-03-07, the day before New York switches to EDT (2026-03-08). */
const NY_DST_REF = "2026-03-07T12:00:00-05:00";
/** Saturday 2026-10-31, the day before New York falls back (2026-11-01). */
const NY_FALL_REF = "2026-10-31T12:00:00-04:00";
/** Monday 2026-03-02 10:00 in Tokyo. */
const TOKYO_REF = "2026-03-02T10:00:00+09:00";
/** Friday 2026-03-06 10:00 in Tokyo. */
const TOKYO_FRI_REF = "2026-03-06T10:00:00+09:00";
/** Friday 2026-04-03, two days before Sydney leaves daylight time (2026-04-05). */
const SYDNEY_REF = "2026-04-03T10:00:00+11:00";
/** Friday 2026-04-10 in UTC (April has 30 days). */
const UTC_APRIL_REF = "2026-04-10T10:00:00Z";
/** Tuesday 2026-02-10 in UTC (February 2026 has 28 days). */
const UTC_FEB_REF = "2026-02-10T10:00:00Z";

type Case = [
  name: string,
  text: string,
  zone: string,
  ref: string,
  expected: Partial<QuickTaskParse> & { title: string },
];

const base: Omit<QuickTaskParse, "title"> = {
  due_at: null,
  due_date: null,
  all_day: false,
  reminder_offset: null,
  priority: null,
  notes: null,
  ambiguities: [],
};

const cases: Case[] = [
  // --- reference example and basic times ---
  [
    "reference example",
    "Pay rent tomorrow at 9am, high priority",
    BERLIN,
    BERLIN_REF,
    { title: "Pay rent", due_at: "2026-03-03T09:00:00+01:00", priority: "high" },
  ],
  ["plain title", "Buy milk", BERLIN, BERLIN_REF, { title: "Buy milk" }],
  [
    "lowercase kept as typed",
    "pay rent tomorrow",
    BERLIN,
    BERLIN_REF,
    { title: "pay rent", due_date: "2026-03-03", all_day: true },
  ],
  [
    "24h time today",
    "Send report at 17:00",
    BERLIN,
    BERLIN_REF,
    { title: "Send report", due_at: "2026-03-02T17:00:00+01:00" },
  ],
  [
    "noon",
    "Lunch with Anna at noon",
    BERLIN,
    BERLIN_REF,
    { title: "Lunch with Anna", due_at: "2026-03-02T12:00:00+01:00" },
  ],
  [
    "relative hours",
    "Check oven in 30 minutes",
    BERLIN,
    BERLIN_REF,
    { title: "Check oven", due_at: "2026-03-02T10:30:00+01:00" },
  ],
  [
    "relative hours in Tokyo",
    "Call supplier in 3 hours",
    TOKYO,
    TOKYO_REF,
    { title: "Call supplier", due_at: "2026-03-02T13:00:00+09:00" },
  ],
  [
    "tomorrow in Tokyo",
    "Team sync tomorrow at 9am",
    TOKYO,
    TOKYO_REF,
    { title: "Team sync", due_at: "2026-03-03T09:00:00+09:00" },
  ],
  [
    "tomorrow in UTC",
    "Deploy tomorrow at 6pm",
    UTC,
    UTC_APRIL_REF,
    { title: "Deploy", due_at: "2026-04-11T18:00:00+00:00" },
  ],
  [
    // 07:30 is past at 10:00, and the leading zero marks a 24h time: no am/pm ambiguity, and
    // chrono's forwardDate moves it to tomorrow morning.
    "leading-zero hour is 24h",
    "Gym at 07:30",
    BERLIN,
    BERLIN_REF,
    { title: "Gym", due_at: "2026-03-03T07:30:00+01:00" },
  ],
  // --- all-day dates ---
  [
    "weekday",
    "Submit report by friday",
    BERLIN,
    BERLIN_REF,
    { title: "Submit report", due_date: "2026-03-06", all_day: true },
  ],
  [
    "month name date",
    "File taxes due April 15",
    BERLIN,
    BERLIN_REF,
    { title: "File taxes", due_date: "2026-04-15", all_day: true },
  ],
  [
    "in N days",
    "Renew library books in 2 days",
    NY,
    NY_DST_REF,
    { title: "Renew library books", due_date: "2026-03-09", all_day: true },
  ],
  [
    "past month date rolls to next year",
    "Book holiday on Jan 5",
    UTC,
    UTC_APRIL_REF,
    { title: "Book holiday", due_date: "2027-01-05", all_day: true },
  ],
  // --- month ends ---
  [
    "31st in a 30-day month clamps to the 30th",
    "Send invoice on the 31st",
    UTC,
    UTC_APRIL_REF,
    {
      title: "Send invoice",
      due_date: "2026-04-30",
      all_day: true,
      ambiguities: [{ field: "due_date", text: "on the 31st", alternatives: ["2026-05-31"] }],
    },
  ],
  [
    "31st in a 31-day month",
    "Send invoice on the 31st",
    BERLIN,
    BERLIN_REF,
    { title: "Send invoice", due_date: "2026-03-31", all_day: true },
  ],
  [
    "day of month later this month",
    "Pay card on the 15th",
    UTC,
    UTC_APRIL_REF,
    { title: "Pay card", due_date: "2026-04-15", all_day: true },
  ],
  [
    "day of month already past rolls to next month",
    "Pay card on the 5th",
    UTC,
    UTC_APRIL_REF,
    { title: "Pay card", due_date: "2026-05-05", all_day: true },
  ],
  [
    "30th in February clamps to the 28th",
    "Close books on the 30th",
    UTC,
    UTC_FEB_REF,
    {
      title: "Close books",
      due_date: "2026-02-28",
      all_day: true,
      ambiguities: [{ field: "due_date", text: "on the 30th", alternatives: ["2026-03-30"] }],
    },
  ],
  [
    "end of month in April",
    "Expense report by end of month",
    UTC,
    UTC_APRIL_REF,
    { title: "Expense report", due_date: "2026-04-30", all_day: true },
  ],
  [
    "end of month in February",
    "Expense report end of the month",
    UTC,
    UTC_FEB_REF,
    { title: "Expense report", due_date: "2026-02-28", all_day: true },
  ],
  // --- DST ---
  [
    "Berlin: before the change keeps +01:00",
    "Haircut tomorrow at 9am",
    BERLIN,
    BERLIN_DST_REF,
    { title: "Haircut", due_at: "2026-03-28T09:00:00+01:00" },
  ],
  [
    "Berlin: day of the change gets +02:00",
    "Brunch sunday at 10am",
    BERLIN,
    BERLIN_DST_REF,
    { title: "Brunch", due_at: "2026-03-29T10:00:00+02:00" },
  ],
  [
    "Berlin: day after the change gets +02:00",
    "Standup monday at 9am",
    BERLIN,
    BERLIN_DST_REF,
    { title: "Standup", due_at: "2026-03-30T09:00:00+02:00" },
  ],
  [
    "Berlin: explicit date after the change",
    "Dentist on March 31 at 14:30",
    BERLIN,
    BERLIN_REF,
    { title: "Dentist", due_at: "2026-03-31T14:30:00+02:00" },
  ],
  [
    "Berlin: nonexistent 02:30 resolves forward (compatible)",
    "Backup on March 29 at 2:30am",
    BERLIN,
    BERLIN_REF,
    { title: "Backup", due_at: "2026-03-29T03:30:00+02:00" },
  ],
  [
    "New York: day of the change gets -04:00",
    "Run tomorrow at 9am",
    NY,
    NY_DST_REF,
    { title: "Run", due_at: "2026-03-08T09:00:00-04:00" },
  ],
  [
    "New York: day after the change gets -04:00",
    "Client call monday at 3pm",
    NY,
    NY_DST_REF,
    { title: "Client call", due_at: "2026-03-09T15:00:00-04:00" },
  ],
  [
    "New York: repeated 01:30 on fall-back picks the earlier (compatible)",
    "Night job tomorrow at 1:30am",
    NY,
    NY_FALL_REF,
    { title: "Night job", due_at: "2026-11-01T01:30:00-04:00" },
  ],
  [
    "New York: day after fall-back gets -05:00",
    "Dentist monday at 10am",
    NY,
    NY_FALL_REF,
    { title: "Dentist", due_at: "2026-11-02T10:00:00-05:00" },
  ],
  [
    "Sydney: before daylight time ends keeps +11:00",
    "Surf tomorrow 8am",
    SYDNEY,
    SYDNEY_REF,
    { title: "Surf", due_at: "2026-04-04T08:00:00+11:00" },
  ],
  [
    "Sydney: after daylight time ends gets +10:00",
    "Board meeting monday at 9am",
    SYDNEY,
    SYDNEY_REF,
    { title: "Board meeting", due_at: "2026-04-06T09:00:00+10:00" },
  ],
  // --- priorities ---
  ["p1", "Fix bug p1", BERLIN, BERLIN_REF, { title: "Fix bug", priority: "high" }],
  ["p2", "Water plants p2", BERLIN, BERLIN_REF, { title: "Water plants", priority: "medium" }],
  ["p3", "Sort photos p3", BERLIN, BERLIN_REF, { title: "Sort photos", priority: "low" }],
  ["!!", "Fix login !!", BERLIN, BERLIN_REF, { title: "Fix login", priority: "high" }],
  ["!!!", "Server down !!!", BERLIN, BERLIN_REF, { title: "Server down", priority: "high" }],
  ["!", "Reply to Sam !", BERLIN, BERLIN_REF, { title: "Reply to Sam", priority: "medium" }],
  ["exclamation attached to a word is not a priority", "Call mom!", BERLIN, BERLIN_REF, { title: "Call mom!" }],
  ["urgent prefix", "urgent: fix server", BERLIN, BERLIN_REF, { title: "fix server", priority: "high" }],
  ["asap", "Email Bob asap", BERLIN, BERLIN_REF, { title: "Email Bob", priority: "high" }],
  ["medium priority", "Review PR, medium priority", BERLIN, BERLIN_REF, { title: "Review PR", priority: "medium" }],
  ["someday", "Read Dune someday", BERLIN, BERLIN_REF, { title: "Read Dune", priority: "low" }],
  ["low priority", "Clean garage low priority", BERLIN, BERLIN_REF, { title: "Clean garage", priority: "low" }],
  // --- reminders ---
  [
    "30 minutes before",
    "Team call tomorrow at 3pm, remind me 30 minutes before",
    BERLIN,
    BERLIN_REF,
    {
      title: "Team call",
      due_at: "2026-03-03T15:00:00+01:00",
      reminder_offset: "30_minutes_before",
    },
  ],
  [
    "an hour before",
    "Flight friday at 8am remind me an hour before",
    BERLIN,
    BERLIN_REF,
    { title: "Flight", due_at: "2026-03-06T08:00:00+01:00", reminder_offset: "1_hour_before" },
  ],
  [
    "the day before",
    "Pay invoice march 10 remind me the day before",
    BERLIN,
    BERLIN_REF,
    {
      title: "Pay invoice",
      due_date: "2026-03-10",
      all_day: true,
      reminder_offset: "1_day_before",
    },
  ],
  [
    "at the time",
    "Take pill at 8pm, remind me at the time",
    BERLIN,
    BERLIN_REF,
    { title: "Take pill", due_at: "2026-03-02T20:00:00+01:00", reminder_offset: "at_time" },
  ],
  [
    "2 days before",
    "Passport appointment April 20 remind me 2 days before",
    TOKYO,
    TOKYO_REF,
    {
      title: "Passport appointment",
      due_date: "2026-04-20",
      all_day: true,
      reminder_offset: "2_days_before",
    },
  ],
  [
    "unsupported amount picks the nearest offset that is not later",
    "Meeting tomorrow at 10am remind me 20 minutes before",
    BERLIN,
    BERLIN_REF,
    {
      title: "Meeting",
      due_at: "2026-03-03T10:00:00+01:00",
      reminder_offset: "30_minutes_before",
      ambiguities: [
        {
          field: "reminder_offset",
          text: "remind me 20 minutes before",
          alternatives: ["15_minutes_before"],
        },
      ],
    },
  ],
  // --- notes ---
  [
    "double dash notes",
    "Buy groceries tomorrow -- milk, eggs, bread",
    BERLIN,
    BERLIN_REF,
    { title: "Buy groceries", due_date: "2026-03-03", all_day: true, notes: "milk, eggs, bread" },
  ],
  [
    "em dash notes",
    "Write blog post — draft the outline first",
    BERLIN,
    BERLIN_REF,
    { title: "Write blog post", notes: "draft the outline first" },
  ],
  [
    ": notes separator",
    "Call plumber p2: notes leaking sink in the kitchen",
    BERLIN,
    BERLIN_REF,
    { title: "Call plumber", priority: "medium", notes: "leaking sink in the kitchen" },
  ],
  [
    "newline notes",
    "Prepare slides by friday\nInclude Q1 numbers\nand the roadmap",
    BERLIN,
    BERLIN_REF,
    {
      title: "Prepare slides",
      due_date: "2026-03-06",
      all_day: true,
      notes: "Include Q1 numbers\nand the roadmap",
    },
  ],
  [
    "date in notes is not the due date",
    "Order cake -- party is tomorrow",
    BERLIN,
    BERLIN_REF,
    { title: "Order cake", notes: "party is tomorrow" },
  ],
  // --- ambiguities ---
  [
    "hour without am/pm picks the daytime one",
    "Call mom at 5",
    BERLIN,
    BERLIN_REF,
    {
      title: "Call mom",
      due_at: "2026-03-02T17:00:00+01:00",
      ambiguities: [{ field: "due_at", text: "at 5", alternatives: ["2026-03-02T05:00:00+01:00"] }],
    },
  ],
  [
    "hour:minute without am/pm",
    "Gym at 7:30",
    BERLIN,
    BERLIN_REF,
    {
      title: "Gym",
      due_at: "2026-03-02T19:30:00+01:00",
      ambiguities: [{ field: "due_at", text: "at 7:30", alternatives: ["2026-03-02T07:30:00+01:00"] }],
    },
  ],
  [
    "hour without am/pm already past today moves to tomorrow",
    "Call mom at 5",
    NY,
    "2026-03-10T18:00:00-04:00",
    {
      title: "Call mom",
      due_at: "2026-03-11T17:00:00-04:00",
      ambiguities: [{ field: "due_at", text: "at 5", alternatives: ["2026-03-11T05:00:00-04:00"] }],
    },
  ],
  [
    "bare weekday naming today",
    "Drinks friday",
    TOKYO,
    TOKYO_FRI_REF,
    {
      title: "Drinks",
      due_date: "2026-03-06",
      all_day: true,
      ambiguities: [{ field: "due_date", text: "friday", alternatives: ["2026-03-13"] }],
    },
  ],
  [
    "bare weekday naming today with a future time",
    "Drinks friday at 7pm",
    TOKYO,
    TOKYO_FRI_REF,
    {
      title: "Drinks",
      due_at: "2026-03-06T19:00:00+09:00",
      ambiguities: [{ field: "due_date", text: "friday", alternatives: ["2026-03-13"] }],
    },
  ],
  [
    "bare weekday naming today with a time already past",
    "Yoga friday at 9am",
    TOKYO,
    TOKYO_FRI_REF,
    {
      title: "Yoga",
      due_at: "2026-03-13T09:00:00+09:00",
      ambiguities: [{ field: "due_date", text: "friday", alternatives: ["2026-03-06"] }],
    },
  ],
  [
    "next weekday naming today is not ambiguous",
    "Drinks next friday",
    TOKYO,
    TOKYO_FRI_REF,
    { title: "Drinks", due_date: "2026-03-13", all_day: true },
  ],
  [
    "next week without a day",
    "Plan trip next week",
    BERLIN,
    BERLIN_REF,
    {
      title: "Plan trip",
      due_date: "2026-03-09",
      all_day: true,
      ambiguities: [{ field: "due_date", text: "next week", alternatives: ["2026-03-13"] }],
    },
  ],
  // --- combined ---
  [
    "everything at once",
    "Renew passport by end of month !! remind me the week before -- bring old photos",
    SYDNEY,
    SYDNEY_REF,
    {
      title: "Renew passport",
      due_date: "2026-04-30",
      all_day: true,
      priority: "high",
      reminder_offset: "1_week_before",
      notes: "bring old photos",
    },
  ],
];

describe("parseQuickTaskLocally", () => {
  it("has a broad table", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)("%s: %j", (_name, text, zone, ref, expected) => {
    const result = parseQuickTaskLocally(text, zone, new Date(ref));
    expect(result).toEqual({ ...base, ...expected });
  });
});
