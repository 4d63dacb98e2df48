import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { backgroundUserContext } from "../../../src/lib/context";
import { fireDue } from "../../../src/services/reminders/firing";
import { PUSH_MAX_ATTEMPTS, sendOwedPushes } from "../../../src/services/reminders/push-delivery";
import { queuedFiring } from "../../../src/services/reminders/queue";
import { api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { cronTick } from "../../helpers/cron";
import { FakePushService } from "../../helpers/fake-push-service";
import {
  createReminder,
  inbox,
  NOTIFICATIONS,
  type Notification,
  queueOf,
  type Reminder,
  reminderTarget,
  storedNotifications,
  storedReminder,
} from "../../helpers/reminders";
import type { FakedThirdParties } from "../../helpers/third-party";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Runs the user's queue alarm until nothing due is left (the runtime may also have run it already). */
async function drainQueue(userId: string): Promise<void> {
  for (let runs = 0; runs < 10; runs++) {
    const queue = queueOf(userId);
    const due = (await queue.pending()).filter((firing) => firing.fireAt <= Date.now());
    if (due.length === 0) return;
    await runDurableObjectAlarm(queue);
  }
}

/** A reminder of `user` that came due a moment ago (within the catch-up window), on `channel`. */
async function dueReminder(user: TestUser, extra: Record<string, unknown> = {}): Promise<Reminder> {
  const target = await reminderTarget(user);
  return createReminder(user, target, new Date(Date.now() - 1_000), { channel: "in_app", ...extra });
}

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

describe("firing: the queue's alarm delivers to the inbox", () => {
  it("a due one-off reminder fires once: a notification with the row's title, state fired, nothing left to fire", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user, { due_at: new Date(Date.now() + 60 * MINUTE).toISOString() });
    await drainQueue(user.id);

    const res = await inbox(user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: expect.any(String),
        kind: "reminder",
        reminder_id: reminder.id,
        occurrence: reminder.remind_at,
        target_block_id: reminder.target_block_id,
        title: "Send the invoice",
        body: expect.stringMatching(/^Due .+ \(UTC\)$/),
        channel: "in_app",
        push: null,
        created_at: expect.any(String),
        read_at: null,
      },
    ]);
    const after = await api<Reminder>(`/api/v1/reminders/${reminder.id}`, { auth: user });
    expect(after.body).toMatchObject({ status: "fired", next_fire_at: null, occurrence_count: 1 });
    // Still due (it fired and is not dismissed) until dismissed.
    const due = await api<Reminder[]>("/api/v1/reminders/due", { auth: user });
    expect(due.body.map((r) => r.id)).toEqual([reminder.id]);
    expect(await queueOf(user.id).pending()).toEqual([]);
  });

  it("a repeating reminder fires and its next occurrence is queued in its own time zone", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user, { recurrence_rule: { preset: "daily" }, timezone: "America/New_York" });
    await drainQueue(user.id);
    const after = await api<Reminder>(`/api/v1/reminders/${reminder.id}`, { auth: user });
    expect(after.body).toMatchObject({ status: "fired", remind_at: reminder.remind_at, occurrence_count: 1 });
    const next = Date.parse(after.body.next_fire_at ?? "");
    // A day later in New York wall-clock time: 23, 24 or 25 hours.
    expect([23, 24, 25].map((h) => h * 60 * MINUTE)).toContain(next - Date.parse(reminder.remind_at));
    expect(await queueOf(user.id).pending()).toEqual([queuedFiring(reminder.id, next)]);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
  });

  it("a daily reminder firing on 2099-12-31 completes: its next occurrence would be in 2100, past every instant", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const lastDay = "2099-12-31T12:00:00.000Z";
    const reminder = await createReminder(user, target, lastDay, { recurrence_rule: { preset: "daily" } });
    const ctx = backgroundUserContext(env, { waitUntil: () => undefined }, user.id);
    const firing = queuedFiring(reminder.id, Date.parse(lastDay));
    const outcome = await fireDue(ctx, [firing], Date.parse(lastDay) + 1_000);
    expect(outcome).toMatchObject({ fired: [firing], next: [] });
    expect(await storedReminder(reminder.id)).toMatchObject({
      status: "completed",
      remind_at: lastDay,
      next_fire_at: null,
      occurrence_count: 1,
    });
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
  });

  it("a snoozed reminder fires at snoozed_until, then goes back to its series", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, new Date(Date.now() + DAY), {
      recurrence_rule: { preset: "daily" },
    });
    // Snoozed to a moment ago is refused (400), so the snooze is written to D1 as a snooze that came due.
    const snoozedUntil = Date.now() - 500;
    await env.DB.prepare(
      "UPDATE reminders SET status = 'snoozed', snoozed_until = ?, next_fire_at = ?, version = version + 1 WHERE id = ?",
    )
      .bind(new Date(snoozedUntil).toISOString(), snoozedUntil, reminder.id)
      .run();
    await queueOf(user.id).schedule(user.id, [queuedFiring(reminder.id, snoozedUntil)]);
    await drainQueue(user.id);
    const notifications = await storedNotifications(reminder.id);
    expect(notifications.map((n) => n.occurrence)).toEqual([new Date(snoozedUntil).toISOString()]);
    const after = await storedReminder(reminder.id);
    // The occurrence ahead (tomorrow) was not folded into a snooze that fired before it.
    expect(after).toMatchObject({
      status: "scheduled",
      snoozed_until: null,
      remind_at: reminder.remind_at,
      next_fire_at: Date.parse(reminder.remind_at),
    });
  });

  it("a long row title is cut to 200 characters in the notification (a push message is small)", async () => {
    const user = await createUser();
    const target = await reminderTarget(user, "é".repeat(300));
    const reminder = await createReminder(user, target, new Date(Date.now() - 1_000), { channel: "in_app" });
    await drainQueue(user.id);
    const [notification] = await storedNotifications(reminder.id);
    expect([...(notification?.title ?? "")]).toHaveLength(200);
    expect(notification?.title.endsWith("…")).toBe(true);
  });

  it("a reminder whose row is in the trash when it comes due delivers nothing: a one-off ends cancelled", async () => {
    const user = await createUser();
    const target = await reminderTarget(user, "Secret plan");
    const reminder = await createReminder(user, target, new Date(Date.now() + 60 * MINUTE), { channel: "in_app" });
    const daily = await createReminder(user, target, new Date(Date.now() + 60 * MINUTE), {
      channel: "in_app",
      recurrence_rule: { preset: "daily" },
    });
    expect((await api(`/api/v1/blocks/${target.rowId}/trash`, { method: "POST", auth: user })).status).toBe(200);
    // Both come due now.
    for (const id of [reminder.id, daily.id]) {
      const due = Date.now() - 1_000;
      await env.DB.prepare("UPDATE reminders SET remind_at = ?, next_fire_at = ?, version = version + 1 WHERE id = ?")
        .bind(new Date(due).toISOString(), due, id)
        .run();
      await queueOf(user.id).schedule(user.id, [queuedFiring(id, due)]);
    }
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toEqual([]);
    expect(await storedNotifications(daily.id)).toEqual([]);
    expect(await storedReminder(reminder.id)).toMatchObject({
      status: "cancelled",
      next_fire_at: null,
      occurrence_count: 0,
    });
    const series = await storedReminder(daily.id);
    expect(series).toMatchObject({ status: "scheduled", occurrence_count: 0 });
    expect(Number(series?.next_fire_at)).toBeGreaterThan(Date.now());
  });

  it("a reminder whose date property was removed delivers nothing", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, new Date(Date.now() + 60 * MINUTE), { channel: "in_app" });
    const removed = await api(`/api/v1/databases/${target.databaseId}/properties/${target.dueId}`, {
      method: "DELETE",
      auth: user,
    });
    expect(removed.status).toBe(200);
    const due = Date.now() - 1_000;
    await env.DB.prepare("UPDATE reminders SET remind_at = ?, next_fire_at = ?, version = version + 1 WHERE id = ?")
      .bind(new Date(due).toISOString(), due, reminder.id)
      .run();
    await queueOf(user.id).schedule(user.id, [queuedFiring(reminder.id, due)]);
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toEqual([]);
    expect((await storedReminder(reminder.id))?.status).toBe("cancelled");
  });

  it("a firing at an instant the runtime cannot set an alarm for does not stop the queue", async () => {
    const user = await createUser();
    const queue = queueOf(user.id);
    const ancient = Date.UTC(1600, 0, 1);
    await queue.schedule(user.id, [
      { reminderId: "ancient", occurrence: new Date(ancient).toISOString(), fireAt: ancient },
    ]);
    const reminder = await dueReminder(user);
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
    expect(await queue.pending()).toEqual([]);
  });

  it("a reminder cancelled after it was queued does not fire; the queue drops it", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const reminder = await createReminder(user, target, new Date(Date.now() + 200), { channel: "in_app" });
    await api(`/api/v1/reminders/${reminder.id}/cancel`, { method: "POST", auth: user });
    await new Promise((resolve) => setTimeout(resolve, 250));
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toEqual([]);
    expect(await queueOf(user.id).pending()).toEqual([]);
  });
});

describe("firing guarantees: at least once, never twice per (reminder, occurrence)", () => {
  it("overlapping cron ticks and an alarm run twice deliver once", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user);
    await Promise.all([cronTick(), cronTick(), cronTick()]);
    const queue = queueOf(user.id);
    await Promise.all([runDurableObjectAlarm(queue), runDurableObjectAlarm(queue)]);
    await cronTick();
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
    // Handing the fired firing over again (a late sweep) delivers nothing: D1 says it is no longer owed.
    await queue.schedule(user.id, [queuedFiring(reminder.id, Date.parse(reminder.remind_at))]);
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
    expect(await queue.pending()).toEqual([]);
  });

  it("a lost alarm: a due reminder the queue never heard of is handed over by the cron sweep and fires", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user);
    // Forget everything the queue knew (as if the object's storage and alarm were lost).
    await runInDurableObject(queueOf(user.id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      state.storage.sql.exec("DELETE FROM queue");
    });
    expect(await storedNotifications(reminder.id)).toHaveLength(0);
    await cronTick();
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
    expect((await storedReminder(reminder.id))?.status).toBe("fired");
  });

  it("evicted mid-batch: D1 committed the firing but the queue did not record it; the retried alarm does not deliver again", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user, { recurrence_rule: { preset: "daily" } });
    const firing = queuedFiring(reminder.id, Date.parse(reminder.remind_at));
    // The alarm's D1 work, as it ran before the object went away (its own storage untouched).
    const ctx = backgroundUserContext(env, { waitUntil: () => undefined }, user.id);
    const first = await fireDue(ctx, [firing], Date.now());
    expect(first.fired).toEqual([firing]);
    // The queue still holds the firing; its retried alarm finds it already applied.
    await queueOf(user.id).schedule(user.id, [firing]);
    await drainQueue(user.id);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
    expect((await storedReminder(reminder.id))?.occurrence_count).toBe(1);
    // Firing the same (reminder, occurrence) directly again delivers nothing more either.
    const again = await fireDue(ctx, [firing], Date.now());
    expect(again.fired).toEqual([]);
    expect(again.obsolete).toEqual([firing]);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
  });

  it("a firing computed from a reminder that changed before it was written is not applied (retried instead)", async () => {
    const user = await createUser();
    const reminder = await dueReminder(user);
    const firing = queuedFiring(reminder.id, Date.parse(reminder.remind_at));
    await runInDurableObject(queueOf(user.id), (_instance, state) => state.storage.deleteAlarm());
    const ctx = backgroundUserContext(env, { waitUntil: () => undefined }, user.id);
    // Bump the version between the read and the write: run the read, then the write on stale data.
    const batch = env.DB.batch.bind(env.DB);
    let bumped = false;
    const racing = {
      ...ctx,
      db: new Proxy(ctx.db, {}),
    };
    env.DB.batch = async (statements) => {
      if (!bumped && statements.length === 3) {
        bumped = true;
        await env.DB.prepare("UPDATE reminders SET version = version + 1, channel = 'push' WHERE id = ?")
          .bind(reminder.id)
          .run();
      }
      return batch(statements);
    };
    try {
      const outcome = await fireDue(racing, [firing], Date.now());
      expect(outcome.retry).toEqual([firing]);
      expect(outcome.fired).toEqual([]);
    } finally {
      env.DB.batch = batch;
    }
    expect(await storedNotifications(reminder.id)).toHaveLength(0);
    const retried = await fireDue(ctx, [firing], Date.now());
    expect(retried.fired).toEqual([firing]);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
  });

  it("the cron sweep hands over reminders due within the next minutes, not later ones", async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    const soon = await createReminder(user, target, new Date(Date.now() + MINUTE));
    const later = await createReminder(user, target, new Date(Date.now() + 60 * MINUTE));
    await runInDurableObject(queueOf(user.id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      state.storage.sql.exec("DELETE FROM queue");
    });
    await cronTick();
    expect((await queueOf(user.id).pending()).map((f) => f.reminderId)).toEqual([soon.id]);
    expect(later.id).not.toBe(soon.id);
  });
});

describe("Web Push delivery", () => {
  async function pushSetup() {
    const service = new FakePushService({ vapidPublicKey: env.VAPID_PUBLIC_KEY });
    faked = service.install();
    const user = await createUser();
    const subscription = await service.subscribe();
    const registered = await api("/api/v1/push-subscriptions", { method: "POST", auth: user, body: subscription });
    expect(registered.status).toBe(201);
    return { service, user, subscription };
  }

  it("a push reminder is sent once, encrypted to the subscription, and counted on its notification", async () => {
    const { service, user, subscription } = await pushSetup();
    const reminder = await dueReminder(user, { channel: "push" });
    await Promise.all([cronTick(), cronTick()]);
    await drainQueue(user.id);
    await cronTick();
    const pushes = service.delivered(subscription.endpoint);
    expect(pushes).toHaveLength(1);
    expect(pushes[0]?.payload).toMatchObject({
      type: "reminder",
      reminder_id: reminder.id,
      occurrence: reminder.remind_at,
      title: "Send the invoice",
    });
    expect(pushes[0]?.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    const [notification] = (await inbox(user)).body;
    expect(notification).toMatchObject({ channel: "push", push: { pending: 0, sent: 1, failed: 0 } });
  });

  it("a subscription answered 410 is removed; the inbox still has the notification", async () => {
    const { service, user, subscription } = await pushSetup();
    service.respond(subscription.endpoint, 410);
    const reminder = await dueReminder(user, { channel: "push" });
    await drainQueue(user.id);
    expect(service.count(subscription.endpoint)).toBe(1);
    const subscriptions = await api<unknown[]>("/api/v1/push-subscriptions", { auth: user });
    expect(subscriptions.body).toEqual([]);
    expect(await storedNotifications(reminder.id)).toHaveLength(1);
  });

  it("other failures are retried with backoff until sent; after the last attempt the delivery is marked failed", async () => {
    const { service, user, subscription } = await pushSetup();
    service.respond(subscription.endpoint, 500, 429, 201);
    const reminder = await dueReminder(user, { channel: "push" });
    await drainQueue(user.id);
    expect(service.count(subscription.endpoint)).toBe(1);
    const [pending] = (await inbox(user)).body as Notification[];
    expect(pending?.push).toEqual({ pending: 1, sent: 0, failed: 0 });

    const ctx = backgroundUserContext(env, { waitUntil: () => undefined }, user.id);
    // Not yet: the backoff has not run out.
    expect((await sendOwedPushes(ctx, { now: Date.now() })).sent).toBe(0);
    let now = Date.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      now += 3 * 60 * MINUTE;
      await sendOwedPushes(ctx, { now });
    }
    expect(service.delivered(subscription.endpoint)).toHaveLength(1);
    expect(service.count(subscription.endpoint)).toBe(3);
    expect((await inbox(user)).body[0]?.push).toEqual({ pending: 0, sent: 1, failed: 0 });
    expect(reminder.id).toBeTruthy();

    // A subscription that always fails: retried PUSH_MAX_ATTEMPTS times, then marked failed, never dropped silently.
    const failing = await service.subscribe();
    service.respond(failing.endpoint, 503);
    await api("/api/v1/push-subscriptions", { method: "POST", auth: user, body: failing });
    await dueReminder(user, { channel: "push" });
    await drainQueue(user.id);
    for (let attempt = 0; attempt < PUSH_MAX_ATTEMPTS + 2; attempt++) {
      now += 3 * 60 * MINUTE;
      await sendOwedPushes(ctx, { now });
    }
    expect(service.count(failing.endpoint)).toBe(PUSH_MAX_ATTEMPTS);
    const latest = (await inbox(user)).body[0];
    expect(latest?.push).toEqual({ pending: 0, sent: 1, failed: 1 });
  });
});

describe("the inbox", () => {
  it("lists newest first, filters unread, marks read once; another user's notification is a 404", async () => {
    const [user, other] = [await createUser(), await createUser()];
    await dueReminder(user);
    await dueReminder(user);
    await drainQueue(user.id);
    const all = await inbox(user);
    expect(all.body).toHaveLength(2);
    expect(all.headers.get("X-Total-Count")).toBe("2");
    const [first] = all.body;
    if (!first) throw new Error("no notification");

    expectErrorBody(await api(`${NOTIFICATIONS}/${first.id}/read`, { method: "POST", auth: other }), 404);
    expectErrorBody(await api(`${NOTIFICATIONS}/${first.id}/read`, { method: "POST" }), 401);
    expect((await inbox(other)).body).toEqual([]);

    const read = await api<Notification>(`${NOTIFICATIONS}/${first.id}/read`, { method: "POST", auth: user });
    expect(read.status).toBe(200);
    expect(read.body.read_at).not.toBeNull();
    const again = await api<Notification>(`${NOTIFICATIONS}/${first.id}/read`, { method: "POST", auth: user });
    expect(again.body.read_at).toBe(read.body.read_at);

    expect((await inbox(user, "?unread=true")).body).toHaveLength(1);
    expect((await inbox(user, "?unread=false")).body.map((n) => n.id)).toEqual([first.id]);
    expectErrorBody(await inbox(user, "?unread=maybe"), 400);
    expectErrorBody(await api(NOTIFICATIONS), 401);
    expectErrorBody(await api(`${NOTIFICATIONS}/${crypto.randomUUID()}/read`, { method: "POST", auth: user }), 404);
  });
});
