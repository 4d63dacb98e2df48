import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import readme from "../../../README.md?raw";
import { noteKeyUsed } from "../../../src/auth/key-usage";
import { createContext } from "../../../src/lib/context";
import { MAX_KEYS_PER_USER } from "../../../src/services/api-keys/api-keys";
import { api, createUser, documentedResponses } from "../../helpers/api";
import { MALFORMED_AUTHORIZATION } from "../../helpers/auth-matrix";

interface ApiKey {
  id: string;
  name: string;
  masked_key: string;
  prefix: string;
  last_four: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  expired: boolean;
}
interface CreatedKey extends ApiKey {
  key: string;
}

/** Signs a new user in through the development provider; returns the app-session token and the user id. */
async function signIn(): Promise<{ session: string; userId: string }> {
  const res = await api<{ sessionData: { token: string; user: { id: string } } }>("/auth/complete", {
    method: "POST",
    body: { sessionId: `dev:${crypto.randomUUID()}@example.test` },
  });
  expect(res.status).toBe(200);
  return { session: res.body.sessionData.token, userId: res.body.sessionData.user.id };
}

const createKey = (session: string, body: unknown) =>
  api<CreatedKey>("/api/v1/api-keys", { method: "POST", auth: session, body });

const keyRow = (id: string) => env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(id).first();

/** Waits for work the Worker does after its response (last_used_at). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}

describe("API-key management (app session only)", () => {
  it("create returns the raw key once; the list shows it masked, never a hash or the raw value", async () => {
    const { session, userId } = await signIn();
    const created = await createKey(session, { name: "  Reporting agent  " });
    expect(created.status).toBe(201);
    const key = created.body;
    expect(key.key).toMatch(/^sr_[0-9A-Za-z]{43}$/);
    expect(key).toMatchObject({
      name: "Reporting agent",
      prefix: key.key.slice(0, 7),
      last_four: key.key.slice(-4),
      masked_key: `${key.key.slice(0, 7)}…${key.key.slice(-4)}`,
      scopes: ["read", "write"],
      last_used_at: null,
      expires_at: null,
      expired: false,
    });

    const list = await api<ApiKey[]>("/api/v1/api-keys", { auth: session });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ ...key, key: undefined }].map(({ key: _raw, ...rest }) => rest));
    expect(list.headers.get("X-Total-Count")).toBe("1");
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(((await keyRow(key.id)) as { key_hash: string }).key_hash);

    // The raw key is never stored.
    const row = (await keyRow(key.id)) as Record<string, unknown>;
    expect(Object.values(row)).not.toContain(key.key);
    expect(row.user_id).toBe(userId);
  });

  it("answers that carry a credential are never kept by a cache (Cache-Control: no-store), as the contract says", async () => {
    const signedIn = await api("/auth/complete", {
      method: "POST",
      body: { sessionId: `dev:${crypto.randomUUID()}@example.test` },
    });
    expect(signedIn.status).toBe(200);
    const { session } = await signIn();
    const created = await createKey(session, { name: "cached nowhere" });
    expect(created.status).toBe(201);
    for (const res of [signedIn, created]) expect(res.headers.get("Cache-Control")).toBe("no-store");
    // Answers without a secret keep their usual caching.
    expect((await api("/api/v1/api-keys", { auth: session })).headers.get("Cache-Control")).toBeNull();

    type Headers = Record<string, unknown> | undefined;
    const responses = async (path: string, method = "post") =>
      (await documentedResponses(path, method)) as Record<string, { headers?: Headers } | undefined>;
    for (const [path, status] of <[string, string][]>[
      ["/auth/complete", "200"],
      ["/api/v1/api-keys", "201"],
    ]) {
      expect((await responses(path))[status]?.headers, path).toHaveProperty("Cache-Control");
    }
  });

  it("the whole life cycle: use, rename, revoke, then the key is refused at once", async () => {
    const { session, userId } = await signIn();
    const { body: key } = await createKey(session, { name: "Agent" });

    const first = await api<{ created_by: string }>("/api/v1/blocks", {
      method: "POST",
      auth: key.key,
      body: { type: "page", properties: { title: "Made with a key" } },
    });
    expect(first.status).toBe(201);
    expect(first.body.created_by).toBe(userId);
    // A second request: the lookup is now remembered by this isolate.
    const cached = await api("/api/v1/blocks", { auth: key.key });
    expect(cached.status).toBe(200);
    expect(cached.headers.get("Server-Timing")).toContain("api key from cache");
    expect(cached.roundTrips).toBe(1);

    const renamed = await api<ApiKey>(`/api/v1/api-keys/${key.id}`, {
      method: "PATCH",
      auth: session,
      body: { name: "Nightly agent" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("Nightly agent");

    const revoked = await api(`/api/v1/api-keys/${key.id}`, { method: "DELETE", auth: session });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: "API key revoked" });

    // Refused on the very next request, though this isolate remembers the key; a write stores nothing.
    const read = await api("/api/v1/blocks", { auth: key.key });
    expect(read.status).toBe(401);
    expect(read.headers.get("WWW-Authenticate")).toContain("Bearer");
    const before = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?")
      .bind(userId)
      .first("n");
    const write = await api("/api/v1/blocks", {
      method: "POST",
      auth: key.key,
      body: { type: "page", properties: { title: "After revocation" } },
    });
    expect(write.status).toBe(401);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?").bind(userId).first("n");
    expect(after).toBe(before);
    // Even a request refused before any query (bad input) says 401, not 400.
    const invalid = await api("/api/v1/blocks?limit=abc", { auth: key.key });
    expect(invalid.status).toBe(401);

    expect((await api<ApiKey[]>("/api/v1/api-keys", { auth: session })).body).toEqual([]);
    expect((await api(`/api/v1/api-keys/${key.id}`, { method: "DELETE", auth: session })).status).toBe(404);
    expect(
      (await api(`/api/v1/api-keys/${key.id}`, { method: "PATCH", auth: session, body: { name: "x" } })).status,
    ).toBe(404);
  });

  it("a revoked key that this isolate remembers gets 401, not 403, where a session or another scope is needed", async () => {
    const { session } = await signIn();
    const { body: reader } = await createKey(session, { name: "reader", scopes: ["read"] });
    expect((await api("/api/v1/blocks", { auth: reader.key })).status).toBe(200);
    expect((await api(`/api/v1/api-keys/${reader.id}`, { method: "DELETE", auth: session })).status).toBe(200);

    const write = await api("/api/v1/blocks", { method: "POST", auth: reader.key, body: { type: "page" } });
    expect(write.status).toBe(401);
    expect(JSON.stringify(write.body)).not.toContain("key_scopes");
    const keys = await api("/api/v1/api-keys", { auth: reader.key });
    expect(keys.status).toBe(401);
  });

  it("an expired key is refused, whether its lookup is remembered or not, and listed as expired", async () => {
    const { session } = await signIn();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const { body: key } = await createKey(session, { name: "Short-lived", expires_at: expiresAt });
    expect(key.expires_at).toBe(expiresAt);
    expect((await api("/api/v1/blocks", { auth: key.key })).status).toBe(200);

    // Time passes: the expiry is now behind us.
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), key.id)
      .run();
    const remembered = await api("/api/v1/blocks", { auth: key.key });
    expect(remembered.status).toBe(401);
    expect(remembered.headers.get("Server-Timing")).toContain("api key from cache");

    const listed = await api<ApiKey[]>("/api/v1/api-keys", { auth: session });
    expect(listed.body.map((k) => [k.id, k.expired])).toEqual([[key.id, true]]);
  });

  it("a key that expired before this isolate first saw it is refused by the lookup itself", async () => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, {
      name: "k",
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), key.id)
      .run();
    const res = await api("/api/v1/blocks", { auth: key.key });
    expect(res.status).toBe(401);
    expect(res.headers.get("Server-Timing")).toContain("api key from D1");
  });

  it("a read-only key reads (GET, and POST queries that only read) and gets 403 on a write", async () => {
    const { session } = await signIn();
    const owner = await createKey(session, { name: "full" });
    const reader = await createKey(session, { name: "reader", scopes: ["read"] });
    expect(reader.body.scopes).toEqual(["read"]);
    const database = await api<{ id: string }>("/api/v1/blocks", {
      method: "POST",
      auth: owner.body.key,
      body: { type: "database", properties: { title: "Tasks" } },
    });
    expect(database.status).toBe(201);

    expect((await api("/api/v1/blocks", { auth: reader.body.key })).status).toBe(200);
    expect((await api(`/api/v1/blocks/${database.body.id}`, { auth: reader.body.key })).status).toBe(200);
    const query = await api(`/api/v1/databases/${database.body.id}/query`, {
      method: "POST",
      auth: reader.body.key,
      body: {},
    });
    expect(query.status).toBe(200);

    const write = await api("/api/v1/blocks", {
      method: "POST",
      auth: reader.body.key,
      body: { type: "page", properties: { title: "No" } },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({
      code: "forbidden",
      details: { required_scope: "write", key_scopes: ["read"] },
    });
    // RFC 6750 §3: a token that does not enable access carries the challenge, naming the scope it lacks.
    expect(write.headers.get("WWW-Authenticate")).toBe(
      'Bearer realm="workspace-api", error="insufficient_scope", scope="write"',
    );
    const remove = await api(`/api/v1/blocks/${database.body.id}`, { method: "DELETE", auth: reader.body.key });
    expect(remove.status).toBe(403);
    expect((await api(`/api/v1/blocks/${database.body.id}`, { auth: reader.body.key })).status).toBe(200);
  });

  it("the README names every operation beyond GET and HEAD that a read key may call, as the contract declares them", async () => {
    const { body: contract } = await api<{
      paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
    }>("/documentation/openapi.json");
    const readWrites = Object.entries(contract.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(
          ([method, operation]) =>
            method !== "get" && /lacks the `read` scope/.test(operation.responses["403"]?.description ?? ""),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const sentence =
      /A `read` key may call GET\s+and HEAD([\s\S]*?)[Aa]nything else answers 403/.exec(readme)?.[1] ?? "";
    const named = [...sentence.matchAll(/`(POST|PUT|PATCH|DELETE) (\S+)`/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    expect(named.sort()).toEqual(readWrites.sort());
  });

  it("a write-only key cannot read", async () => {
    const { session } = await signIn();
    const writer = await createKey(session, { name: "writer", scopes: ["write"] });
    const read = await api("/api/v1/blocks", { auth: writer.body.key });
    expect(read.status).toBe(403);
    expect(read.headers.get("WWW-Authenticate")).toBe(
      'Bearer realm="workspace-api", error="insufficient_scope", scope="read"',
    );
    const created = await api("/api/v1/blocks", {
      method: "POST",
      auth: writer.body.key,
      body: { type: "page", properties: { title: "Write only" } },
    });
    expect(created.status).toBe(201);
  });

  it("refuses every key route called with an API key (403), even the caller's own", async () => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, { name: "k" });
    const calls: [string, string, unknown?][] = [
      ["GET", "/api/v1/api-keys"],
      ["POST", "/api/v1/api-keys", { name: "escalate" }],
      ["PATCH", `/api/v1/api-keys/${key.id}`, { name: "renamed" }],
      ["DELETE", `/api/v1/api-keys/${key.id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(path, { method, auth: key.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ code: "forbidden", details: { authenticated_with: "api_key" } });
    }
    expect(((await keyRow(key.id)) as { name: string; revoked_at: string | null }).revoked_at).toBeNull();
  });

  it("answers 401 without credentials or with a malformed one", async () => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, { name: "k" });
    const calls: [string, string, unknown?][] = [
      ["GET", "/api/v1/api-keys"],
      ["POST", "/api/v1/api-keys", { name: "x" }],
      ["PATCH", `/api/v1/api-keys/${key.id}`, { name: "x" }],
      ["DELETE", `/api/v1/api-keys/${key.id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const authorization of [undefined, ...MALFORMED_AUTHORIZATION]) {
        const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
        const res = await api(path, { method, body, headers });
        expect(res.status, `${method} ${path} ${authorization}`).toBe(401);
        expect(res.body).toMatchObject({ code: "unauthorized" });
      }
    }
    expect(((await keyRow(key.id)) as { revoked_at: string | null }).revoked_at).toBeNull();
  });

  it("another user's key is a 404 to rename or revoke, and is not listed", async () => {
    const alice = await signIn();
    const bob = await signIn();
    const { body: key } = await createKey(alice.session, { name: "alice's" });
    const renamed = await api(`/api/v1/api-keys/${key.id}`, {
      method: "PATCH",
      auth: bob.session,
      body: { name: "x" },
    });
    expect(renamed.status).toBe(404);
    expect(renamed.body).toMatchObject({ code: "not_found" });
    expect((await api(`/api/v1/api-keys/${key.id}`, { method: "DELETE", auth: bob.session })).status).toBe(404);
    expect((await api<ApiKey[]>("/api/v1/api-keys", { auth: bob.session })).body).toEqual([]);
    const row = (await keyRow(key.id)) as { name: string; revoked_at: string | null };
    expect(row).toMatchObject({ name: "alice's", revoked_at: null });
    expect((await api("/api/v1/blocks", { auth: key.key })).status).toBe(200);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "   " }],
    ["a name of 101 characters", { name: "n".repeat(101) }],
    ["a name that is not a string", { name: 7 }],
    ["an unknown scope", { name: "k", scopes: ["admin"] }],
    ["no scopes", { name: "k", scopes: [] }],
    ["a repeated scope", { name: "k", scopes: ["read", "read"] }],
    ["scopes that are not a list", { name: "k", scopes: "read" }],
    ["an expiry that is not a date-time", { name: "k", expires_at: "next week" }],
    ["an expiry in the past", { name: "k", expires_at: "2020-01-01T00:00:00Z" }],
    ["a field the request does not have", { name: "k", key_hash: "abc" }],
  ])("create answers 400 for %s and stores nothing", async (_label, body) => {
    const { session, userId } = await signIn();
    const res = await createKey(session, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: expect.any(Object) });
    const count = await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE user_id = ?").bind(userId).first("n");
    expect(count).toBe(0);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["another field", { name: "ok", scopes: ["read", "write"] }],
  ])("rename answers 400 for %s and changes nothing", async (_label, body) => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, { name: "original", scopes: ["read"] });
    const res = await api(`/api/v1/api-keys/${key.id}`, { method: "PATCH", auth: session, body });
    expect(res.status).toBe(400);
    expect(await keyRow(key.id)).toMatchObject({ name: "original", scopes: "read" });
  });

  it("the listing pages like every listing, newest first", async () => {
    const { session } = await signIn();
    const names = ["one", "two", "three"];
    for (const name of names) expect((await createKey(session, { name })).status).toBe(201);
    const page = await api<ApiKey[]>("/api/v1/api-keys?limit=2", { auth: session });
    expect(page.body.map((k) => k.name)).toEqual(["three", "two"]);
    expect(page.headers.get("X-Has-More")).toBe("true");
    expect(page.headers.get("X-Total-Count")).toBe("3");
    const rest = await api<ApiKey[]>("/api/v1/api-keys?limit=2&offset=2", { auth: session });
    expect(rest.body.map((k) => k.name)).toEqual(["one"]);
    expect((await api("/api/v1/api-keys?limit=0", { auth: session })).status).toBe(400);
  });

  it(`a user holds at most ${MAX_KEYS_PER_USER} unrevoked keys (409 beyond), revoked ones not counted`, async () => {
    const { session, userId } = await signIn();
    const rows = Array.from({ length: MAX_KEYS_PER_USER }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES (?, ?, ?, ?, 'sr_x', 'xxxx')",
      ).bind(crypto.randomUUID(), userId, `k${i}`, crypto.randomUUID()),
    );
    await env.DB.batch(rows);
    const refused = await createKey(session, { name: "one too many" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "conflict", details: { max_keys: MAX_KEYS_PER_USER } });

    const [oldest] = (await env.DB.prepare("SELECT id FROM api_keys WHERE user_id = ? LIMIT 1").bind(userId).all())
      .results as { id: string }[];
    expect((await api(`/api/v1/api-keys/${oldest?.id}`, { method: "DELETE", auth: session })).status).toBe(200);
    expect((await createKey(session, { name: "now fits" })).status).toBe(201);
  });

  it("last_used_at is written after the response, at most once a minute", async () => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, { name: "k" });
    expect((await api("/api/v1/blocks", { auth: key.key })).status).toBe(200);
    const first = await eventually(
      async () => ((await keyRow(key.id)) as { last_used_at: string | null }).last_used_at,
      (value) => value !== null,
    );
    expect(first).not.toBeNull();
    expect((await api("/api/v1/blocks", { auth: key.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(((await keyRow(key.id)) as { last_used_at: string }).last_used_at).toBe(first);
    const listed = await api<ApiKey[]>("/api/v1/api-keys", { auth: session });
    expect(listed.body[0]?.last_used_at).toBe(first);
  });

  it("last_used_at is not rewritten within a minute of another isolate's write", async () => {
    const { session } = await signIn();
    const { body: key } = await createKey(session, { name: "k" });
    const start = Date.now();
    const at = (offsetMs: number) => createContext({ env, now: () => new Date(start + offsetMs) });
    noteKeyUsed(at(0), key.id);
    const first = await eventually(
      async () => ((await keyRow(key.id)) as { last_used_at: string | null }).last_used_at,
      (value) => value !== null,
    );
    expect(first).toBe(new Date(start).toISOString());
    // Another isolate wrote 10 s ago; this one last wrote 61 s ago, so it tries, and the UPDATE declines.
    const recent = new Date(start + 51_000).toISOString();
    await env.DB.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?").bind(recent, key.id).run();
    noteKeyUsed(at(61_000), key.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(((await keyRow(key.id)) as { last_used_at: string }).last_used_at).toBe(recent);
    // A minute after that write, it is written again.
    noteKeyUsed(at(122_000), key.id);
    const third = await eventually(
      async () => ((await keyRow(key.id)) as { last_used_at: string }).last_used_at,
      (value) => value !== recent,
    );
    expect(third).toBe(new Date(start + 122_000).toISOString());
  });

  it("creating a key for a session whose user no longer exists is a 401, not a 500", async () => {
    const { session, userId } = await signIn();
    await env.DB.prepare("DELETE FROM users WHERE id = ?").bind(userId).run();
    const res = await createKey(session, { name: "orphan" });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "unauthorized" });
  });

  it("keys made by `npm run key` (no scopes or expiry given) may read and write", async () => {
    const user = await createUser();
    expect((await api("/api/v1/blocks", { auth: user })).status).toBe(200);
    const created = await api("/api/v1/blocks", {
      method: "POST",
      auth: user,
      body: { type: "page", properties: { title: "Local key" } },
    });
    expect(created.status).toBe(201);
  });
});
