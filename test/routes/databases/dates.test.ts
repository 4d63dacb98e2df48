import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiResponse, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { storedRow } from "../../helpers/blocks";
import { createDatabase, createRow, schemaRecords, storedRowIds, type TestDatabase } from "../../helpers/databases";
import { countOwnedBlocks, getPage, postPage, putPage, storedProperties } from "../../helpers/pages";

const problemsOf = (res: ApiResponse) =>
  (res.body as { details?: { errors?: { property: string; message: string }[] } }).details?.errors ?? [];

const dueOf = async (database: TestDatabase, rowId: string) =>
  (await storedProperties(rowId))?.[database.prop("Due").id];

const FULL_DATE = {
  start: "2024-05-06T09:00:00+02:00",
  end: "2024-05-06T10:30:00+02:00",
  reminder: "1_day_before",
  reminder_schedules: [
    { id: "sched-1", offset: "1_hour_before", days_of_week: [1, 3, 5], time: "08:30" },
    { id: "sched-2", offset: "at_time" },
  ],
  recurrence: "weekly_on_days",
  recurrence_days_of_week: [1, 3],
  recurrence_end_type: "on_date",
  recurrence_end_date: "2024-12-31",
};

describe("date property values: accepted", () => {
  it("stores an ISO date string as given", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Dated", Due: "2024-05-01" });
    expect(await dueOf(database, row.id)).toBe("2024-05-01");
    expect(row.properties_by_name?.Due).toBe("2024-05-01");
  });

  it("stores the full object form as given", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Full", Due: FULL_DATE });
    expect(await dueOf(database, row.id)).toEqual(FULL_DATE);
    expect((await getPage(user, row.id)).body.properties_by_name?.Due).toEqual(FULL_DATE);
  });

  it.each([
    ["a date-only start", { start: "2024-05-01" }],
    ["a UTC date-time", { start: "2024-05-01T09:00:00Z", end: "2024-05-01T10:00:00Z" }],
    ["a date range", { start: "2024-05-01", end: "2024-05-03" }],
    ["end null", { start: "2024-05-01", end: null }],
    ["every reminder offset", { start: "2024-05-01", reminder: "2_hours_before" }],
    ["inherit", { start: "2024-05-01", reminder: "inherit", recurrence: "inherit" }],
    [
      "after_count",
      { start: "2024-05-01", recurrence: "daily", recurrence_end_type: "after_count", recurrence_end_count: 3 },
    ],
    ["never", { start: "2024-05-01", recurrence: "monthly", recurrence_end_type: "never" }],
    ["twice_monthly", { start: "2024-05-01", recurrence: "twice_monthly", recurrence_days_of_month: [1, 15] }],
    ["custom", { start: "2024-05-01", recurrence: "custom", recurrence_interval: 2, recurrence_unit: "week" }],
  ])("accepts %s", async (_case, value) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { Due: value });
    expect(await dueOf(database, row.id)).toEqual(value);
  });

  it("accepts an end after the start when the two are written with different offsets", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    // 10:00+02:00 is 08:00Z, so an end at 09:00Z is an hour after the start.
    const value = { start: "2024-05-01T10:00:00+02:00", end: "2024-05-01T09:00:00Z" };
    const res = await postPage(user, { type: "database_row", database_id: database.id, properties: { Due: value } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await dueOf(database, res.body.id)).toEqual(value);
  });

  it("replaces a date value as a whole on PUT: a new start without end drops the old end", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, {
      Due: { start: "2024-01-01", end: "2024-01-05", reminder: "1_day_before" },
    });
    const res = await putPage(user, row.id, { properties: { Due: { start: "2024-02-01" } } });
    expect(res.status).toBe(200);
    // A merged {start: Feb 1, end: Jan 5} would be a value the API itself refuses.
    expect(await dueOf(database, row.id)).toEqual({ start: "2024-02-01" });
  });

  it("replaces an object value with a date string, and clears it with null", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { Due: FULL_DATE });
    await putPage(user, row.id, { properties: { Due: "2024-07-01" } });
    expect(await dueOf(database, row.id)).toBe("2024-07-01");
    await putPage(user, row.id, { properties: { Due: null } });
    expect(await storedProperties(row.id)).not.toHaveProperty(database.prop("Due").id);
  });
});

describe("date property values: refused", () => {
  it.each([
    ["an unknown reminder offset", { start: "2024-05-01", reminder: "3_minutes_before" }, "reminder"],
    [
      "an unknown schedule offset",
      { start: "2024-05-01", reminder_schedules: [{ id: "a", offset: "2_weeks_before" }] },
      "",
    ],
    ["an end before the start", { start: "2024-05-03", end: "2024-05-01" }, "end"],
    ["an end before the start on the same day", { start: "2024-05-01T10:00:00Z", end: "2024-05-01T09:59:00Z" }, "end"],
    [
      "on_date without an end date",
      { start: "2024-05-01", recurrence: "daily", recurrence_end_type: "on_date" },
      "recurrence_end_date",
    ],
    [
      "after_count without a count",
      { start: "2024-05-01", recurrence: "daily", recurrence_end_type: "after_count" },
      "recurrence_end_count",
    ],
    [
      "a schedule time that is not HH:mm",
      { start: "2024-05-01", reminder_schedules: [{ id: "a", offset: "at_time", time: "8:30" }] },
      "time",
    ],
    [
      "a schedule time past 23:59",
      { start: "2024-05-01", reminder_schedules: [{ id: "a", offset: "at_time", time: "24:00" }] },
      "time",
    ],
    [
      "a day of week above 6",
      { start: "2024-05-01", recurrence: "weekly_on_days", recurrence_days_of_week: [7] },
      "recurrence_days_of_week",
    ],
    [
      "duplicate schedule ids",
      {
        start: "2024-05-01",
        reminder_schedules: [
          { id: "a", offset: "none" },
          { id: "a", offset: "at_time" },
        ],
      },
      "reminder_schedules",
    ],
    ["custom recurrence without interval", { start: "2024-05-01", recurrence: "custom" }, "recurrence_interval"],
    ["an unknown recurrence", { start: "2024-05-01", recurrence: "hourly" }, "recurrence"],
    ["an unknown field", { start: "2024-05-01", timezone: "Europe/Paris" }, "start"],
    ["no start", { end: "2024-05-01" }, "start"],
    ["an impossible date", "2024-02-30", "ISO"],
    ["an impossible month", { start: "2024-13-01" }, "start"],
    ["a date-time string instead of a date", "2024-05-01T09:00:00Z", "ISO"],
    ["a time-zone offset out of range", { start: "2024-05-01T09:00:00+25:00" }, "start"],
    ["a date-time without offset", { start: "2024-05-01T09:00:00" }, "start"],
    ["a number", 20240501, "ISO"],
  ])("refuses %s (400 naming Due), storing nothing", async (_case, value, hint) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const owned = await countOwnedBlocks(user.id);
    const res = await postPage(user, { type: "database_row", database_id: database.id, properties: { Due: value } });
    expectErrorBody(res, 400);
    const problems = problemsOf(res);
    expect(problems).toEqual([expect.objectContaining({ property: "Due" })]);
    expect(problems[0]?.message).toContain(hint);
    expect(await countOwnedBlocks(user.id)).toBe(owned);
  });

  it("refuses an end before the start written with different offsets", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    // 09:00Z is after 10:00+02:00 (08:00Z) only in text order; as instants the end is before the start.
    const value = { start: "2024-05-01T09:00:00Z", end: "2024-05-01T10:00:00+02:00" };
    const res = await postPage(user, { type: "database_row", database_id: database.id, properties: { Due: value } });
    expectErrorBody(res, 400);
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("refuses an invalid date on PUT, leaving the row unchanged", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "r", Due: "2024-05-01" });
    const before = await storedRow(row.id);
    const res = await putPage(user, row.id, { properties: { Due: { start: "2024-05-03", end: "2024-05-01" } } });
    expectErrorBody(res, 400);
    expect(await storedRow(row.id)).toEqual(before);
  });
});

describe("saving a date creates no reminder", () => {
  async function reminderState(user: TestUser) {
    const queue = env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(user.id));
    const reminders = await env.DB.prepare("SELECT id FROM reminders WHERE user_id = ?").bind(user.id).all();
    return { reminders: reminders.results, queued: await queue.pending() };
  }

  it("stores the row and nothing else: no reminder record, nothing queued for the user", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await reminderState(user);
    const recordsBefore = await schemaRecords(database.id);
    const owned = await countOwnedBlocks(user.id);

    const row = await createRow(user, database.id, { title: "Remind me", Due: FULL_DATE });
    await putPage(user, row.id, {
      properties: { Due: { ...FULL_DATE, reminder_schedules: [{ id: "x", offset: "5_minutes_before" }] } },
    });

    expect(await dueOf(database, row.id)).toEqual({
      ...FULL_DATE,
      reminder_schedules: [{ id: "x", offset: "5_minutes_before" }],
    });
    const after = await reminderState(user);
    expect(after).toEqual(before);
    expect(after.queued).toEqual([]);
    expect(after.reminders).toEqual([]);
    expect(await countOwnedBlocks(user.id)).toBe(owned + 1);
    expect(await storedRowIds(database.id)).toEqual([row.id]);
    expect(await schemaRecords(database.id)).toEqual(recordsBefore);
  });
});
