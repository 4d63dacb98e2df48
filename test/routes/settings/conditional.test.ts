import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import {
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  sendWith,
} from "../../helpers/conditional";

const SETTINGS = "/api/v1/settings";

const send = (user: TestUser, method: string, headers: Record<string, string>, body?: unknown) =>
  sendWith<{ quickTaskModel?: string | null }>(user, method, SETTINGS, headers, body);

const storedSettings = (user: TestUser) =>
  env.DB.prepare("SELECT * FROM user_settings WHERE user_id = ?").bind(user.id).first<Record<string, unknown>>();

describe("settings validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag, before any write and after; If-None-Match with it is 304", async () => {
    const user = await createUser();
    await expectConditionalRead(user, SETTINGS);
    expect((await send(user, "PATCH", {}, { quickTaskSkipPreview: true })).status).toBe(200);
    await expectConditionalRead(user, SETTINGS);
  });

  it("PATCH answers the new tag (even twice within a millisecond); a stale If-Match is a 412 and writes nothing", async () => {
    const user = await createUser();
    const defaults = (await send(user, "GET", {})).headers.get("ETag") ?? "";
    const first = await send(user, "PATCH", { "If-Match": defaults }, { quickTaskSkipPreview: true });
    expect(first.status).toBe(200);
    const second = await send(
      user,
      "PATCH",
      { "If-Match": first.headers.get("ETag") ?? "" },
      { quickTaskSkipPreview: true },
    );
    const current = await expectWrittenTag(second, first.headers.get("ETag"), () => send(user, "GET", {}));
    expect(current).not.toBe(defaults);
    const stored = await storedSettings(user);
    for (const stale of [defaults, first.headers.get("ETag") ?? ""]) {
      const res = await send(user, "PATCH", { "If-Match": stale }, { quickTaskSkipPreview: false });
      expectPreconditionFailed(res, current);
    }
    expect(await storedSettings(user)).toEqual(stored);
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored value is the winner's", async () => {
    const user = await createUser();
    await send(user, "PATCH", {}, { quickTaskSkipPreview: true });
    await expectRacingWriters({
      read: () => send(user, "GET", {}),
      write: (tag, value) =>
        send(user, "PATCH", { "If-Match": tag }, { quickTaskProvider: "openai", quickTaskModel: value }),
      stored: async () => (await send(user, "GET", {})).body.quickTaskModel,
    });
  });

  it("the tag changes when a quick task records the built-in Tasks database in the settings", async () => {
    const user = await createUser();
    expect((await send(user, "PATCH", {}, { quickTaskSkipPreview: true })).status).toBe(200);
    const before = (await send(user, "GET", {})).headers.get("ETag") ?? "";
    const task = await api("/api/v1/tasks/from-natural-language", {
      method: "POST",
      auth: user,
      body: { text: "Pay rent tomorrow", timezone: "Europe/Berlin", reference_at: "2026-03-02T10:00:00+01:00" },
    });
    expect(task.status).toBe(201);
    const after = await api<{ quickTaskTemplateDatabaseId: string | null }>(SETTINGS, {
      auth: user,
      headers: { "If-None-Match": before },
    });
    expect(after.status).toBe(200);
    expect(after.body.quickTaskTemplateDatabaseId).not.toBeNull();
    expect(after.headers.get("ETag")).not.toBe(before);
  });

  it("If-Match: * and no credentials", async () => {
    const user = await createUser();
    expect((await send(user, "PATCH", { "If-Match": "*" }, { quickTaskSkipPreview: true })).status).toBe(200);
    expect((await api(SETTINGS, { headers: { "If-None-Match": "*" } })).status).toBe(401);
  });
});
