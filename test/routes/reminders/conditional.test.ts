import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import {
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  sendWith,
} from "../../helpers/conditional";
import {
  createReminder,
  postReminder,
  REMINDERS,
  reminderBody,
  reminderTarget,
  storedReminder,
} from "../../helpers/reminders";

const send = sendWith<{ metadata?: Record<string, unknown> }>;

const inAnHour = () => new Date(Date.now() + 3_600_000);

describe("reminder validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const reminder = await createReminder(user, await reminderTarget(user), inAnHour());
    await expectConditionalRead(user, `${REMINDERS}/${reminder.id}`);
  });

  it("a creation answers the new reminder's ETag, the one a read of it answers", async () => {
    const user = await createUser();
    const created = await postReminder(user, reminderBody(await reminderTarget(user), inAnHour()));
    expect(created.status).toBe(201);
    await expectWrittenTag(created, null, () => api(`${REMINDERS}/${created.body.id}`, { auth: user }));
  });

  it("every write answers the new tag; a stale If-Match is a 412 with the current tag, on every write, and writes nothing", async () => {
    const user = await createUser();
    const reminder = await createReminder(user, await reminderTarget(user), inAnHour());
    const path = `${REMINDERS}/${reminder.id}`;
    const stale = (await api(path, { auth: user })).headers.get("ETag") ?? "";
    const put = await send(user, "PUT", path, { "If-Match": stale }, { metadata: { note: "v2" } });
    const current = await expectWrittenTag(put, stale, () => api(path, { auth: user }));
    const stored = await storedReminder(reminder.id);
    for (const [method, action, body] of [
      ["PUT", "", { metadata: { note: "clobber" } }],
      ["POST", "/snooze", { minutes: 90 }],
      ["POST", "/dismiss", { scope: "occurrence" }],
      ["POST", "/dismiss", { scope: "series" }],
      ["POST", "/cancel", undefined],
    ] as const) {
      const res = await send(user, method, `${path}${action}`, { "If-Match": stale }, body);
      expectPreconditionFailed(res, current, `${method} ${action}`);
    }
    expect(await storedReminder(reminder.id)).toEqual(stored);
    const snoozed = await send(user, "POST", `${path}/snooze`, { "If-Match": current ?? "" }, { minutes: 90 });
    expect(snoozed.status).toBe(200);
    const cancelled = await send(user, "POST", `${path}/cancel`, { "If-Match": snoozed.headers.get("ETag") ?? "" });
    expect(cancelled.status).toBe(200);
    expect(cancelled.headers.get("ETag")).toBe((await api(path, { auth: user })).headers.get("ETag"));
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored value is the winner's", async () => {
    const user = await createUser();
    const reminder = await createReminder(user, await reminderTarget(user), inAnHour());
    const path = `${REMINDERS}/${reminder.id}`;
    await expectRacingWriters({
      read: () => api(path, { auth: user }),
      write: (tag, value) => send(user, "PUT", path, { "If-Match": tag }, { metadata: { note: value } }),
      stored: async () => (await send(user, "GET", path, {})).body.metadata?.note,
    });
  });

  it("If-Match: * writes while it exists; another user's reminder is a 404 whatever the preconditions", async () => {
    const owner = await createUser();
    const other = await createUser();
    const reminder = await createReminder(owner, await reminderTarget(owner), inAnHour());
    const path = `${REMINDERS}/${reminder.id}`;
    expect((await send(owner, "PUT", path, { "If-Match": "*" }, { metadata: { a: 1 } })).status).toBe(200);
    expect((await send(other, "PUT", path, { "If-Match": '"stale"' }, { metadata: { a: 2 } })).status).toBe(404);
    expect((await send(other, "POST", `${path}/cancel`, { "If-Match": '"stale"' })).status).toBe(404);
    expect((await send(other, "GET", path, { "If-None-Match": "*" })).status).toBe(404);
  });
});
