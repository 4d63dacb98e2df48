import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import type { PushSubscription } from "../../../src/schemas/push-subscriptions";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../../src/services/push/config";
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER } from "../../../src/services/push/subscriptions";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { ISO_DATE_TIME, issuePaths, UUID } from "../../helpers/blocks";
import { type BrowserSubscription, base64url, FakePushService, fromBase64url } from "../../helpers/fake-push-service";
import { signSessionToken } from "../../helpers/session-token";

const BASE = "/api/v1/push-subscriptions";

/** Browser-like subscriptions (real keys); nothing is sent to the service here. */
const browser = new FakePushService({ vapidPublicKey: DEVELOPMENT_VAPID_PUBLIC_KEY });

const register = (user: TestUser, body: unknown): Promise<ApiResponse<PushSubscription>> =>
  api<PushSubscription>(BASE, { method: "POST", auth: user, body });

async function registered(user: TestUser, extra: Record<string, unknown> = {}) {
  const subscription = await browser.subscribe();
  const res = await register(user, { ...subscription, ...extra });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { subscription, record: res.body };
}

const list = (user: TestUser, query = ""): Promise<ApiResponse<PushSubscription[]>> =>
  api<PushSubscription[]>(`${BASE}${query ? `?${query}` : ""}`, { auth: user });

interface StoredRow {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expiration_time: number | null;
  user_agent: string | null;
  created_at: string;
}

async function storedFor(userId: string): Promise<StoredRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM push_subscriptions WHERE user_id = ? ORDER BY rowid")
    .bind(userId)
    .all<StoredRow>();
  return results;
}

/** The same Worker called with other bindings (production settings), as a deployment would run it. */
async function callWith(overrides: Partial<Env>, path: string, init: RequestInit = {}, user?: TestUser) {
  const headers = new Headers(init.headers);
  if (user) headers.set("Authorization", `Bearer ${user.key}`);
  if (init.body) headers.set("Content-Type", "application/json");
  const response = await createApp().request(
    path,
    { ...init, headers },
    { ...env, ...overrides },
    createExecutionContext(),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describeAuthMatrix({
  name: `POST ${BASE}`,
  method: "POST",
  path: () => BASE,
  body: {
    endpoint: "https://push.example.test/push/x",
    keys: { p256dh: DEVELOPMENT_VAPID_PUBLIC_KEY, auth: "AAAAAAAAAAAAAAAAAAAAAA" },
  },
});
describeAuthMatrix({ name: `GET ${BASE}`, method: "GET", path: () => BASE });
describeAuthMatrix({ name: `GET ${BASE}/vapid-public-key`, method: "GET", path: () => `${BASE}/vapid-public-key` });
describeAuthMatrix({
  name: `DELETE ${BASE}/{id}`,
  method: "DELETE",
  path: (id) => `${BASE}/${id}`,
  setup: async (owner) => (await registered(owner)).record,
  readBack: async (owner) => ({ listed: (await list(owner)).body, stored: await storedFor(owner.id) }),
});

describe(`POST ${BASE}`, () => {
  it("registers what PushSubscription.toJSON() gives: 201 with the record (no keys), in one query round trip", async () => {
    const user = await createUser();
    const subscription = await browser.subscribe();
    const res = await register(user, { ...subscription, user_agent: "Firefox 140 on Linux" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      endpoint: subscription.endpoint,
      expiration_time: null,
      user_agent: "Firefox 140 on Linux",
      created_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expect(JSON.stringify(res.body)).not.toContain(subscription.keys.auth);
    expect(res.queryRoundTrips).toBe(1);
    expect(await storedFor(user.id)).toEqual([
      {
        ...res.body,
        user_id: user.id,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
      },
    ]);
  });

  it("user_agent and expirationTime are optional; an expiration time is kept in whole milliseconds", async () => {
    const user = await createUser();
    const bare = await browser.subscribe();
    const { expirationTime: _omitted, ...withoutExpiration } = bare;
    const first = await register(user, withoutExpiration);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ expiration_time: null, user_agent: null });
    const expiring = await browser.subscribe();
    const second = await register(user, { ...expiring, expirationTime: 1_798_761_600_000.75 });
    expect(second.body.expiration_time).toBe(1_798_761_600_000);
  });

  it("the same endpoint again: 200 with the same id and created_at, keys and expiration replaced", async () => {
    const user = await createUser();
    const { subscription, record } = await registered(user, { user_agent: "Chrome" });
    const renewed = await browser.subscribe();
    const res = await register(user, {
      endpoint: subscription.endpoint,
      expirationTime: 1_798_761_600_000,
      keys: renewed.keys,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...record, expiration_time: 1_798_761_600_000, user_agent: "Chrome" });
    const rows = await storedFor(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ p256dh: renewed.keys.p256dh, auth: renewed.keys.auth });
    const again = await register(user, { ...subscription, user_agent: "Chrome 141" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: record.id, user_agent: "Chrome 141", expiration_time: null });
  });

  it("another spelling of a registered endpoint (host case, a fragment) is the same subscription: 200", async () => {
    const user = await createUser();
    const { subscription, record } = await registered(user);
    const url = new URL(subscription.endpoint);
    const respelled = `${url.protocol}//${url.host.toUpperCase()}${url.pathname}${url.search}#again`;
    const res = await register(user, { ...subscription, endpoint: respelled });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: record.id, endpoint: url.href });
    expect(await storedFor(user.id)).toHaveLength(1);
  });

  it("two registrations of one endpoint at once make one subscription: one 201, one 200, same id", async () => {
    const user = await createUser();
    const subscription = await browser.subscribe();
    const results = await Promise.all([register(user, subscription), register(user, subscription)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(results[0]?.body.id).toBe(results[1]?.body.id);
    expect(await storedFor(user.id)).toHaveLength(1);
  });

  it("ten concurrent registrations of one endpoint: still one row", async () => {
    const user = await createUser();
    const subscription = await browser.subscribe();
    const results = await Promise.all(Array.from({ length: 10 }, () => register(user, subscription)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    expect(await storedFor(user.id)).toHaveLength(1);
  });

  it("one endpoint registered by two users is two subscriptions, each its user's", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const subscription = await browser.subscribe();
    const [a, b] = [await register(alice, subscription), await register(bob, subscription)];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect((await list(alice)).body.map((s) => s.id)).toEqual([a.body.id]);
    expect((await list(bob)).body.map((s) => s.id)).toEqual([b.body.id]);
  });

  it("keys in standard base64 with padding are accepted and stored canonical (base64url, unpadded)", async () => {
    const user = await createUser();
    const subscription = await browser.subscribe();
    const standard = (text: string) => {
      const bytes = fromBase64url(text);
      return btoa(String.fromCharCode(...bytes));
    };
    const res = await register(user, {
      ...subscription,
      keys: { p256dh: standard(subscription.keys.p256dh), auth: standard(subscription.keys.auth) },
    });
    expect(res.status).toBe(201);
    expect((await storedFor(user.id))[0]).toMatchObject({
      p256dh: subscription.keys.p256dh,
      auth: subscription.keys.auth,
    });
  });

  it("plain http to this machine is accepted in local work (a local fake push service), and https to it", async () => {
    const user = await createUser();
    const { keys } = await browser.subscribe();
    for (const endpoint of ["http://127.0.0.1:9999/push/a", "http://localhost:9999/push/b", "https://[::1]/push/c"]) {
      const res = await register(user, { endpoint, keys });
      expect(res.status, endpoint).toBe(201);
    }
  });

  describe("refuses bad input with 400, naming the field, storing nothing", () => {
    const point = (bytes: number[]) => base64url(new Uint8Array(bytes));

    it.each<[string, (s: BrowserSubscription) => unknown, string, RegExp]>([
      ["an http endpoint", (s) => ({ ...s, endpoint: s.endpoint.replace("https:", "http:") }), "endpoint", /https/],
      ["an endpoint that is no URL", (s) => ({ ...s, endpoint: "push.example.test/abc" }), "endpoint", /URL/],
      ["an ftp endpoint", (s) => ({ ...s, endpoint: "ftp://push.example.test/abc" }), "endpoint", /https/],
      ["a javascript: endpoint", (s) => ({ ...s, endpoint: "javascript:alert(1)" }), "endpoint", /https/],
      [
        "an endpoint with credentials",
        (s) => ({ ...s, endpoint: s.endpoint.replace("https://", "https://user:secret@") }),
        "endpoint",
        /user name or password/,
      ],
      ["p256dh not base64url", (s) => ({ ...s, keys: { ...s.keys, p256dh: "not base64!" } }), "keys.p256dh", /base64/],
      [
        "p256dh of 64 bytes",
        (s) => ({ ...s, keys: { ...s.keys, p256dh: point([4, ...new Array(63).fill(1)]) } }),
        "keys.p256dh",
        /65 bytes/,
      ],
      [
        "p256dh as a compressed point (33 bytes, 0x02)",
        (s) => ({ ...s, keys: { ...s.keys, p256dh: point([2, ...fromBase64url(s.keys.p256dh).slice(1, 33)]) } }),
        "keys.p256dh",
        /uncompressed/,
      ],
      [
        "p256dh of 65 bytes not starting 0x04",
        (s) => ({ ...s, keys: { ...s.keys, p256dh: point([3, ...fromBase64url(s.keys.p256dh).slice(1)]) } }),
        "keys.p256dh",
        /0x04/,
      ],
      [
        "p256dh off the curve",
        (s) => ({ ...s, keys: { ...s.keys, p256dh: point([4, ...new Array(64).fill(7)]) } }),
        "keys.p256dh",
        /curve/,
      ],
      ["auth not base64url", (s) => ({ ...s, keys: { ...s.keys, auth: "%%%%" } }), "keys.auth", /base64/],
      [
        "auth of 15 bytes",
        (s) => ({ ...s, keys: { ...s.keys, auth: point(new Array(15).fill(9)) } }),
        "keys.auth",
        /16/,
      ],
      [
        "auth of 17 bytes",
        (s) => ({ ...s, keys: { ...s.keys, auth: point(new Array(17).fill(9)) } }),
        "keys.auth",
        /16/,
      ],
      ["auth of one character", (s) => ({ ...s, keys: { ...s.keys, auth: "A" } }), "keys.auth", /base64/],
    ])("%s", async (_case, mutate, field, reason) => {
      const user = await createUser();
      const res = await register(user, mutate(await browser.subscribe()));
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { field, reason: expect.any(String) } });
      expect((res.body as unknown as { details: { reason: string } }).details.reason).toMatch(reason);
      expect(await storedFor(user.id)).toEqual([]);
    });

    it.each<[string, (s: BrowserSubscription) => unknown, string[]]>([
      ["no endpoint", ({ endpoint: _e, ...rest }) => rest, ["endpoint"]],
      ["no keys", ({ keys: _k, ...rest }) => rest, ["keys"]],
      ["no p256dh", (s) => ({ ...s, keys: { auth: s.keys.auth } }), ["keys.p256dh"]],
      ["no auth", (s) => ({ ...s, keys: { p256dh: s.keys.p256dh } }), ["keys.auth"]],
      ["an empty endpoint", (s) => ({ ...s, endpoint: "" }), ["endpoint"]],
      [
        "an endpoint of 2049 characters",
        (s) => ({ ...s, endpoint: `https://push.example.test/${"a".repeat(2023)}` }),
        ["endpoint"],
      ],
      ["endpoint as a number", (s) => ({ ...s, endpoint: 42 }), ["endpoint"]],
      ["keys as a string", (s) => ({ ...s, keys: "p256dh" }), ["keys"]],
      ["p256dh as a number", (s) => ({ ...s, keys: { ...s.keys, p256dh: 4 } }), ["keys.p256dh"]],
      ["a negative expirationTime", (s) => ({ ...s, expirationTime: -1 }), ["expirationTime"]],
      ["expirationTime as text", (s) => ({ ...s, expirationTime: "tomorrow" }), ["expirationTime"]],
      ["user_agent of 513 characters", (s) => ({ ...s, user_agent: "u".repeat(513) }), ["user_agent"]],
      ["user_agent as a number", (s) => ({ ...s, user_agent: 5 }), ["user_agent"]],
      ["an unknown field", (s) => ({ ...s, channel: "push" }), [""]],
      ["the snake_case expiration_time", (s) => ({ ...s, expiration_time: null }), [""]],
    ])("%s", async (_case, mutate, paths) => {
      const user = await createUser();
      const res = await register(user, mutate(await browser.subscribe()));
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "request body" } });
      expect(issuePaths(res.body).sort()).toEqual(paths.sort());
      expect(await storedFor(user.id)).toEqual([]);
    });

    it("an endpoint of exactly 2048 characters is accepted", async () => {
      const user = await createUser();
      const { keys } = await browser.subscribe();
      const endpoint = `https://push.example.test/${"a".repeat(2048 - 26)}`;
      expect(endpoint).toHaveLength(2048);
      expect((await register(user, { endpoint, keys })).status).toBe(201);
    });

    it.each([
      ["malformed JSON", '{"endpoint": ', "application/json", 400],
      ["a JSON array", "[]", "application/json", 400],
      ["a form body", "endpoint=https://x", "application/x-www-form-urlencoded", 415],
    ])("%s", async (_case, body, contentType, status) => {
      const user = await createUser();
      const res = await api(BASE, { method: "POST", auth: user, body, headers: { "Content-Type": contentType } });
      expectErrorBody(res, status);
    });
  });

  it("outside local work, neither plain http nor a loopback address is accepted", async () => {
    const user = await createUser();
    const { keys } = await browser.subscribe();
    const production = { ENVIRONMENT: "production" };
    for (const endpoint of ["http://127.0.0.1:9999/push/a", "https://localhost/push/b", "https://127.0.0.1/push/c"]) {
      const res = await callWith(production, BASE, { method: "POST", body: JSON.stringify({ endpoint, keys }) }, user);
      expect(res.status, endpoint).toBe(400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { field: "endpoint" } });
    }
    expect(await storedFor(user.id)).toEqual([]);
  });

  describe("refuses an endpoint at an internal address, in every spelling, storing nothing", () => {
    const INTERNAL_ENDPOINTS = [
      "https://10.0.0.1/x",
      "https://169.254.169.254/latest/meta-data/",
      "https://127.0.0.2/x",
      "https://[::ffff:7f00:1]/x",
      "https://[::ffff:169.254.169.254]/x",
      "https://foo.localhost/x",
      "https://localhost./x",
      "https://0.0.0.0/x",
      "https://2130706433/x",
      "https://0x7f000001/x",
      "https://0177.0.0.1/x",
      "https://100.64.0.1/x",
      "https://[fd00::1]/x",
      "https://metadata.google.internal/x",
      "https://93.184.216.34/x",
      "https://push.example.test./x",
    ];

    it("outside local work", async () => {
      const user = await createUser();
      const { keys } = await browser.subscribe();
      for (const endpoint of INTERNAL_ENDPOINTS) {
        const res = await callWith(
          { ENVIRONMENT: "production" },
          BASE,
          { method: "POST", body: JSON.stringify({ endpoint, keys }) },
          user,
        );
        expect(res.status, endpoint).toBe(400);
        expect(res.body, endpoint).toMatchObject({ code: "validation_failed", details: { field: "endpoint" } });
      }
      expect(await storedFor(user.id)).toEqual([]);
    });

    it("in local work too, where only a loopback host is let through", async () => {
      const user = await createUser();
      const { keys } = await browser.subscribe();
      for (const endpoint of INTERNAL_ENDPOINTS.filter(
        (url) => !/127\.0\.0\.2|7f00|foo\.localhost|2130706433|0x7f|0177/.test(url),
      )) {
        const res = await register(user, { endpoint, keys });
        expect(res.status, endpoint).toBe(400);
        expect(res.body, endpoint).toMatchObject({ code: "validation_failed", details: { field: "endpoint" } });
      }
      expect(await storedFor(user.id)).toEqual([]);
    });
  });

  it(`a new endpoint beyond ${MAX_PUSH_SUBSCRIPTIONS_PER_USER} is a 409; registering a known one again still works`, async () => {
    const user = await createUser();
    const { keys } = await browser.subscribe();
    const existing = Array.from(
      { length: MAX_PUSH_SUBSCRIPTIONS_PER_USER },
      (_, i) => `https://push.example.test/p/${i}`,
    );
    await env.DB.batch(
      existing.map((endpoint) =>
        env.DB.prepare(
          "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth) VALUES (?, ?, ?, ?, ?)",
        ).bind(crypto.randomUUID(), user.id, endpoint, keys.p256dh, keys.auth),
      ),
    );
    const refused = await register(user, { endpoint: "https://push.example.test/p/new", keys });
    expectErrorBody(refused, 409);
    expect(refused.body).toMatchObject({ code: "conflict", details: { limit: MAX_PUSH_SUBSCRIPTIONS_PER_USER } });
    const again = await register(user, { endpoint: existing[7], keys, user_agent: "still here" });
    expect(again.status).toBe(200);
    expect(await storedFor(user.id)).toHaveLength(MAX_PUSH_SUBSCRIPTIONS_PER_USER);
  });
});

describe("an app session whose user no longer exists", () => {
  it("registers nothing: 401", async () => {
    const ghost = crypto.randomUUID();
    const token = await signSessionToken({ sub: ghost, exp: Math.floor(Date.now() / 1000) + 60 });
    const res = await api(BASE, {
      method: "POST",
      auth: token,
      body: await browser.subscribe(),
    });
    expectErrorBody(res, 401);
    expect(await storedFor(ghost)).toEqual([]);
  });
});

describe(`GET ${BASE}`, () => {
  it("lists the caller's subscriptions oldest first, never another user's", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const first = await registered(alice, { user_agent: "Phone" });
    await registered(bob);
    const second = await registered(alice, { user_agent: "Laptop" });
    const res = await list(alice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([first.record, second.record]);
    expect(res.headers.get("X-Total-Count")).toBe("2");
    expect(res.queryRoundTrips).toBe(1);
  });

  it("an empty list for a user with none", async () => {
    const res = await list(await createUser());
    expect(res.body).toEqual([]);
    expect(res.headers.get("X-Total-Count")).toBe("0");
    expect(res.headers.get("X-Has-More")).toBe("false");
  });

  it("paginates like every listing: limit, offset and the headers", async () => {
    const user = await createUser();
    const records = [];
    for (let i = 0; i < 5; i++) records.push((await registered(user)).record);
    const page = await list(user, "limit=2&offset=1");
    expect(page.body.map((s) => s.id)).toEqual([records[1]?.id, records[2]?.id]);
    expect(page.headers.get("X-Total-Count")).toBe("5");
    expect(page.headers.get("X-Pagination-Limit")).toBe("2");
    expect(page.headers.get("X-Pagination-Offset")).toBe("1");
    expect(page.headers.get("X-Has-More")).toBe("true");
    const last = await list(user, "limit=2&offset=4");
    expect(last.body.map((s) => s.id)).toEqual([records[4]?.id]);
    expect(last.headers.get("X-Has-More")).toBe("false");
    const capped = await list(user, "limit=1000");
    expect(capped.headers.get("X-Pagination-Limit")).toBe("100");
  });

  it.each(["limit=0", "limit=x", "offset=-1", "unknown=1"])("refuses the query %s with 400", async (query) => {
    expectErrorBody(await list(await createUser(), query), 400);
  });
});

describe(`DELETE ${BASE}/{id}`, () => {
  it("removes the caller's subscription: {success, message}, gone from the listing and from D1", async () => {
    const user = await createUser();
    const kept = await registered(user);
    const { record } = await registered(user);
    const res = await api(`${BASE}/${record.id}`, { method: "DELETE", auth: user });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Push subscription deleted" });
    expect((await list(user)).body.map((s) => s.id)).toEqual([kept.record.id]);
    expect((await storedFor(user.id)).map((row) => row.id)).toEqual([kept.record.id]);
    const again = await api(`${BASE}/${record.id}`, { method: "DELETE", auth: user });
    expectErrorBody(again, 404);
    expect(again.body).toMatchObject({ code: "not_found", details: { id: record.id } });
  });

  it("another user's subscription is a 404 and stays, invisible to the caller", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const { record } = await registered(alice);
    const res = await api(`${BASE}/${record.id}`, { method: "DELETE", auth: bob });
    expectErrorBody(res, 404);
    expect((await list(bob)).body).toEqual([]);
    expect((await list(alice)).body).toEqual([record]);
  });

  it("takes the deliveries still owed to it along", async () => {
    const user = await createUser();
    const { record } = await registered(user);
    const notificationId = crypto.randomUUID();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO notifications (id, user_id, occurrence, title, channel) VALUES (?, ?, ?, 'Reminder', 'push')",
      ).bind(notificationId, user.id, new Date().toISOString()),
      env.DB.prepare(
        "INSERT INTO push_deliveries (notification_id, subscription_id, user_id, next_attempt_at) VALUES (?, ?, ?, ?)",
      ).bind(notificationId, record.id, user.id, Date.now()),
    ]);
    expect((await api(`${BASE}/${record.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM push_deliveries WHERE subscription_id = ?")
      .bind(record.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("an id of 129 characters is a 400", async () => {
    expectErrorBody(await api(`${BASE}/${"x".repeat(129)}`, { method: "DELETE", auth: await createUser() }), 400);
  });
});

describe(`GET ${BASE}/vapid-public-key`, () => {
  it("answers the key to subscribe with: a 65-byte uncompressed P-256 point, base64url", async () => {
    const res = await api<{ public_key: string }>(`${BASE}/vapid-public-key`, { auth: await createUser() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ public_key: env.VAPID_PUBLIC_KEY });
    const bytes = fromBase64url(res.body.public_key);
    expect([bytes.length, bytes[0]]).toEqual([65, 4]);
  });

  it("unconfigured (production without its own keys) is a 503 naming the setting", async () => {
    const user = await createUser();
    const unset = await callWith(
      { ENVIRONMENT: "production", VAPID_PUBLIC_KEY: "" },
      `${BASE}/vapid-public-key`,
      {},
      user,
    );
    expect(unset).toMatchObject({
      status: 503,
      body: { code: "unavailable", details: { setting: "VAPID_PUBLIC_KEY" } },
    });
    const development = await callWith({ ENVIRONMENT: "production" }, `${BASE}/vapid-public-key`, {}, user);
    expect(development).toMatchObject({ status: 503, body: { details: { setting: "VAPID_PUBLIC_KEY" } } });
    expect(String(development.body.error)).toMatch(/development/);
  });

  it("with the private key missing in production, the 503 names VAPID_PRIVATE_KEY", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const publicKey = base64url(new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer));
    const res = await callWith(
      { ENVIRONMENT: "production", VAPID_PUBLIC_KEY: publicKey, VAPID_SUBJECT: "mailto:ops@example.com" },
      `${BASE}/vapid-public-key`,
      {},
      await createUser(),
    );
    expect(res).toMatchObject({ status: 503, body: { details: { setting: "VAPID_PRIVATE_KEY" } } });
  });
});
