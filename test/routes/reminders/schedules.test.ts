import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backgroundUserContext } from "../../../src/lib/context";
import { snoozeReminder } from "../../../src/services/reminders/reminders";
import { api, createUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { insertBlock } from "../../helpers/blocks";
import {
  createReminder,
  postReminder,
  REMINDERS,
  type Reminder,
  reminderAction,
  reminderBody,
  reminderTarget,
  storedReminder,
} from "../../helpers/reminders";
import { signSessionToken } from "../../helpers/session-token";

// What a schedule is and when it changes: the schedule id across states, updates that do and do
// not reschedule, the range of instants, due times across DST, and the caller who no longer exists.

const HOUR = 3_600_000;
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR);
const put = (user: Awaited<ReturnType<typeof createUser>>, id: string, body: unknown) =>
  api<Reminder>(`${REMINDERS}/${id}`, { method: "PUT", auth: user, body });

describe("one reminder per schedule id, whatever its state", () => {
  it("re-sending a dismissed reminder's unchanged schedule answers it as it is; a changed schedule re-arms it", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const body = reminderBody(target, inHours(1), { metadata: { schedule_id: "due" } });
    const first = await postReminder(user, body);
    await reminderAction(user, first.body.id, "dismiss", { scope: "series" });

    const resent = await postReminder(user, body);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ id: first.body.id, status: "dismissed", next_fire_at: null });

    const moved = await postReminder(user, { ...body, remind_at: inHours(3).toISOString() });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: first.body.id, status: "scheduled" });
    expect((await api<Reminder[]>(REMINDERS, { auth: user })).body).toHaveLength(1);
  });

  it("a create whose series has already ended updates the reminder with that schedule id, never a copy", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const live = await createReminder(user, target, inHours(1), {
      recurrence_rule: { preset: "daily" },
      metadata: { schedule_id: "S" },
    });
    const ended = {
      ...reminderBody(target, "2019-12-01T09:00:00Z", { metadata: { schedule_id: "S" } }),
      recurrence_rule: { preset: "daily", end_type: "on_date", end_date: "2020-01-01" },
    };
    const results = [await postReminder(user, ended), await postReminder(user, ended)];
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results.map((r) => r.body.id)).toEqual([live.id, live.id]);
    expect(results[0]?.body).toMatchObject({ status: "completed", next_fire_at: null });
    expect((await api<Reminder[]>(REMINDERS, { auth: user })).body).toHaveLength(1);
  });
});

describe("PUT reschedules only when the schedule changes", () => {
  it("re-sending the same remind_at keeps a fired reminder fired", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    await env.DB.prepare(
      "UPDATE reminders SET status = 'fired', next_fire_at = NULL, version = version + 1 WHERE id = ?",
    )
      .bind(reminder.id)
      .run();
    const res = await put(user, reminder.id, { remind_at: reminder.remind_at, channel: "push" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "fired", next_fire_at: null, channel: "push" });
  });

  it("a new rule on a series whose current occurrence fired goes on after that occurrence", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    // Daily at 09:00 UTC; say its occurrence of 2030-01-07 (a Monday) has just fired.
    const reminder = await createReminder(user, target, "2030-01-07T09:00:00Z", {
      recurrence_rule: { preset: "daily" },
    });
    await env.DB.prepare("UPDATE reminders SET status = 'fired', next_fire_at = ?, version = version + 1 WHERE id = ?")
      .bind(Date.parse("2030-01-08T09:00:00Z"), reminder.id)
      .run();
    const res = await put(user, reminder.id, { recurrence_rule: { preset: "weekdays" } });
    expect(res.body).toMatchObject({
      status: "scheduled",
      remind_at: "2030-01-08T09:00:00.000Z",
      next_fire_at: "2030-01-08T09:00:00.000Z",
    });
  });

  it("a new time zone keeps the series' start: a monthly reminder from the 31st stays on month ends", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, "2030-10-31T09:00:00Z", {
      recurrence_rule: { preset: "monthly" },
    });
    const november = await reminderAction(user, reminder.id, "dismiss", { scope: "occurrence" });
    expect(november.body.remind_at).toBe("2030-11-30T09:00:00.000Z");
    const moved = await put(user, reminder.id, { timezone: "Europe/London" });
    expect((await storedReminder(moved.body.id))?.series_start).toBe("2030-10-31T09:00:00.000Z");
    const december = await reminderAction(user, reminder.id, "dismiss", { scope: "occurrence" });
    expect(december.body.remind_at).toBe("2030-12-31T09:00:00.000Z");
  });

  it("stores the canonical spelling of a time zone", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1), { timezone: "europe/paris" });
    expect(reminder.timezone).toBe("Europe/Paris");
  });
});

describe("concurrent writers", () => {
  it("eight concurrent dismissals of one occurrence each: the series moves on exactly eight occurrences", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const daily = await createReminder(user, target, "2030-01-01T09:00:00Z", { recurrence_rule: { preset: "daily" } });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => reminderAction(user, daily.id, "dismiss", { scope: "occurrence" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await storedReminder(daily.id)).toMatchObject({
      remind_at: "2030-01-09T09:00:00.000Z",
      status: "scheduled",
    });
  });

  it("concurrent updates of different fields all land (none is lost to another's stale read)", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    const sameTargetWrites = 6;
    const [first] = await Promise.all([
      put(user, reminder.id, { channel: "push" }),
      put(user, reminder.id, { timezone: "Europe/Paris" }),
      put(user, reminder.id, { due_at: inHours(2).toISOString() }),
      ...Array.from({ length: sameTargetWrites }, () =>
        put(user, reminder.id, { target_block_id: target.rowId, source_property_id: target.dueId }),
      ),
    ]);
    expect(first?.status).toBe(200);
    const stored = await storedReminder(reminder.id);
    expect(stored).toMatchObject({ channel: "push", timezone: "Europe/Paris" });
    expect(stored?.due_offset_ms).not.toBeNull();
    expect(stored?.version).toBe(1 + 3 + sameTargetWrites);
  });
});

describe("instants from 1970 to 2099", () => {
  it.each([
    ["remind_at before 1970", { remind_at: "1600-01-01T00:00:00Z" }],
    ["remind_at in year 10000 UTC", { remind_at: "9999-12-31T23:30:00-05:00" }],
    ["remind_at after 2099", { remind_at: "2190-01-01T00:00:00Z" }],
    ["due_at after 2099", { due_at: "2100-01-01T00:00:00Z" }],
    ["an anchor before 1970", { recurrence_rule: { preset: "daily", anchor_at: "1900-01-01T00:00:00Z" } }],
    ["an end date after 2099", { recurrence_rule: { preset: "daily", end_type: "on_date", end_date: "2150-01-01" } }],
  ])("400 for %s, nothing stored", async (_name, extra) => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const res = await postReminder(user, reminderBody(target, inHours(1), extra));
    expectErrorBody(res, 400);
    expect((await api<Reminder[]>(REMINDERS, { auth: user })).body).toEqual([]);
  });

  it("a value that is no date-time is refused as that alone, not also as out of range", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const res = await postReminder(user, reminderBody(target, inHours(1), { remind_at: "tomorrow" }));
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({
      details: { issues: [{ path: "remind_at", message: "Invalid ISO datetime", code: "invalid_format" }] },
    });
  });

  it("400 for a snooze until after 2099, and for list bounds outside the range", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    expectErrorBody(await reminderAction(user, reminder.id, "snooze", { until: "9999-12-31T23:59:00-01:00" }), 400);
    expectErrorBody(
      await api(`${REMINDERS}?to=${encodeURIComponent("9999-12-31T23:59:59-12:00")}`, { auth: user }),
      400,
    );
    expectErrorBody(
      await api(`${REMINDERS}/due?before=${encodeURIComponent("1600-01-01T00:00:00Z")}`, { auth: user }),
      400,
    );
  });
});

describe("a series ends at its last occurrence before 2100", () => {
  const LAST_DAY = "2099-12-31T12:00:00.000Z";

  it("dismissing the occurrence of 2099-12-31 completes a daily series instead of moving it to 2100", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const daily = await createReminder(user, target, LAST_DAY, { recurrence_rule: { preset: "daily" } });
    const res = await reminderAction(user, daily.id, "dismiss", { scope: "occurrence" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", remind_at: LAST_DAY, next_fire_at: null });
  });

  it("a series whose first occurrence would fall in 2100 is created completed", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    // Tuesday 2099-12-29; the next Monday is 2100-01-04.
    const mondays = await createReminder(user, target, "2099-12-29T09:00:00Z", {
      recurrence_rule: { preset: "weekly_on_days", days_of_week: [1] },
    });
    expect(mondays).toMatchObject({ status: "completed", remind_at: "2099-12-29T09:00:00.000Z", next_fire_at: null });
  });

  it("an occurrence whose due time would fall in 2100 is past the end too", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const daily = await createReminder(user, target, "2099-12-30T12:00:00Z", {
      due_at: LAST_DAY,
      recurrence_rule: { preset: "daily" },
    });
    const res = await reminderAction(user, daily.id, "dismiss", { scope: "occurrence" });
    expect(res.body).toMatchObject({ status: "completed", remind_at: "2099-12-30T12:00:00.000Z", due_at: LAST_DAY });
  });

  it("400 for a PUT of remind_at that would carry the due time it keeps into 2100; nothing changed", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, "2099-12-30T12:00:00Z", { due_at: LAST_DAY });
    const res = await put(user, reminder.id, { remind_at: LAST_DAY });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "due_at", due_at: "2100-01-01T12:00:00.000Z" } });
    expect((await storedReminder(reminder.id))?.remind_at).toBe("2099-12-30T12:00:00.000Z");
    const both = await put(user, reminder.id, { remind_at: LAST_DAY, due_at: LAST_DAY });
    expect(both.body).toMatchObject({ remind_at: LAST_DAY, due_at: LAST_DAY });
  });

  it("400 for a snooze by minutes that would end after 2099", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, LAST_DAY);
    const lateInTheCentury = backgroundUserContext(env, { waitUntil: () => undefined }, user.id, {
      now: () => new Date("2099-12-31T23:00:00Z"),
    });
    await expect(snoozeReminder(lateInTheCentury, reminder.id, { minutes: 120 })).rejects.toMatchObject({
      status: 400,
      details: { field: "minutes" },
    });
    expect((await storedReminder(reminder.id))?.status).toBe("scheduled");
  });
});

describe("snooze reminds later, never earlier", () => {
  it("400 for a scheduled reminder snoozed to before its own time; it stays scheduled", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(2));
    const res = await reminderAction(user, reminder.id, "snooze", { minutes: 30 });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "until", remind_at: reminder.remind_at } });
    expect((await storedReminder(reminder.id))?.status).toBe("scheduled");
  });
});

describe("due times keep their local clock time", () => {
  it("a weekly reminder on Saturday due Sunday 09:00 Paris is due Sunday 09:00 after the change to summer time", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    // Sat 2027-03-27 09:00 Paris (UTC+1) reminds; due Sun 2027-03-28 09:00 Paris (UTC+2, DST began that night).
    const reminder = await createReminder(user, target, "2027-03-27T09:00:00+01:00", {
      timezone: "Europe/Paris",
      due_at: "2027-03-28T09:00:00+02:00",
      recurrence_rule: { preset: "weekly" },
    });
    expect(reminder.due_at).toBe("2027-03-28T07:00:00.000Z");
    const next = await reminderAction(user, reminder.id, "dismiss", { scope: "occurrence" });
    expect(next.body.remind_at).toBe("2027-04-03T07:00:00.000Z");
    expect(next.body.due_at).toBe("2027-04-04T07:00:00.000Z");
  });
});

describe("an app session whose user no longer exists", () => {
  it("creates nothing: 401", async () => {
    const database = await insertBlock({ type: "database", created_by: null, properties: { title: "Shared" } });
    await env.DB.prepare(
      "INSERT INTO database_properties (id, database_id, name, name_key, type, position) VALUES ('due', ?, 'Due', 'due', 'date', 1)",
    )
      .bind(database)
      .run();
    const row = await insertBlock({ type: "database_row", database_id: database, created_by: null });
    const ghost = crypto.randomUUID();
    const token = await signSessionToken({ sub: ghost, exp: Math.floor(Date.now() / 1000) + 60 });
    const res = await api(REMINDERS, {
      method: "POST",
      auth: token,
      body: { target_block_id: row, source_property_id: "due", remind_at: inHours(1).toISOString() },
    });
    expectErrorBody(res, 401);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM reminders WHERE user_id = ?").bind(ghost).first();
    expect(stored).toEqual({ n: 0 });
  });
});

describe("the contract", () => {
  it("documents 409 where a reminder can have ended or a schedule id be taken", async () => {
    const document = await api<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      "/documentation/openapi.json",
    );
    const { paths } = document.body;
    expect(paths["/api/v1/reminders/{reminder_id}"]?.put?.responses).toHaveProperty("409");
    for (const action of ["snooze", "dismiss", "cancel"]) {
      expect(paths[`/api/v1/reminders/{reminder_id}/${action}`]?.post?.responses, action).toHaveProperty("409");
    }
  });
});
