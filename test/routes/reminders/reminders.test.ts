import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { ISO_DATE_TIME, UUID } from "../../helpers/blocks";
import {
  createReminder,
  postReminder,
  queueOf,
  REMINDERS,
  type Reminder,
  reminderAction,
  reminderBody,
  reminderTarget,
  storedReminder,
} from "../../helpers/reminders";

const HOUR = 3_600_000;
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR);

/** A user with a reminder target and one reminder an hour from now. */
async function ownerWithReminder(owner: TestUser) {
  const target = await reminderTarget(owner);
  return createReminder(owner, target, inHours(1));
}
const readReminder = async (owner: TestUser, reminder: { id: string }) =>
  (await storedReminder(reminder.id)) ?? (await api(`${REMINDERS}/${reminder.id}`, { auth: owner })).body;

describeAuthMatrix({ name: "GET /api/v1/reminders", method: "GET", path: () => REMINDERS });
describeAuthMatrix({ name: "GET /api/v1/reminders/due", method: "GET", path: () => `${REMINDERS}/due` });
describeAuthMatrix({
  name: "POST /api/v1/reminders",
  method: "POST",
  path: () => REMINDERS,
  body: {
    target_block_id: "00000000-0000-4000-8000-000000000000",
    source_property_id: "due",
    remind_at: "2030-01-01T09:00:00Z",
  },
});
for (const [name, method, suffix, body] of [
  ["GET /api/v1/reminders/{id}", "GET", "", undefined],
  ["PUT /api/v1/reminders/{id}", "PUT", "", { channel: "push" }],
  ["POST /api/v1/reminders/{id}/snooze", "POST", "/snooze", { minutes: 10 }],
  ["POST /api/v1/reminders/{id}/dismiss", "POST", "/dismiss", { scope: "series" }],
  ["POST /api/v1/reminders/{id}/cancel", "POST", "/cancel", undefined],
] as const) {
  describeAuthMatrix({
    name,
    method,
    path: (id) => `${REMINDERS}/${id}${suffix}`,
    body,
    setup: ownerWithReminder,
    readBack: readReminder,
  });
}

describe("POST /api/v1/reminders", () => {
  it("creates a reminder on a row's date property: 201 with the whole record, queued in the user's Durable Object", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const remindAt = inHours(2);
    const res = await postReminder(
      user,
      reminderBody(target, remindAt, {
        due_at: new Date(remindAt.getTime() + HOUR).toISOString(),
        timezone: "Europe/Paris",
        channel: "push",
        recurrence_rule: { version: 1, preset: "none" },
        metadata: { version: 1, source: "database_date_property", schedule_id: "s1", reminder_offset: "1_hour_before" },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      target_block_id: target.rowId,
      source_property_id: target.dueId,
      remind_at: remindAt.toISOString(),
      due_at: new Date(remindAt.getTime() + HOUR).toISOString(),
      timezone: "Europe/Paris",
      channel: "push",
      recurrence_rule: { version: 1, preset: "none" },
      metadata: { version: 1, source: "database_date_property", schedule_id: "s1", reminder_offset: "1_hour_before" },
      status: "scheduled",
      next_fire_at: remindAt.toISOString(),
      snoozed_until: null,
      occurrence_count: 0,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: res.body.created_at,
    });
    expect(res.queryRoundTrips).toBe(1);
    const pending = await queueOf(user.id).pending();
    expect(pending).toEqual([
      { reminderId: res.body.id, occurrence: remindAt.toISOString(), fireAt: remindAt.getTime() },
    ]);
  });

  it("defaults: timezone UTC, channel push, no rule, empty metadata; remind_at with an offset is stored in UTC", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const res = await postReminder(user, {
      target_block_id: target.rowId,
      source_property_id: target.dueId,
      remind_at: "2030-03-01T09:00:00+02:00",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      timezone: "UTC",
      channel: "push",
      recurrence_rule: null,
      metadata: {},
      due_at: null,
      remind_at: "2030-03-01T07:00:00.000Z",
    });
  });

  it("a repeating reminder starts at its first occurrence from now, in its own time zone", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    // Daily at 09:00 Paris time, anchored years ago: the current occurrence is the next 09:00 Paris.
    const res = await postReminder(
      user,
      reminderBody(target, "2020-01-06T08:00:00Z", {
        timezone: "Europe/Paris",
        recurrence_rule: { version: 1, preset: "daily", end_type: "never" },
      }),
    );
    expect(res.status).toBe(201);
    const next = new Date(res.body.remind_at);
    expect(next.getTime()).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    const parisTime = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Europe/Paris",
      hour: "2-digit",
      minute: "2-digit",
    }).format(next);
    expect(parisTime).toBe("09:00");
    expect(res.body.next_fire_at).toBe(res.body.remind_at);
  });

  it("a repeating series that has already ended is created completed, with nothing to fire", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const res = await postReminder(
      user,
      reminderBody(target, "2020-01-06T08:00:00Z", {
        recurrence_rule: { preset: "daily", end_type: "after_count", end_count: 3 },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "completed", next_fire_at: null });
  });

  it("one reminder per schedule id: a second create updates it (200) and a re-sent schedule keeps its state", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const body = reminderBody(target, inHours(-0.1), { metadata: { schedule_id: "sched-A" } });
    const first = await postReminder(user, body);
    expect(first.status).toBe(201);
    const snoozed = await reminderAction(user, first.body.id, "snooze", { minutes: 30 });
    expect(snoozed.body.status).toBe("snoozed");

    const again = await postReminder(user, { ...body, channel: "push" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, channel: "push", status: "snoozed" });

    const later = inHours(5).toISOString();
    const moved = await postReminder(user, { ...body, remind_at: later });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: first.body.id,
      status: "scheduled",
      remind_at: later,
      next_fire_at: later,
      snoozed_until: null,
    });

    const list = await api<Reminder[]>(`${REMINDERS}?target_block_id=${target.rowId}`, { auth: user });
    expect(list.body).toHaveLength(1);
  });

  it("two racing creates with the same schedule id make one reminder", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const body = reminderBody(target, inHours(1), { metadata: { schedule_id: "race" } });
    const results = await Promise.all(Array.from({ length: 8 }, () => postReminder(user, body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const list = await api<Reminder[]>(REMINDERS, { auth: user });
    expect(list.body).toHaveLength(1);
  });

  it("the same schedule id of another user makes a new reminder", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const target = await reminderTarget(user);
    const body = reminderBody(target, inHours(1), { metadata: { schedule_id: "shared" } });
    expect((await postReminder(user, body)).status).toBe(201);
    const otherTarget = await reminderTarget(other);
    expect(
      (await postReminder(other, reminderBody(otherTarget, inHours(1), { metadata: { schedule_id: "shared" } })))
        .status,
    ).toBe(201);
  });

  it("404 for a target row the caller cannot see, or that is not a row; nothing stored", async () => {
    const [user, intruder] = [await createUser(), await createUser()];
    const target = await reminderTarget(user);
    const res = await postReminder(intruder, reminderBody(target, inHours(1)));
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ code: "not_found", details: { field: "target_block_id" } });
    const notARow = await postReminder(user, reminderBody({ ...target, rowId: target.databaseId }, inHours(1)));
    expectErrorBody(notARow, 404);
    expect((await api<Reminder[]>(REMINDERS, { auth: user })).body).toEqual([]);
  });

  it("400 when source_property_id is not a date property of the row's database", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const wrongType = await postReminder(
      user,
      reminderBody(target, inHours(1), { source_property_id: target.priorityId }),
    );
    expectErrorBody(wrongType, 400);
    expect(wrongType.body).toMatchObject({ details: { field: "source_property_id" } });
    const unknown = await postReminder(user, reminderBody(target, inHours(1), { source_property_id: "nope" }));
    expectErrorBody(unknown, 400);
  });

  it.each([
    ["an unknown time zone", { timezone: "Mars/Olympus" }, "timezone"],
    ["remind_at not a date-time", { remind_at: "tomorrow" }, "remind_at"],
    ["remind_at without an offset", { remind_at: "2030-01-01T09:00:00" }, "remind_at"],
    ["due_at not a date-time", { due_at: "2030-13-01T00:00:00Z" }, "due_at"],
    ["an unknown channel", { channel: "sms" }, "channel"],
    ["an unknown preset", { recurrence_rule: { preset: "hourly" } }, "recurrence_rule"],
    ["weekly_on_days without days", { recurrence_rule: { preset: "weekly_on_days" } }, "recurrence_rule"],
    ["custom without a unit", { recurrence_rule: { preset: "custom", interval: 2 } }, "recurrence_rule"],
    [
      "after_count without a count",
      { recurrence_rule: { preset: "daily", end_type: "after_count" } },
      "recurrence_rule",
    ],
    [
      "a day of week out of range",
      { recurrence_rule: { preset: "weekly_on_days", days_of_week: [7] } },
      "recurrence_rule",
    ],
    ["an unknown field", { colour: "red" }, ""],
    ["metadata not an object", { metadata: "x" }, "metadata"],
    ["a schedule id not a string", { metadata: { schedule_id: 5 } }, "metadata"],
    ["metadata over 4 KiB", { metadata: { note: "x".repeat(5000) } }, "metadata"],
  ])("400 for %s, nothing stored", async (_name, extra, field) => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const res = await postReminder(user, reminderBody(target, inHours(1), extra));
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
    expect(JSON.stringify(res.body)).toContain(field);
    expect((await api<Reminder[]>(REMINDERS, { auth: user })).body).toEqual([]);
  });

  it.each([
    ["no body", undefined],
    ["missing target_block_id", { source_property_id: "x", remind_at: "2030-01-01T00:00:00Z" }],
    ["missing remind_at", { target_block_id: "x", source_property_id: "x" }],
    ["malformed JSON", "{"],
  ])("400 for %s", async (_name, body) => {
    const user = await createUser();
    expectErrorBody(await postReminder(user, body), 400);
  });
});

describe("GET /api/v1/reminders and /due", () => {
  it("lists the caller's own reminders by remind_at, filtered by status, target and window, paginated", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const target = await reminderTarget(user);
    const second = await reminderTarget(user, "Second row");
    const a = await createReminder(user, target, inHours(3));
    const b = await createReminder(user, target, inHours(1));
    const c = await createReminder(user, second, inHours(2));
    await reminderAction(user, c.id, "cancel");
    await ownerWithReminder(other);

    const all = await api<Reminder[]>(REMINDERS, { auth: user });
    expect(all.status).toBe(200);
    expect(all.body.map((r) => r.id)).toEqual([b.id, c.id, a.id]);
    expect(all.headers.get("X-Total-Count")).toBe("3");

    const cancelled = await api<Reminder[]>(`${REMINDERS}?status=cancelled`, { auth: user });
    expect(cancelled.body.map((r) => r.id)).toEqual([c.id]);
    const onTarget = await api<Reminder[]>(`${REMINDERS}?target_block_id=${target.rowId}`, { auth: user });
    expect(onTarget.body.map((r) => r.id)).toEqual([b.id, a.id]);
    const window = await api<Reminder[]>(
      `${REMINDERS}?from=${encodeURIComponent(inHours(1.5).toISOString())}&to=${encodeURIComponent(inHours(2.5).toISOString())}`,
      { auth: user },
    );
    expect(window.body.map((r) => r.id)).toEqual([c.id]);
    const page = await api<Reminder[]>(`${REMINDERS}?limit=2&offset=1`, { auth: user });
    expect(page.body.map((r) => r.id)).toEqual([c.id, a.id]);
  });

  it.each([["status=unknown"], ["from=yesterday"], ["to=2030-01-01"], ["limit=0"]])("400 for ?%s", async (query) => {
    const user = await createUser();
    expectErrorBody(await api(`${REMINDERS}?${query}`, { auth: user }), 400);
  });

  it("due: reminders whose time has come by `before`, not snoozed past it, not ended", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const past = await createReminder(user, target, inHours(-2));
    const soon = await createReminder(user, target, inHours(1));
    const snoozed = await createReminder(user, target, inHours(-1));
    await reminderAction(user, snoozed.id, "snooze", { minutes: 120 });
    const cancelled = await createReminder(user, target, inHours(-3));
    await reminderAction(user, cancelled.id, "cancel");

    const now = await api<Reminder[]>(`${REMINDERS}/due`, { auth: user });
    expect(now.status).toBe(200);
    expect(now.body.map((r) => r.id)).toEqual([past.id]);

    const later = await api<Reminder[]>(`${REMINDERS}/due?before=${encodeURIComponent(inHours(3).toISOString())}`, {
      auth: user,
    });
    expect(later.body.map((r) => r.id)).toEqual([past.id, snoozed.id, soon.id]);
    expectErrorBody(await api(`${REMINDERS}/due?before=soon`, { auth: user }), 400);
  });
});

describe("PUT /api/v1/reminders/{id}", () => {
  it("changes the given fields; a new remind_at reschedules and reaches the queue", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const remindAt = inHours(1);
    const reminder = await createReminder(user, target, remindAt, {
      due_at: new Date(remindAt.getTime() + HOUR).toISOString(),
    });
    const res = await api<Reminder>(`${REMINDERS}/${reminder.id}`, {
      method: "PUT",
      auth: user,
      body: { remind_at: inHours(4).toISOString(), channel: "push" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: reminder.id,
      channel: "push",
      status: "scheduled",
      remind_at: res.body.next_fire_at,
    });
    // The due time keeps its distance from the reminder time.
    expect(Date.parse(res.body.due_at ?? "") - Date.parse(res.body.remind_at)).toBe(HOUR);
    const occurrences = (await queueOf(user.id).pending()).map((f) => f.occurrence);
    expect(occurrences).toContain(res.body.remind_at);
  });

  it("keeps the state when only other fields change", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(-0.5));
    await reminderAction(user, reminder.id, "snooze", { minutes: 10 });
    const res = await api<Reminder>(`${REMINDERS}/${reminder.id}`, {
      method: "PUT",
      auth: user,
      body: { metadata: { note: "x" } },
    });
    expect(res.body).toMatchObject({ status: "snoozed", metadata: { note: "x" } });
  });

  it("400 for an empty body, a bad field, or a non-date property; 404 for a target the caller cannot see", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    const put = (body: unknown) => api(`${REMINDERS}/${reminder.id}`, { method: "PUT", auth: user, body });
    expectErrorBody(await put({}), 400);
    expectErrorBody(await put({ timezone: "Nowhere/Land" }), 400);
    expectErrorBody(await put({ source_property_id: target.priorityId }), 400);
    const othersRow = await reminderTarget(other);
    expectErrorBody(await put({ target_block_id: othersRow.rowId }), 404);
    expect((await storedReminder(reminder.id))?.source_property_id).toBe(target.dueId);
  });

  it("409 for a cancelled reminder, and for a schedule id another reminder has", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const a = await createReminder(user, target, inHours(1), { metadata: { schedule_id: "a" } });
    const b = await createReminder(user, target, inHours(1), { metadata: { schedule_id: "b" } });
    const taken = await api(`${REMINDERS}/${b.id}`, {
      method: "PUT",
      auth: user,
      body: { metadata: { schedule_id: "a" } },
    });
    expectErrorBody(taken, 409);
    await reminderAction(user, a.id, "cancel");
    const ended = await api(`${REMINDERS}/${a.id}`, { method: "PUT", auth: user, body: { channel: "push" } });
    expectErrorBody(ended, 409);
    expect(ended.body).toMatchObject({ details: { status: "cancelled" } });
  });
});

describe("snooze, dismiss, cancel", () => {
  it("snooze by minutes or until: state snoozed, next_fire_at moved, queued", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(-0.1));
    const before = Date.now();
    const byMinutes = await reminderAction(user, reminder.id, "snooze", { minutes: 15 });
    expect(byMinutes.status).toBe(200);
    expect(byMinutes.body.status).toBe("snoozed");
    expect(Date.parse(byMinutes.body.snoozed_until ?? "")).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(byMinutes.body.next_fire_at).toBe(byMinutes.body.snoozed_until);
    expect(byMinutes.body.remind_at).toBe(reminder.remind_at);

    const until = inHours(6).toISOString();
    const byUntil = await reminderAction(user, reminder.id, "snooze", { until });
    expect(byUntil.body).toMatchObject({ status: "snoozed", snoozed_until: until, next_fire_at: until });
    expect((await queueOf(user.id).pending()).map((f) => f.occurrence)).toContain(until);
  });

  it.each([
    ["neither field", {}],
    ["both fields", { minutes: 5, until: "2030-01-01T00:00:00Z" }],
    ["until in the past", { until: "2020-01-01T00:00:00Z" }],
    ["zero minutes", { minutes: 0 }],
    ["fractional minutes", { minutes: 1.5 }],
    ["more than a year", { minutes: 600_000 }],
    ["until not a date-time", { until: "later" }],
  ])("snooze: 400 for %s, reminder unchanged", async (_name, body) => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    expectErrorBody(await reminderAction(user, reminder.id, "snooze", body), 400);
    expect((await storedReminder(reminder.id))?.status).toBe("scheduled");
  });

  it("dismiss: a one-off ends dismissed; a repeating one moves to its next occurrence; series ends it", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const once = await createReminder(user, target, inHours(1));
    const dismissed = await reminderAction(user, once.id, "dismiss", { scope: "occurrence" });
    expect(dismissed.body).toMatchObject({ status: "dismissed", next_fire_at: null });
    // Dismissing again answers it as it is.
    expect((await reminderAction(user, once.id, "dismiss", { scope: "occurrence" })).status).toBe(200);

    const daily = await createReminder(user, target, inHours(1), { recurrence_rule: { preset: "daily" } });
    const skipped = await reminderAction(user, daily.id, "dismiss", { scope: "occurrence" });
    expect(skipped.body.status).toBe("scheduled");
    expect(Date.parse(skipped.body.remind_at) - Date.parse(daily.remind_at)).toBe(24 * HOUR);
    expect(skipped.body.next_fire_at).toBe(skipped.body.remind_at);

    const series = await reminderAction(user, daily.id, "dismiss", { scope: "series" });
    expect(series.body).toMatchObject({ status: "dismissed", next_fire_at: null });
  });

  it("dismiss: the last occurrence of a series completes it", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const twice = await createReminder(user, target, inHours(1), {
      recurrence_rule: { preset: "daily", end_type: "after_count", end_count: 2 },
    });
    const first = await reminderAction(user, twice.id, "dismiss", { scope: "occurrence" });
    expect(first.body.status).toBe("scheduled");
    const last = await reminderAction(user, twice.id, "dismiss", { scope: "occurrence" });
    expect(last.body).toMatchObject({ status: "completed", next_fire_at: null });
    expectErrorBody(await reminderAction(user, twice.id, "snooze", { minutes: 5 }), 409);
  });

  it.each([[{ scope: "all" }], [{}], [{ scope: "series", extra: 1 }]])("dismiss: 400 for %j", async (body) => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    expectErrorBody(await reminderAction(user, reminder.id, "dismiss", body), 400);
    expect((await storedReminder(reminder.id))?.status).toBe("scheduled");
  });

  it("cancel: ends the reminder, twice answers it as it is, and an ended reminder cannot be snoozed (409)", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, inHours(1));
    const cancelled = await reminderAction(user, reminder.id, "cancel");
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled", next_fire_at: null });
    expect((await reminderAction(user, reminder.id, "cancel")).body.status).toBe("cancelled");
    const snooze = await reminderAction(user, reminder.id, "snooze", { minutes: 5 });
    expectErrorBody(snooze, 409);
    expect(snooze.body).toMatchObject({ code: "conflict", details: { status: "cancelled" } });
    expectErrorBody(await reminderAction(user, reminder.id, "dismiss", { scope: "occurrence" }), 409);
  });

  it("404 for an unknown reminder id", async () => {
    const user = await createUser();
    expectErrorBody(await reminderAction(user, crypto.randomUUID(), "cancel"), 404);
    expectErrorBody(await api(`${REMINDERS}/${crypto.randomUUID()}`, { auth: user }), 404);
  });
});
