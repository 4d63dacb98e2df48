import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { meterD1, type RoundTripMeter } from "../../src/db/round-trips";
import worker from "../../src/index";
import { ApiError } from "../../src/lib/errors";
import { markingCommits } from "../../src/services/idempotency/commit-marker";
import { IDEMPOTENCY_KEY_TTL_MS } from "../../src/services/idempotency/keys";
import { api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { aiProviders, MODELS } from "../helpers/fake-ai-provider";
import { MEDIA, ORIGIN, PNG_BYTES, storedMediaOf, uploadForm } from "../helpers/media";
import { signSessionToken } from "../helpers/session-token";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";
import { newProviderKey, STREAM } from "../routes/ai/helpers";

// Idempotency-Key on the writes that are not plain JSON (streams, uploads), the commit marker that
// makes a key's write land once, and the sweep of expired keys.

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

const newKey = () => `"${crypto.randomUUID()}"`;

/** Retries `request` while it answers 409 in progress (a stream's response is recorded once it ends). */
async function onceSettled<T extends { status: number; body: unknown }>(request: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const res = await request();
    if (!(res.status === 409 && (res.body as { code?: string }).code === "idempotency_in_progress")) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the key stayed in progress");
}

describe("an AI stream with an Idempotency-Key", () => {
  it("runs once: a retry replays the recorded events and the provider is called once", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const key = newKey();
    const body = { model: MODELS.openai, prompt: "Write a haiku", apiKey: newProviderKey() };
    const send = () =>
      api<string>(STREAM("openai"), { method: "POST", auth: user, body, headers: { "Idempotency-Key": key } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toContain("text/event-stream");
    expect(first.body).toContain("event: done");

    const replay = await onceSettled(send);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.headers.get("Content-Type")).toBe(first.headers.get("Content-Type"));
    expect(replay.body).toBe(first.body);
    expect(faked.requests).toHaveLength(1);
  });
});

describe("a multipart upload with an Idempotency-Key", () => {
  it("stores one file: a retry of the same bytes replays the record", async () => {
    const user = await createUser();
    const key = newKey();
    // A retry sends the same bytes: the same multipart body, boundary included.
    const form = new Response(uploadForm({ bytes: PNG_BYTES, filename: "once.png" }));
    const contentType = form.headers.get("Content-Type") ?? "";
    const bytes = new Uint8Array(await form.arrayBuffer());
    const send = async () => {
      const response = await fetchWorker(`${MEDIA}/upload`, user, bytes, {
        "Content-Type": contentType,
        "Idempotency-Key": key,
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    const first = await send();
    expect(first.status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(await storedMediaOf(user.id)).toHaveLength(1);
  });

  it("a retry as clients send one, its form built again with a new boundary, replays too; another file is another request", async () => {
    const user = await createUser();
    const key = newKey();
    const send = (filename: string) =>
      fetchWorker(`${MEDIA}/upload`, user, uploadForm({ bytes: PNG_BYTES, filename }), { "Idempotency-Key": key });
    const first = await send("twice.png");
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const replay = await send("twice.png");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(firstBody);
    expect(await storedMediaOf(user.id)).toHaveLength(1);

    const other = await send("another.png");
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: "idempotency_key_reused" });
  });
});

function fetchWorker(path: string, user: TestUser, body: BodyInit, headers: Record<string, string>) {
  return SELF.fetch(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${user.key}`, ...headers },
    body,
  });
}

describe("the commit marker", () => {
  async function holdKey(user: TestUser, token: string) {
    const key = crypto.randomUUID();
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO idempotency_keys (user_id, idempotency_key, method, path, body_sha256, token, created_at, expires_at, locked_until)
       VALUES (?, ?, 'POST', '/x', 'sha', ?, ?, ?, ?)`,
    )
      .bind(user.id, key, token, now, now + IDEMPOTENCY_KEY_TTL_MS, now + 60_000)
      .run();
    return { userId: user.id, key, token };
  }
  const committedAt = (user: TestUser) =>
    env.DB.prepare("SELECT committed_at FROM idempotency_keys WHERE user_id = ?").bind(user.id).first("committed_at");
  const renamed = (user: TestUser) =>
    env.DB.prepare("SELECT name FROM users WHERE id = ?").bind(user.id).first<string | null>("name");

  it("marks the key in the write's own round trip, a lone write statement included, and leaves reads alone", async () => {
    const user = await createUser();
    const attempt = await holdKey(user, "mine");
    const meter: RoundTripMeter = { count: 0, milliseconds: 0 };
    const { d1, state } = markingCommits(meterD1(env.DB, meter), attempt, () => new Date());
    expect(await d1.prepare("SELECT 1 AS one").first("one")).toBe(1);
    expect(state.landed).toBe(false);
    expect(await committedAt(user)).toBeNull();

    const result = await d1.prepare("UPDATE users SET name = 'once' WHERE id = ?").bind(user.id).run();
    expect(result.meta.changes).toBe(1);
    expect(meter.count).toBe(2);
    expect(state.landed).toBe(true);
    expect(await committedAt(user)).not.toBeNull();
  });

  it("refuses, and undoes, the write of an attempt whose key another attempt took over", async () => {
    const user = await createUser();
    const attempt = await holdKey(user, "stale attempt");
    const { d1, state } = markingCommits(env.DB, attempt, () => new Date());
    await env.DB.prepare("UPDATE idempotency_keys SET token = 'the retry' WHERE user_id = ?").bind(user.id).run();

    const write = d1.batch([d1.prepare("UPDATE users SET name = 'twice' WHERE id = ?").bind(user.id)]);
    await expect(write).rejects.toBeInstanceOf(ApiError);
    await expect(write).rejects.toMatchObject({ code: "idempotency_in_progress" });
    expect(state).toEqual({ landed: false, failed: true });
    expect(await renamed(user)).toBeNull();
    expect(await committedAt(user)).toBeNull();
  });

  it("rethrows a failure of the work itself as it was", async () => {
    const user = await createUser();
    const { d1 } = markingCommits(env.DB, await holdKey(user, "mine"), () => new Date());
    await expect(
      d1.prepare("INSERT INTO users (id, email) VALUES (?, ?)").bind(user.id, "x@y.z").run(),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await committedAt(user)).toBeNull();
  });
});

describe("the Cron Trigger", () => {
  it("sweeps expired keys and keeps live ones", async () => {
    const user = await createUser();
    for (const [title, age] of [
      ["Expired", IDEMPOTENCY_KEY_TTL_MS + 1000],
      ["Live", 0],
    ] as const) {
      const res = await api("/api/v1/pages", {
        method: "POST",
        auth: user,
        headers: { "Idempotency-Key": `"${title}"` },
        body: { title },
      });
      expect(res.status).toBe(201);
      const created = Date.now() - age;
      await env.DB.prepare(
        "UPDATE idempotency_keys SET created_at = ?, expires_at = ? WHERE user_id = ? AND idempotency_key = ?",
      )
        .bind(created, created + IDEMPOTENCY_KEY_TTL_MS, user.id, title)
        .run();
    }
    const execution = createExecutionContext();
    await worker.scheduled?.(
      createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
      env,
      execution,
    );
    await waitOnExecutionContext(execution);
    const kept = await env.DB.prepare("SELECT idempotency_key FROM idempotency_keys WHERE user_id = ?")
      .bind(user.id)
      .all();
    expect(kept.results.map((row) => row.idempotency_key)).toEqual(["Live"]);
  });
});

describe("a keyed write whose body is not JSON", () => {
  it("is a 400 malformed_json as without a key, and frees its key", async () => {
    const user = await createUser();
    const res = await api("/api/v1/pages", {
      method: "POST",
      auth: user,
      headers: { "Idempotency-Key": '"malformed"' },
      body: "{",
    });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "malformed_json" });
    const rows = await env.DB.prepare("SELECT 1 FROM idempotency_keys WHERE user_id = ?").bind(user.id).all();
    expect(rows.results).toEqual([]);
  });
});

describe("a new API key made with an Idempotency-Key", () => {
  it("is made once and its raw value never stored: a retry is a 409 idempotency_replay_unavailable", async () => {
    const user = await createUser();
    const session = await signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 600 });
    const key = newKey();
    const send = () =>
      api<{ key: string }>("/api/v1/api-keys", {
        method: "POST",
        auth: session,
        headers: { "Idempotency-Key": key },
        body: { name: "Shown once" },
      });
    const first = await send();
    expect(first.status).toBe(201);
    const retry = await send();
    expectErrorBody(retry, 409);
    expect(retry.body).toMatchObject({ code: "idempotency_replay_unavailable", details: { write_committed: true } });
    const keys = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ? AND name = 'Shown once'")
      .bind(user.id)
      .first("n");
    expect(keys).toBe(1);
    const stored = await env.DB.prepare("SELECT * FROM idempotency_keys WHERE user_id = ?").bind(user.id).all();
    expect(JSON.stringify(stored.results)).not.toContain(first.body.key);
  });
});
