import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const queueFor = (userId: string) => env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(userId));

describe("ReminderQueue durable object", () => {
  it("keeps firings ordered by time and arms its alarm for the earliest", async () => {
    const queue = queueFor(crypto.randomUUID());
    const soon = Date.now() + 60_000;
    await queue.schedule([
      { reminderId: "r2", occurrence: "2026-01-02T09:00:00.000Z", fireAt: soon + 5_000 },
      { reminderId: "r1", occurrence: "2026-01-01T09:00:00.000Z", fireAt: soon },
    ]);
    expect((await queue.pending()).map((f) => f.reminderId)).toEqual(["r1", "r2"]);
    const alarm = await runInDurableObject(queue, (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBe(soon);
  });

  it("fires due firings once: a firing handed over again after it fired is ignored", async () => {
    const queue = queueFor(crypto.randomUUID());
    const due = { reminderId: "r1", occurrence: "2026-01-01T09:00:00.000Z", fireAt: Date.now() - 1_000 };
    const later = { reminderId: "r2", occurrence: "2026-01-01T10:00:00.000Z", fireAt: Date.now() + 3_600_000 };
    expect(await queue.schedule([due, later])).toBe(2);

    expect(await runDurableObjectAlarm(queue)).toBe(true);
    expect(await queue.firedCount()).toBe(1);
    expect((await queue.pending()).map((f) => f.reminderId)).toEqual(["r2"]);

    // The cron sweep may hand the same firing over again: it must not fire twice.
    expect(await queue.schedule([due])).toBe(0);
    await runDurableObjectAlarm(queue);
    expect(await queue.firedCount()).toBe(1);
  });

  it("clears its alarm when nothing is left to fire", async () => {
    const queue = queueFor(crypto.randomUUID());
    await queue.schedule([{ reminderId: "r1", occurrence: "o1", fireAt: Date.now() - 1 }]);
    await runDurableObjectAlarm(queue);
    const alarm = await runInDurableObject(queue, (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBeNull();
  });
});
