import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// The queue on its own, with firings of reminders that do not exist in D1: it orders them,
// arms its alarm for the earliest, and on the alarm asks D1, which finds nothing to fire, so
// they are dropped. Firing real reminders: test/services/reminders/firing.test.ts.

const queueFor = (userId: string) => env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(userId));

describe("ReminderQueue durable object", () => {
  it("keeps firings ordered by time, once each, and arms its alarm for the earliest", async () => {
    const user = crypto.randomUUID();
    const queue = queueFor(user);
    const soon = Date.now() + 60_000;
    const r1 = { reminderId: "r1", occurrence: new Date(soon).toISOString(), fireAt: soon };
    const r2 = { reminderId: "r2", occurrence: new Date(soon + 5_000).toISOString(), fireAt: soon + 5_000 };
    expect(await queue.schedule(user, [r2, r1])).toBe(2);
    expect(await queue.schedule(user, [r1])).toBe(0);
    expect((await queue.pending()).map((f) => f.reminderId)).toEqual(["r1", "r2"]);
    const alarm = await runInDurableObject(queue, (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBe(soon);
  });

  it("drops firings D1 no longer wants and clears its alarm when nothing is left", async () => {
    const user = crypto.randomUUID();
    const queue = queueFor(user);
    const due = Date.now() - 1;
    await queue.schedule(user, [{ reminderId: "gone", occurrence: new Date(due).toISOString(), fireAt: due }]);
    await runDurableObjectAlarm(queue);
    expect(await queue.pending()).toEqual([]);
    expect(await queue.firedCount()).toBe(0);
    const alarm = await runInDurableObject(queue, (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBeNull();
  });
});
