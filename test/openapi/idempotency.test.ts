import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueSessionToken } from "../../src/auth/sessions";
import { IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENCY_LOCK_MS } from "../../src/services/idempotency/keys";
import { type ApiResponse, api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";

// Idempotency-Key on writes (draft-ietf-httpapi-idempotency-key-header): replay, reuse, concurrent
// retries, users, expiry, malformed keys, and what a refused request does to its key.

const PAGES = "/api/v1/pages";
const newKey = () => `"${crypto.randomUUID()}"`;

const createPageWith = (user: TestUser, key: string, title: string, extra: Record<string, string> = {}) =>
  api<{ id: string; title: string }>(PAGES, {
    method: "POST",
    auth: user,
    headers: { "Idempotency-Key": key, ...extra },
    body: { title, content: [{ type: "paragraph", children: [{ text: "Once" }] }] },
  });

/** The user's pages (not archived, trashed or not) titled `title`, counted in D1. */
const pagesTitled = async (user: TestUser, title: string) =>
  Number(
    await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM blocks WHERE created_by = ? AND type = 'page' AND json_extract(properties, '$.title') = ?",
    )
      .bind(user.id, title)
      .first("n"),
  );

const keyRows = (user: TestUser) =>
  env.DB.prepare("SELECT * FROM idempotency_keys WHERE user_id = ?").bind(user.id).all<Record<string, unknown>>();

/** The headers a replay must give back as the first response had them. */
const REPLAYED = ["Content-Type", "Location", "ETag", "X-Next-Cursor"];

function expectSameResponse(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.body).toEqual(first.body);
  for (const name of REPLAYED) expect(replay.headers.get(name), name).toBe(first.headers.get(name));
}

describe("a retry with the same Idempotency-Key", () => {
  it("answers the first response (status, body, headers) with Idempotent-Replayed, and writes nothing", async () => {
    const user = await createUser();
    const key = newKey();
    const first = await createPageWith(user, key, "Once only");
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const replay = await createPageWith(user, key, "Once only");
    expectSameResponse(replay, first);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await pagesTitled(user, "Once only")).toBe(1);
    // The replay's own headers are its own.
    expect(replay.headers.get("X-Request-Id")).not.toBe(first.headers.get("X-Request-Id"));
  });

  it("costs two round trips more than the same request without a key (reserve, record), and a replay one", async () => {
    const user = await createUser();
    await api(PAGES, { auth: user }); // the API key is remembered from here on
    const bare = await api(PAGES, { method: "POST", auth: user, body: { title: "Bare" } });
    const keyed = await createPageWith(user, newKey(), "Keyed");
    expect(bare.status).toBe(201);
    expect(keyed.status).toBe(201);
    expect(keyed.roundTrips).toBe(bare.roundTrips + 2);
    const key = newKey();
    await createPageWith(user, key, "Replayed");
    expect((await createPageWith(user, key, "Replayed")).roundTrips).toBe(1);
  });

  it("is a 422 idempotency_key_reused with another body, path or method, and runs nothing", async () => {
    const user = await createUser();
    const key = newKey();
    const first = await createPageWith(user, key, "First");
    expect(first.status).toBe(201);

    const otherBody = await createPageWith(user, key, "Second");
    expectErrorBody(otherBody, 422);
    expect(otherBody.body).toMatchObject({
      code: "idempotency_key_reused",
      details: { header: "Idempotency-Key", first_request: { method: "POST", path: PAGES } },
    });
    const otherPath = await api("/api/v1/blocks", {
      method: "POST",
      auth: user,
      headers: { "Idempotency-Key": key },
      body: { title: "First", content: [{ type: "paragraph", children: [{ text: "Once" }] }] },
    });
    expect(otherPath.body).toMatchObject({ code: "idempotency_key_reused" });
    const otherMethod = await api(`${PAGES}/${first.body.id}`, {
      method: "DELETE",
      auth: user,
      headers: { "Idempotency-Key": key },
    });
    expect(otherMethod.body).toMatchObject({ code: "idempotency_key_reused" });
    expect(await pagesTitled(user, "Second")).toBe(0);
    expect(await pagesTitled(user, "First")).toBe(1);
  });

  it("under a burst of 20 at once, writes once: every answer is that write's response or a 409 with Retry-After", async () => {
    const user = await createUser();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => createPageWith(user, key, "Burst")));
    expect(await pagesTitled(user, "Burst")).toBe(1);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const [written] = created;
    for (const answer of answers) {
      if (answer.status === 201) {
        expect(answer.body).toEqual(written?.body);
        continue;
      }
      expectErrorBody(answer, 409);
      expect(answer.body).toMatchObject({ code: "idempotency_in_progress" });
      expect(answer.headers.get("Retry-After")).toBe("1");
    }
    // Once settled, a retry answers the write's response.
    const replay = await createPageWith(user, key, "Burst");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(written?.body);
  });

  it("is scoped to the user: another user's identical key is another key", async () => {
    const [ada, bob] = [await createUser(), await createUser()];
    const key = newKey();
    const adas = await createPageWith(ada, key, "Mine");
    const bobs = await createPageWith(bob, key, "Mine");
    expect(adas.status).toBe(201);
    expect(bobs.status).toBe(201);
    expect(bobs.headers.get("Idempotent-Replayed")).toBeNull();
    expect(bobs.body.id).not.toBe(adas.body.id);
    expect((await createPageWith(bob, key, "Mine")).body).toEqual(bobs.body);
    expect(await pagesTitled(ada, "Mine")).toBe(1);
    expect(await pagesTitled(bob, "Mine")).toBe(1);
  });

  it("runs again once the key is older than 24 hours", async () => {
    const user = await createUser();
    const key = newKey();
    expect((await createPageWith(user, key, "Daily")).status).toBe(201);
    const past = Date.now() - IDEMPOTENCY_KEY_TTL_MS - 1000;
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ?, expires_at = ? WHERE user_id = ?")
      .bind(past, past + IDEMPOTENCY_KEY_TTL_MS, user.id)
      .run();
    const again = await createPageWith(user, key, "Daily");
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await pagesTitled(user, "Daily")).toBe(2);
    // The key now stands for the second request, for another 24 hours.
    expect((await createPageWith(user, key, "Daily")).body).toEqual(again.body);
  });
});

describe("the Idempotency-Key header", () => {
  it.each([
    ["unquoted with a comma", "order-42, order-43"],
    ["unquoted with a parameter", "order-42;a=1"],
    ["unquoted with a space inside", "order 42"],
    ["unquoted and 256 characters", "k".repeat(256)],
    ["an empty string", '""'],
    ["256 characters", `"${"k".repeat(256)}"`],
    ["two values", '"a", "b"'],
    ["no closing quote", '"abc'],
    ["a bad escape", '"a\\b"'],
    ["a tab inside", '"a\tb"'],
    ["an empty field", ""],
  ])("is a 400 naming the header when it is %s, before anything is written", async (_name, value) => {
    const user = await createUser();
    const res = await createPageWith(user, value, "Refused key");
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { header: "Idempotency-Key" } });
    expect(await pagesTitled(user, "Refused key")).toBe(0);
    expect((await keyRows(user)).results).toEqual([]);
  });

  it("takes 255 printable characters, escapes and parameters", async () => {
    const user = await createUser();
    for (const value of [`"${"k".repeat(255)}"`, '"a \\"quoted\\" \\\\ key"', '"with-params";a=1;b="x";c;d=?0']) {
      const first = await createPageWith(user, value, `Key ${value}`);
      expect(first.status, value).toBe(201);
      expect((await createPageWith(user, value, `Key ${value}`)).headers.get("Idempotent-Replayed"), value).toBe(
        "true",
      );
    }
    const stored = (await keyRows(user)).results.map((row) => row.idempotency_key);
    expect(stored).toContain('a "quoted" \\ key');
    expect(stored).toContain("with-params");
  });

  it("takes a key sent without quotes, as most clients send it, as the same key as its quoted form", async () => {
    const user = await createUser();
    const uuid = crypto.randomUUID();
    const first = await createPageWith(user, uuid, "Unquoted");
    expect(first.status).toBe(201);
    const quoted = await createPageWith(user, `"${uuid}"`, "Unquoted");
    expect(quoted.status).toBe(201);
    expect(quoted.headers.get("Idempotent-Replayed")).toBe("true");
    expect(quoted.body).toEqual(first.body);
    expect(await pagesTitled(user, "Unquoted")).toBe(1);
    expect((await keyRows(user)).results.map((row) => row.idempotency_key)).toEqual([uuid]);
  });
});

describe("a keyed request that is refused", () => {
  it("frees its key when it fails validation, so the corrected request runs with it", async () => {
    const user = await createUser();
    const key = newKey();
    const refused = await api(PAGES, {
      method: "POST",
      auth: user,
      headers: { "Idempotency-Key": key },
      body: { title: 42 },
    });
    expectErrorBody(refused, 400);
    expect((await keyRows(user)).results).toEqual([]);
    const corrected = await createPageWith(user, key, "Corrected");
    expect(corrected.status).toBe(201);
    expect(await pagesTitled(user, "Corrected")).toBe(1);
  });

  it("frees its key when it wrote nothing (a 404)", async () => {
    const user = await createUser();
    const key = newKey();
    const missing = await api(`${PAGES}/00000000-0000-4000-8000-000000000000`, {
      method: "DELETE",
      auth: user,
      headers: { "Idempotency-Key": key },
    });
    expectErrorBody(missing, 404);
    expect((await keyRows(user)).results).toEqual([]);
  });
});

describe("a key whose first request has not answered", () => {
  /** A row as another attempt left it, for the request `createPageWith(user, key, title)` sends. */
  async function leaveAttempt(user: TestUser, key: string, title: string, state: Record<string, number | null>) {
    const first = await createPageWith(user, key, title);
    await env.DB.prepare(
      "UPDATE idempotency_keys SET token = 'another attempt', recorded_at = NULL, response_status = NULL, response_body = NULL, committed_at = ?, locked_until = ? WHERE user_id = ?",
    )
      .bind(state.committed_at ?? null, state.locked_until ?? 0, user.id)
      .run();
    return first;
  }

  it("is a 409 idempotency_in_progress with Retry-After while it runs, written or not", async () => {
    const user = await createUser();
    for (const committed of [null, Date.now()]) {
      const key = newKey();
      await leaveAttempt(user, key, `Running ${committed}`, {
        committed_at: committed,
        locked_until: Date.now() + IDEMPOTENCY_LOCK_MS,
      });
      const retry = await createPageWith(user, key, `Running ${committed}`);
      expectErrorBody(retry, 409);
      expect(retry.body).toMatchObject({
        code: "idempotency_in_progress",
        details: { write_committed: committed !== null },
      });
      expect(retry.headers.get("Retry-After")).toBe("1");
      expect(await pagesTitled(user, `Running ${committed}`)).toBe(1);
    }
  });

  it("is taken over by a retry once the attempt that wrote nothing let its lock lapse", async () => {
    const user = await createUser();
    const key = newKey();
    // The first request ran here, but its row now reads as an attempt that died before writing.
    await leaveAttempt(user, key, "Taken over", { committed_at: null, locked_until: Date.now() - 1 });
    const retry = await createPageWith(user, key, "Taken over");
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("never runs a write that landed again: past its lock, a 409 idempotency_replay_unavailable", async () => {
    const user = await createUser();
    const key = newKey();
    await leaveAttempt(user, key, "Landed", { committed_at: Date.now() - 120_000, locked_until: Date.now() - 1 });
    const retry = await createPageWith(user, key, "Landed");
    expectErrorBody(retry, 409);
    expect(retry.body).toMatchObject({ code: "idempotency_replay_unavailable", details: { write_committed: true } });
    expect(await pagesTitled(user, "Landed")).toBe(1);
  });
});

describe("requests without an Idempotency-Key", () => {
  it("are served as before: no key stored, no replay header", async () => {
    const user = await createUser();
    const res = await api(PAGES, { method: "POST", auth: user, body: { title: "Plain" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await keyRows(user)).results).toEqual([]);
  });
});

describe("a key sent with a session whose user no longer exists", () => {
  it("is a 401 (the credential names no user), never a 500, and stores nothing", async () => {
    const ghost = `ghost-${crypto.randomUUID()}`;
    const { token } = await issueSessionToken({ env, local: () => false }, ghost, new Date());
    const res = await api(PAGES, {
      method: "POST",
      auth: token,
      headers: { "Idempotency-Key": newKey() },
      body: { title: "Nobody's" },
    });
    expectErrorBody(res, 401);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE user_id = ?")
      .bind(ghost)
      .first<{ n: number }>("n");
    expect(rows).toBe(0);
  });
});
