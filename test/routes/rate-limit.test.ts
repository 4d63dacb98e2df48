import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { api, createUser, type TestUser } from "../helpers/api";
import { addApiKey, MALFORMED_AUTHORIZATION, revokeApiKey } from "../helpers/auth-matrix";
import { type ContractOperation, concrete, contractOperations, securedOf } from "../helpers/contract";
import { sessionOf } from "../helpers/cursor-matrix";
import { startEarlyInAWindow } from "../helpers/rate-windows";

// Each credential's quota (draft-ietf-httpapi-ratelimit-headers-11): every answer to a valid
// credential carries RateLimit-Policy and RateLimit, a credential past its quota gets a 429 with
// Retry-After, and no other answer carries them.

const operations = await contractOperations();
const secured = securedOf(operations);
const sessionOnly = (operation: ContractOperation) =>
  operation.security?.every((scheme) => Object.keys(scheme).includes("bearerAuth")) ?? false;

const QUOTA = Number(env.API_RATE_LIMIT_REQUESTS);
const WINDOW = Number(env.API_RATE_LIMIT_WINDOW_SECONDS);
/** `"default";r=<available>;t=<seconds to the window's end>` */
const SERVICE_LIMIT = /^"default";r=(\d+);t=(\d+)$/;

/** The available quota and window end a RateLimit field reports for the credential's policy. */
function serviceLimit(headers: Headers): { remaining: number; reset: number } {
  const [, remaining, reset] = SERVICE_LIMIT.exec(headers.get("RateLimit") ?? "") ?? [];
  expect(remaining, `RateLimit: ${headers.get("RateLimit")}`).toBeDefined();
  return { remaining: Number(remaining), reset: Number(reset) };
}

function expectNoQuotaFields(headers: Headers, what: string): void {
  expect(headers.get("RateLimit-Policy"), what).toBeNull();
  expect(headers.get("RateLimit"), what).toBeNull();
}

describe("wrangler.toml: the announced quota is the enforced one", () => {
  it("every configuration sets API_RATE_LIMIT_REQUESTS and _WINDOW_SECONDS to its API_RATE_LIMITER's limit and period", () => {
    expect(env.TEST_CONFIGURED_QUOTAS.map(({ name }) => name)).toEqual(["top", "production"]);
    for (const { name, vars, binding } of env.TEST_CONFIGURED_QUOTAS) {
      expect(binding, name).toEqual({ limit: Number(vars.requests), period: Number(vars.windowSeconds) });
    }
  });
});

describe("every authenticated operation of the contract reports the credential's quota", () => {
  const callAll = async (authorization: string | undefined, each: (name: string, res: Response) => void) => {
    for (const { name, path, method } of secured) {
      const res = await api(concrete(path), {
        method: method.toUpperCase(),
        headers: authorization ? { Authorization: authorization } : {},
        body: ["post", "put", "patch"].includes(method) ? {} : undefined,
      });
      each(name, new Response(null, { headers: res.headers }));
    }
  };

  it("answered with an API key, whatever the status: RateLimit-Policy and RateLimit, one request less each time", async () => {
    const user = await createUser();
    let previous = QUOTA;
    await callAll(`Bearer ${user.key}`, (name, res) => {
      expect(res.headers.get("RateLimit-Policy"), name).toBe(`"default";q=${QUOTA};w=${WINDOW}`);
      const { remaining, reset } = serviceLimit(res.headers);
      // One isolate serves the tests, so its count is the binding's: exact (unless a window ended between).
      if (remaining < previous) expect(remaining, name).toBe(previous - 1);
      previous = remaining;
      expect(reset, name).toBeGreaterThanOrEqual(1);
      expect(reset, name).toBeLessThanOrEqual(WINDOW);
    });
  });

  it("answered with an app session: the same fields (session-only operations included)", async () => {
    const sessionOnlyNames = new Set(secured.filter(({ operation }) => sessionOnly(operation)).map(({ name }) => name));
    expect(sessionOnlyNames.size).toBeGreaterThan(0);
    for (const { name, path, method } of secured.filter(({ name }) => sessionOnlyNames.has(name))) {
      // A session each: one of them is the sign-out, which ends the session it is sent with.
      const session = await sessionOf(await createUser());
      const res = await api(concrete(path), {
        method: method.toUpperCase(),
        auth: session,
        body: ["post", "patch"].includes(method) ? {} : undefined,
      });
      expect(res.headers.get("RateLimit-Policy"), name).toBe(`"default";q=${QUOTA};w=${WINDOW}`);
      serviceLimit(res.headers);
    }
  });

  it("a 401 (no credential, a malformed one) carries neither field: no valid credential, no quota", async () => {
    for (const authorization of [undefined, ...MALFORMED_AUTHORIZATION]) {
      await callAll(authorization, (name, res) => expectNoQuotaFields(res.headers, `${name} with ${authorization}`));
    }
  });

  it("the contract declares both on every answer but the 401, Retry-After and RateLimit on the 429", () => {
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
    for (const { name, operation } of secured) {
      expect(Object.keys(operation.responses), name).toContain("429");
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === "401") {
          expect(response.headers?.RateLimit, name).toBeUndefined();
          continue;
        }
        expect(response.headers?.["RateLimit-Policy"], `${name} ${status}`).toEqual(ref("RateLimit-Policy"));
        expect(response.headers?.RateLimit, `${name} ${status}`).toEqual(ref("RateLimit"));
      }
      expect(operation.responses["429"]?.headers?.["Retry-After"], name).toEqual(ref("Retry-After"));
    }
    // Open operations refused past their own limit say so the same way.
    for (const { name, operation } of operations.filter(({ operation }) => operation.responses["429"])) {
      expect(operation.responses["429"]?.headers?.["Retry-After"], name).toEqual(ref("Retry-After"));
      expect(operation.responses["429"]?.headers?.RateLimit, name).toEqual(ref("RateLimit"));
    }
  });
});

describe("a credential past its quota (a binding of three a minute)", () => {
  const tiny = { ...env, API_RATE_LIMITER: env.TEST_TINY_LIMITER, API_RATE_LIMIT_REQUESTS: "3" };
  const app = createApp();
  const call = (path: string, authorization: string, init: RequestInit = {}) =>
    app.request(
      path,
      { ...init, headers: { Authorization: `Bearer ${authorization}`, ...init.headers } },
      tiny,
      createExecutionContext(),
    );
  const read = (who: string | TestUser) => call("/api/v1/blocks?limit=1", typeof who === "string" ? who : who.key);

  it("three answers count down to r=0; the fourth is a 429 with Retry-After, the envelope and no D1 round trip", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await read(user);
      expect(res.status).toBe(200);
      expect(res.headers.get("RateLimit-Policy")).toBe(`"default";q=3;w=${WINDOW}`);
      remaining.push(serviceLimit(res.headers).remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);

    const refused = await read(user);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    // Per the draft (§6), Retry-After is not earlier than the end of the effective window it reports.
    expect(refused.headers.get("RateLimit")).toBe(`"default";r=0;t=${retryAfter}`);
    expect(refused.headers.get("RateLimit-Policy")).toBe(`"default";q=3;w=${WINDOW}`);
    expect(await refused.json()).toEqual({
      error: `Too many requests with this credential: at most 3 every ${WINDOW} s`,
      code: "rate_limited",
      details: { policy: "default", retry_after_seconds: retryAfter },
      request_id: expect.any(String),
    });
    // The key was remembered by the first answers: a refusal costs no D1 round trip.
    expect(refused.headers.get("Server-Timing")).toContain('d1;desc="0 round trips"');
    // Refused before the route's work: a write is refused alike and writes nothing.
    const write = await call("/api/v1/blocks", user.key, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "page", properties: { title: "Refused" } }),
    });
    expect(write.status).toBe(429);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("each API key has its own quota; a user's app sessions share the user's, apart from the keys", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    for (let i = 0; i < 3; i++) expect((await read(user)).status).toBe(200);
    expect((await read(user)).status).toBe(429);
    expect((await read(await addApiKey(user))).status).toBe(200);

    const [first, second] = [await sessionOf(user), await sessionOf(user)];
    expect((await read(first)).status).toBe(200);
    expect((await read(second)).status).toBe(200);
    expect(serviceLimit((await read(first)).headers).remaining).toBe(0);
    expect((await read(second)).status).toBe(429);
  });

  it("a remembered key revoked since: counted, then refused with a 401 that carries neither field", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    const key = await addApiKey(user);
    expect((await read(key)).status).toBe(200);
    await revokeApiKey(key);
    const refused = await read(key);
    expect(refused.status).toBe(401);
    expectNoQuotaFields(refused.headers, "revoked key");
    // The user's other key is unaffected.
    expect(serviceLimit((await read(user)).headers).remaining).toBe(2);
  });

  it("a refusal of another kind still reports the quota: a read-only key's write is a 403 with both fields", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    const session = await sessionOf(user);
    const created = await call("/api/v1/api-keys", session, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "reader", scopes: ["read"] }),
    });
    const { key } = await created.json<{ key: string }>();
    const refused = await call("/api/v1/blocks", key, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "page" }),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("RateLimit-Policy")).toBe(`"default";q=3;w=${WINDOW}`);
    expect(serviceLimit(refused.headers).remaining).toBe(2);
  });
});
