import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createRouter, defineRoute } from "../../src/openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../src/openapi/responses";
import { api, createUser } from "../helpers/api";
import { expectErrorBody, MALFORMED_AUTHORIZATION } from "../helpers/auth-matrix";
import { concrete, contractOperations, securedOf } from "../helpers/contract";
import { startEarlyInAWindow } from "../helpers/rate-windows";
import { signSessionToken } from "../helpers/session-token";

/**
 * The operations that need no credential. A route added later is either in
 * this list, on purpose, or answers 401 without a credential: the walk below
 * covers every operation of the contract, so none can escape it.
 */
const OPEN_OPERATIONS = [
  "GET /",
  "GET /test",
  "POST /auth/complete",
  "POST /payments/webhook",
  // Open as the contract declares it, rate limited per client address (OPEN_ROUTE_LIMITER). Notes
  // import is not open: the contract does not mark it so, and the service signs what it delivers.
  "POST /api/transcription/transcribe",
  // The five legacy AI paths: open as the contract declares them (the caller's own provider key is in
  // the body), rate limited per client address (OPEN_ROUTE_LIMITER).
  "POST /api/ai/openai",
  "POST /api/ai/anthropic",
  "POST /api/ai/gemini",
  "POST /api/ai/mistral",
  "POST /api/ai/groq",
  // A signed media URL: the signature over bucket, path and expiry is the credential (`signed` access).
  "GET /media/signed",
  // Health of the service's dependencies, for monitors.
  "GET /health",
];

const operations = await contractOperations();
const secured = securedOf(operations);

describe("every operation of the contract declares its access", () => {
  it("the operations without security are exactly the open list, each with security: []", () => {
    const open = operations.filter(({ operation }) => (operation.security ?? []).length === 0);
    expect(open.map(({ name }) => name).sort()).toEqual([...OPEN_OPERATIONS].sort());
    for (const { name, operation } of open) expect(operation.security, name).toEqual([]);
  });

  it("every operation has an id and a description", () => {
    for (const { name, operation } of operations) {
      expect(operation.operationId, name).toBeTruthy();
      expect(operation.description?.length ?? 0, name).toBeGreaterThan(20);
    }
  });

  it.each(secured.map(({ name, path, method, operation }) => [name, path, method, operation] as const))(
    "%s answers 401 with the envelope and a challenge, without a credential and with malformed ones, as declared",
    async (_name, path, method, operation) => {
      expect(Object.keys(operation.responses["401"]?.headers ?? {})).toContain("WWW-Authenticate");
      for (const authorization of [undefined, ...MALFORMED_AUTHORIZATION]) {
        const res = await api(concrete(path), {
          method: method.toUpperCase(),
          headers: authorization ? { Authorization: authorization } : {},
          body: ["post", "put", "patch"].includes(method) ? {} : undefined,
        });
        expectErrorBody(res, 401);
        expect(res.body, `${authorization}`).toMatchObject({ code: "unauthorized" });
        expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      }
    },
  );
});

describe("a deployment without a usable SESSION_SECRET", () => {
  // SESSION_SECRET checks app-session tokens and signs listing cursors: without it, both are a 503
  // `unavailable` naming the setting (lib/secrets.ts), on any operation a credential may call.
  const deployed = { ...env, ENVIRONMENT: "production", SESSION_SECRET: "" } as Env;
  const call = (path: string, authorization: string) =>
    createApp().request(path, { headers: { Authorization: authorization } }, deployed, createExecutionContext());

  it("answers a session token, and an API key's request for a cursor, with 503 naming the setting", async () => {
    const user = await createUser();
    const token = await signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 60 }, "any-secret");
    for (const [path, authorization] of <[string, string][]>[
      ["/api/v1/me", `Bearer ${token}`],
      ["/api/v1/changes", `Bearer ${user.key}`],
    ]) {
      const res = await call(path, authorization);
      expect(res.status, path).toBe(503);
      expect(await res.json(), path).toMatchObject({ code: "unavailable", details: { setting: "SESSION_SECRET" } });
    }
  });

  it.each(secured.map(({ name, operation }) => [name, operation]))("%s declares that 503", (_name, operation) => {
    expect(operation.responses["503"]).toBeDefined();
    expect((operation.responses["503"] as { description?: string }).description).toContain("SESSION_SECRET");
  });
});

describe("the Authorization header", () => {
  it("a 401's challenge says what was wrong with the credential (RFC 6750 §3.1)", async () => {
    const challenge = async (authorization?: string) =>
      (await api("/api/v1/blocks", { headers: authorization ? { Authorization: authorization } : {} })).headers.get(
        "WWW-Authenticate",
      );
    expect(await challenge()).toBe('Bearer realm="workspace-api"');
    // Another scheme is no authentication information this service reads: no error code.
    expect(await challenge("Basic x")).toBe('Bearer realm="workspace-api"');
    expect(await challenge("Bearer a b")).toBe('Bearer realm="workspace-api", error="invalid_request"');
    expect(await challenge("Bearer sr_short")).toBe('Bearer realm="workspace-api", error="invalid_token"');
    expect(await challenge(`Bearer sr_${"x".repeat(40)}`)).toBe('Bearer realm="workspace-api", error="invalid_token"');
    expect(await challenge("Bearer not.a.jwt")).toBe('Bearer realm="workspace-api", error="invalid_token"');
  });

  it("takes a bare sr_ key as well as Bearer sr_...", async () => {
    const user = await createUser();
    const bare = await api("/api/v1/blocks", { headers: { Authorization: user.key } });
    expect(bare.status).toBe(200);
    const bearer = await api("/api/v1/blocks", { headers: { Authorization: `Bearer ${user.key}` } });
    expect(bearer.status).toBe(200);
  });

  it("does not take a bare token of another kind, nor a bare key with other words", async () => {
    const user = await createUser();
    for (const header of [`Token ${user.key}`, `${user.key} extra`, "sr_", "eyJhbGciOiJIUzI1NiJ9.e30.x"]) {
      expectErrorBody(await api("/api/v1/blocks", { headers: { Authorization: header } }), 401);
    }
  });
});

describe("access kinds, enforced by the route's own declaration", () => {
  const reply = (description: string) => jsonContent(SuccessSchema, description);
  const sessionOnly = defineRoute({
    operationId: "testSessionOnly",
    method: "get",
    path: "/test-only/session",
    access: "session",
    summary: "Session only",
    description: "A route for app sessions only",
    responses: { 200: reply("Who called") },
  });
  const signed = defineRoute({
    operationId: "testSigned",
    method: "post",
    path: "/test-only/signed",
    access: "signed",
    summary: "Signed",
    description: "A route verified by its handler",
    request: { body: jsonBody(SuccessSchema) },
    bodyLimit: 64,
    responses: { 200: reply("Accepted") },
  });
  const limited = defineRoute({
    operationId: "testLimited",
    method: "get",
    path: "/test-only/limited",
    access: "open",
    summary: "Rate limited",
    description: "An open route under the open-route rate limit",
    rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "client", retryAfterSeconds: 60 },
    responses: { 200: reply("Counted") },
  });
  const app = createApp();
  app.route(
    "/",
    createRouter()
      .openapi(limited, (c) => c.json({ success: true, message: "counted" }, 200))
      .openapi(sessionOnly, (c) => c.json({ success: true, message: c.var.ctx.actor.userId }, 200))
      .openapi(signed, (c) => {
        // A signed route has no actor: its handler verifies the request itself.
        expect(c.var.ctx.actor).toBeNull();
        return c.json({ success: true, message: "verified by the handler" }, 200);
      }),
  );
  const call = (path: string, init: RequestInit = {}) => app.request(path, init, env, createExecutionContext());

  it("session: an app session passes, an API key is a 403 forbidden, nothing is a 401", async () => {
    const user = await createUser();
    const token = await signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 60 });
    const withSession = await call("/test-only/session", { headers: { Authorization: `Bearer ${token}` } });
    expect(withSession.status).toBe(200);
    expect(await withSession.json()).toEqual({ success: true, message: user.id });

    const withKey = await call("/test-only/session", { headers: { Authorization: `Bearer ${user.key}` } });
    expect(withKey.status).toBe(403);
    expect(await withKey.json()).toMatchObject({ code: "forbidden" });

    const without = await call("/test-only/session");
    expect(without.status).toBe(401);
    expect(without.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });

  it("signed: open to everyone, the handler decides; its own body limit applies", async () => {
    const ok = await call("/test-only/signed", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ success: true, message: "hi" }),
    });
    expect(ok.status).toBe(200);
    const tooLarge = await call("/test-only/signed", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ success: true, message: "x".repeat(100) }),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({
      error: "Request body too large",
      code: "payload_too_large",
      details: { max_bytes: 64 },
      request_id: expect.any(String),
    });
  });

  it("rate limited: past the binding's limit (30 a minute per client address) a 429 with Retry-After", async () => {
    await startEarlyInAWindow();
    const client = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const from = (address: string) => call("/test-only/limited", { headers: { "CF-Connecting-IP": address } });
    for (let i = 0; i < 30; i++) expect((await from(client)).status).toBe(200);
    const refused = await from(client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(await refused.json()).toMatchObject({
      code: "rate_limited",
      details: { policy: "operation", retry_after_seconds: 60 },
    });
    // The limit reached, as every 429 names it (draft-ietf-httpapi-ratelimit-headers); no credential, no quota of one.
    expect(refused.headers.get("RateLimit")).toBe('"operation";r=0;t=60');
    expect(refused.headers.get("RateLimit-Policy")).toBeNull();
    // Another client is counted on its own.
    expect((await from(`203.0.113.${Math.floor(Math.random() * 250)}`)).status).toBe(200);
    expect(Object.keys(limited.responses)).toContain("429");
  });

  it("refuses to define an open route limited per user (every anonymous caller would share one counter)", () => {
    expect(() =>
      defineRoute({
        method: "get",
        path: "/test-only/misdeclared",
        access: "open",
        summary: "Misdeclared",
        description: "Never defined",
        rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "user", retryAfterSeconds: 60 },
        responses: { 200: reply("Never") },
      }),
    ).toThrow(/per-user rate limit needs an authenticated route/);
  });

  it("declares each kind in the contract: session needs bearerAuth, signed and open declare none", () => {
    expect(sessionOnly.security).toEqual([{ bearerAuth: [] }]);
    expect(signed.security).toEqual([]);
    expect(Object.keys(sessionOnly.responses)).toEqual(expect.arrayContaining(["401", "403", "500"]));
    expect(Object.keys(signed.responses)).toEqual(expect.arrayContaining(["400", "413", "500"]));
    expect(Object.keys(signed.responses)).not.toContain("401");
  });
});
