import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { identityProviderFor } from "../../../src/auth/identity";
import { sessionSecret, verifySessionToken } from "../../../src/auth/sessions";
import { createContext } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { completeSignIn } from "../../../src/services/accounts/sign-in";
import { api, createUser } from "../../helpers/api";
import { signSessionToken } from "../../helpers/session-token";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";

interface SignInBody {
  success: boolean;
  sessionData: { token: string; expires_at: string; user: { id: string; email: string; name: string | null } };
}

const signIn = (sessionId: unknown) => api<SignInBody>("/auth/complete", { method: "POST", body: { sessionId } });
const uniqueEmail = () => `${crypto.randomUUID()}@example.test`;

async function refusal(work: () => Promise<unknown>): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("POST /auth/complete with the development provider (the local default)", () => {
  it("signs in `dev:<email>`, creating the user, and the token works on /api/v1 and for key management", async () => {
    const email = uniqueEmail();
    const res = await signIn(`dev:${email.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { token, expires_at, user } = res.body.sessionData;
    expect(user.email).toBe(email);
    expect(user.name).toBe(email.split("@")[0]);
    // Seven days by default (SESSION_TTL_SECONDS in wrangler.toml).
    const lifetime = new Date(expires_at).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86_400_000);
    expect((await verifySessionToken({ env, local: () => false }, token)).userId).toBe(user.id);

    const created = await api<{ created_by: string }>("/api/v1/blocks", {
      method: "POST",
      auth: token,
      body: { type: "page", properties: { title: "Signed in" } },
    });
    expect(created.status).toBe(201);
    expect(created.body.created_by).toBe(user.id);
    expect((await api("/api/v1/api-keys", { auth: token })).status).toBe(200);

    const stored = await env.DB.prepare("SELECT email, external_id FROM users WHERE id = ?").bind(user.id).first();
    expect(stored).toEqual({ email, external_id: `development:${email}` });
  });

  it("finds the same user on every sign-in", async () => {
    const email = uniqueEmail();
    const first = await signIn(`dev:${email}`);
    const second = await signIn(`dev:${email}`);
    expect(second.body.sessionData.user.id).toBe(first.body.sessionData.user.id);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = ?").bind(email).first("n");
    expect(count).toBe(1);
  });

  it("links a user made by `npm run key` (same email, no provider id yet) instead of duplicating it", async () => {
    const existing = await createUser();
    const res = await signIn(`dev:${existing.email}`);
    expect(res.status).toBe(200);
    expect(res.body.sessionData.user.id).toBe(existing.id);
  });

  it("refuses an email already linked to another identity with 409", async () => {
    const email = uniqueEmail();
    await env.DB.prepare("INSERT INTO users (id, email, external_id) VALUES (?, ?, ?)")
      .bind(crypto.randomUUID(), email, "clerk:user_someone")
      .run();
    const res = await signIn(`dev:${email}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "conflict" });
  });

  it.each([
    ["no sessionId", {}],
    ["an empty sessionId", { sessionId: "" }],
    ["a sessionId that is not a string", { sessionId: 42 }],
    ["a sessionId of 513 characters", { sessionId: `dev:${"a".repeat(509)}` }],
  ])("answers 400 for %s", async (_label, body) => {
    const res = await api("/auth/complete", { method: "POST", body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: expect.any(Object) });
  });

  it.each([
    "sess_2abcDEF",
    "dev:",
    "dev:not-an-email",
    "dev:two@at@signs",
    "dev:a@example.com\u0000",
    "dev:a\u200b@example.com",
  ])("answers 400 for the session id %j, which the provider does not confirm", async (sessionId) => {
    const res = await signIn(sessionId);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", error: expect.stringContaining("Invalid session") });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await api("/auth/complete", { method: "POST", body: "{not json" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "malformed_json" });
  });
});

describe("the Clerk provider (faked at the fetch boundary)", () => {
  const clerkEnv = { ...env, AUTH_PROVIDER: "clerk", CLERK_SECRET_KEY: "sk_test_clerk" } as Env;
  let clerk: FakedThirdParties | undefined;
  afterEach(() => clerk?.restore());

  const clerkUser = (id: string, email: string) => ({
    id,
    first_name: "Grace",
    last_name: "Hopper",
    username: null,
    primary_email_address_id: "idn_primary",
    email_addresses: [
      { id: "idn_other", email_address: "other@example.test", verification: { status: "verified" } },
      { id: "idn_primary", email_address: email, verification: { status: "verified" } },
    ],
  });

  function fakeClerk(session: Record<string, unknown> | number, user?: Record<string, unknown>) {
    clerk = fakeThirdParties((request) => {
      const url = new URL(request.url);
      if (url.pathname.startsWith("/v1/sessions/")) {
        return typeof session === "number"
          ? new Response('{"errors":[{"message":"secret detail"}]}', { status: session })
          : Response.json(session);
      }
      if (url.pathname.startsWith("/v1/users/") && user) return Response.json(user);
      return new Response("{}", { status: 404 });
    });
    return clerk;
  }

  it("looks the session up with the secret key, then its user, and signs the user in", async () => {
    const userId = `user_${crypto.randomUUID().replaceAll("-", "")}`;
    const email = uniqueEmail();
    const faked = fakeClerk(
      { id: "sess_1", user_id: userId, status: "active", expire_at: Date.now() + 60_000 },
      clerkUser(userId, email),
    );
    const ctx = createContext({ env: clerkEnv });
    const session = await completeSignIn(ctx, "sess_1");
    expect(session.user).toMatchObject({ email, name: "Grace Hopper" });
    expect(faked.requests.map((request) => new URL(request.url).pathname)).toEqual([
      "/v1/sessions/sess_1",
      `/v1/users/${userId}`,
    ]);
    for (const request of faked.requests) {
      expect(new URL(request.url).origin).toBe("https://api.clerk.com");
      expect(request.headers.get("Authorization")).toBe("Bearer sk_test_clerk");
    }
    const stored = await env.DB.prepare("SELECT external_id FROM users WHERE id = ?").bind(session.user.id).first();
    expect(stored).toEqual({ external_id: `clerk:${userId}` });
  });

  it("refuses a user whose primary email is not verified (400): an email links accounts", async () => {
    const userId = `user_${crypto.randomUUID().replaceAll("-", "")}`;
    const existing = await createUser();
    const unverified = clerkUser(userId, existing.email);
    unverified.email_addresses[1] = {
      id: "idn_primary",
      email_address: existing.email,
      verification: { status: "unverified" },
    };
    fakeClerk({ id: "sess_1", user_id: userId, status: "active" }, unverified);
    const error = await refusal(() => completeSignIn(createContext({ env: clerkEnv }), "sess_1"));
    expect(error.status).toBe(400);
    const linked = await env.DB.prepare("SELECT external_id FROM users WHERE id = ?").bind(existing.id).first();
    expect(linked).toEqual({ external_id: null });
  });

  it("a user whose provider email changed to one another account holds still signs in, keeping their email", async () => {
    const userId = `user_${crypto.randomUUID().replaceAll("-", "")}`;
    const original = uniqueEmail();
    fakeClerk({ id: "sess_1", user_id: userId, status: "active" }, clerkUser(userId, original));
    const first = await completeSignIn(createContext({ env: clerkEnv }), "sess_1");
    clerk?.restore();

    const taken = (await createUser()).email;
    fakeClerk({ id: "sess_2", user_id: userId, status: "active" }, clerkUser(userId, taken));
    const second = await completeSignIn(createContext({ env: clerkEnv }), "sess_2");
    expect(second.user).toMatchObject({ id: first.user.id, email: original });
  });

  it.each([
    ["an unknown session (404)", 404],
    ["an ended session", { id: "sess_1", user_id: "user_1", status: "ended" }],
    ["an expired session", { id: "sess_1", user_id: "user_1", status: "active", expire_at: Date.now() - 1000 }],
  ])("answers 400 for %s", async (_label, session) => {
    fakeClerk(session);
    const error = await refusal(() => completeSignIn(createContext({ env: clerkEnv }), "sess_1"));
    expect(error.status).toBe(400);
  });

  it("refuses `dev:` ids with 400 without asking Clerk", async () => {
    const faked = fakeClerk(404);
    const error = await refusal(() => completeSignIn(createContext({ env: clerkEnv }), "dev:ada@example.test"));
    expect(error.status).toBe(400);
    expect(faked.requests).toHaveLength(0);
  });

  it.each([
    ["Clerk refuses the secret key (401)", 401],
    ["Clerk fails (503)", 503],
  ])("answers 500 with nothing of Clerk's answer when %s", async (_label, status) => {
    fakeClerk(status);
    const error = await refusal(() => completeSignIn(createContext({ env: clerkEnv }), "sess_1"));
    expect(error.status).toBe(500);
    expect(error.code).toBe("upstream_failed");
    expect(error.message).not.toMatch(/secret detail|api\.clerk\.com|sk_test/);
  });

  it("answers 500 when Clerk cannot be reached", async () => {
    clerk = fakeThirdParties(() => {
      throw new TypeError("connect ECONNREFUSED https://api.clerk.com/v1/sessions/sess_1");
    });
    const error = await refusal(() => completeSignIn(createContext({ env: clerkEnv }), "sess_1"));
    expect(error.status).toBe(500);
    expect(error.message).not.toContain("clerk.com");
  });

  it("answers 503 when CLERK_SECRET_KEY is not set", async () => {
    const error = await refusal(() =>
      completeSignIn(createContext({ env: { ...clerkEnv, CLERK_SECRET_KEY: "" } }), "sess_1"),
    );
    expect(error.status).toBe(503);
    expect(error.message).toContain("CLERK_SECRET_KEY");
  });
});

describe("configuration", () => {
  const deployed = (vars: Partial<Env>) => ({ env: { ...env, ...vars } as Env, local: () => false });

  it("a deployment cannot use the development provider, whatever its configuration says", () => {
    for (const vars of [
      { ENVIRONMENT: "production", AUTH_PROVIDER: "development" },
      // The top-level configuration deployed by mistake: it says development, but no request is local.
      { ENVIRONMENT: "development", AUTH_PROVIDER: "development" },
      { ENVIRONMENT: "staging", AUTH_PROVIDER: "development" },
    ]) {
      expect(() => identityProviderFor(deployed(vars)), JSON.stringify(vars)).toThrow(
        /development provider serves only local development/,
      );
    }
    // Unset, a deployment gets Clerk; local work gets the development provider.
    expect(identityProviderFor(deployed({ ENVIRONMENT: "production", AUTH_PROVIDER: "" })).name).toBe("clerk");
    const local = { env: { ...env, ENVIRONMENT: "development", AUTH_PROVIDER: "" } as Env, local: () => true };
    expect(identityProviderFor(local).name).toBe("development");
  });

  it("an unknown AUTH_PROVIDER is a 503 naming it", () => {
    expect(() => identityProviderFor(deployed({ AUTH_PROVIDER: "okta" }))).toThrow(/AUTH_PROVIDER 'okta'/);
  });

  it("outside local work, a missing SESSION_SECRET refuses to sign or accept sessions (503), never a default", async () => {
    for (const ENVIRONMENT of ["production", "development", "test", "staging"]) {
      const unset = deployed({ ENVIRONMENT, SESSION_SECRET: "", AUTH_PROVIDER: "clerk" });
      expect(() => sessionSecret(unset), ENVIRONMENT).toThrow(/SESSION_SECRET/);
      const signing = await refusal(() => completeSignIn(createContext(unset), "sess_1"));
      expect(signing.status).toBe(503);
      expect(signing.message).toContain("SESSION_SECRET");
      const accepting = await refusal(() => verifySessionToken(unset, "eyJhbGciOiJIUzI1NiJ9.e30.x"));
      expect(accepting.status).toBe(503);
    }
  });

  it("a deployment refuses a short SESSION_SECRET and the example's placeholder", () => {
    for (const SESSION_SECRET of ["short", "change-me-to-a-long-random-string"]) {
      expect(() => sessionSecret(deployed({ ENVIRONMENT: "production", SESSION_SECRET }))).toThrow(
        /at least 32 characters/,
      );
    }
    const strong = "k".repeat(32);
    expect(sessionSecret(deployed({ ENVIRONMENT: "production", SESSION_SECRET: strong }))).toBe(strong);
  });

  it("`wrangler dev` without SESSION_SECRET still has sessions (a development-only secret)", async () => {
    const local = { env: { ...env, ENVIRONMENT: "development", SESSION_SECRET: "" } as Env, local: () => true };
    const session = await completeSignIn(createContext(local), `dev:${uniqueEmail()}`);
    expect((await verifySessionToken(local, session.token)).userId).toBe(session.user.id);
    // ...and such a token is worth nothing where a real secret is set.
    await expect(verifySessionToken({ env, local: () => false }, session.token)).rejects.toMatchObject({ status: 401 });
  });

  it("refuses a session token without an expiry", async () => {
    const forever = await signSessionToken({ sub: crypto.randomUUID() });
    const res = await api("/api/v1/blocks", { auth: forever });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "unauthorized" });
  });
});
