import { env } from "cloudflare:test";
import { decode } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { api, createUser, documentedResponses } from "../../helpers/api";

interface SignInBody {
  sessionData: { token: string; user: { id: string } };
}

/** Signs `email` in through the development provider; returns the app-session token and the user id. */
async function signIn(email = `${crypto.randomUUID()}@example.test`): Promise<{ session: string; userId: string }> {
  const res = await api<SignInBody>("/auth/complete", { method: "POST", body: { sessionId: `dev:${email}` } });
  expect(res.status).toBe(200);
  return { session: res.body.sessionData.token, userId: res.body.sessionData.user.id };
}

const signOut = (auth: string, body?: unknown) => api("/auth/sign-out", { method: "POST", auth, body });
const blocks = (auth: string) => api("/api/v1/blocks", { auth });

/** A 401 that challenges the credential sent, as every refused credential is. */
function expectRefused(res: { status: number; headers: Headers; body: unknown }, error: string) {
  expect(res.status).toBe(401);
  expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="workspace-api", error="invalid_token"');
  expect(res.body).toEqual({ error, code: "unauthorized", request_id: expect.any(String) });
}

const ENDED = "This session has ended: sign in again";

describe("POST /auth/sign-out", () => {
  it("ends the session used and every other session of the user on the very next request", async () => {
    const email = `${crypto.randomUUID()}@example.test`;
    const { session: phone, userId } = await signIn(email);
    const { session: laptop } = await signIn(email);
    expect((await blocks(phone)).status).toBe(200);
    expect((await blocks(laptop)).status).toBe(200);

    const res = await signOut(laptop);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Signed out: every app session has ended" });
    const validFrom = await env.DB.prepare("SELECT sessions_valid_from FROM users WHERE id = ?")
      .bind(userId)
      .first<string>("sessions_valid_from");
    expect(validFrom).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    for (const token of [phone, laptop]) expectRefused(await blocks(token), ENDED);
    // A write stores nothing; a route refused before any query (bad input) and key management say 401 too.
    const write = await api("/api/v1/blocks", {
      method: "POST",
      auth: phone,
      body: { type: "page", properties: { title: "After sign-out" } },
    });
    expectRefused(write, ENDED);
    const pages = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?").bind(userId).first("n");
    expect(pages).toBe(0);
    expectRefused(await api("/api/v1/blocks?limit=abc", { auth: phone }), ENDED);
    expectRefused(await api("/api/v1/api-keys", { method: "POST", auth: phone, body: { name: "k" } }), ENDED);
    expectRefused(await signOut(laptop), ENDED);
  });

  it("a sign-in after it works, within the same second too, while the sessions before it stay ended", async () => {
    const email = `${crypto.randomUUID()}@example.test`;
    const { session: before } = await signIn(email);
    expect((await signOut(before)).status).toBe(200);
    const { session: after } = await signIn(email);
    expect((await blocks(after)).status).toBe(200);
    expectRefused(await blocks(before), ENDED);

    // A sign-out stamped ahead of this clock (another isolate's clock ahead, or a sign-out in this
    // very millisecond): a sign-in now is issued no earlier than it, so its session works.
    const { userId } = await signIn(email);
    const ahead = new Date(Date.now() + 2_000).toISOString();
    await env.DB.prepare("UPDATE users SET sessions_valid_from = ? WHERE id = ?").bind(ahead, userId).run();
    expectRefused(await blocks(after), ENDED);
    const { session: next } = await signIn(email);
    expect(decode(next).payload.iat_ms).toBe(Date.parse(ahead));
    expect((await blocks(next)).status).toBe(200);
    // A sign-out while that instant is still ahead ends the session issued at it: the instant moves past it.
    expect((await signOut(next)).status).toBe(200);
    expectRefused(await blocks(next), ENDED);
    const stored = await env.DB.prepare("SELECT sessions_valid_from AS at FROM users WHERE id = ?")
      .bind(userId)
      .first<{ at: string }>();
    expect(stored?.at).toBe(new Date(Date.parse(ahead) + 1).toISOString());
  });

  it("takes `{}` or no body, and refuses a field", async () => {
    expect((await signOut((await signIn()).session, {})).status).toBe(200);
    expect((await signOut((await signIn()).session)).status).toBe(200);
    expect((await signOut((await signIn()).session, { everywhere: true })).status).toBe(400);
  });

  it("leaves another user's sessions alone", async () => {
    const { session: mine } = await signIn();
    const { session: theirs } = await signIn();
    expect((await signOut(mine)).status).toBe(200);
    expect((await blocks(theirs)).status).toBe(200);
    expect((await signOut(theirs)).status).toBe(200);
  });

  it("an API key cannot call it (403), and the user's keys keep working after a sign-out", async () => {
    const { session } = await signIn();
    const created = await api<{ key: string }>("/api/v1/api-keys", {
      method: "POST",
      auth: session,
      body: { name: "agent" },
    });
    expect(created.status).toBe(201);
    const key = created.body.key;

    const byKey = await signOut(key);
    expect(byKey.status).toBe(403);
    expect(byKey.body).toMatchObject({ code: "forbidden", details: { authenticated_with: "api_key" } });
    expect((await blocks(session)).status).toBe(200);

    expect((await signOut(session)).status).toBe(200);
    expect((await blocks(key)).status).toBe(200);
    expect((await api("/api/v1/blocks", { method: "POST", auth: key, body: { type: "page" } })).status).toBe(201);
  });

  it("without a credential: 401 with the bare challenge", async () => {
    const res = await api("/auth/sign-out", { method: "POST" });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="workspace-api"');
  });

  it("is declared in the contract with its answers", async () => {
    const responses = await documentedResponses("/auth/sign-out");
    for (const status of ["200", "400", "401", "403"]) expect(responses[status], status).toBeDefined();
  });
});

describe("app sessions checked against their user", () => {
  it("a session of a deleted user is a 401", async () => {
    const { session, userId } = await signIn();
    expect((await blocks(session)).status).toBe(200);
    await env.DB.prepare("DELETE FROM users WHERE id = ?").bind(userId).run();
    expectRefused(await blocks(session), ENDED);
    expectRefused(await signOut(session), ENDED);
  });

  it("the check rides in the request's first D1 call: no round trip of its own", async () => {
    const { session } = await signIn();
    const read = await blocks(session);
    expect(read.status).toBe(200);
    expect(read.headers.get("Server-Timing")).toContain('auth;desc="session token"');
    // With an API key that D1 has just confirmed the listing costs the lookup and its query; a session, the query alone.
    const user = await createUser();
    const byKey = await api("/api/v1/blocks", { auth: user.key });
    expect(byKey.queryRoundTrips).toBe(read.roundTrips);
    expect(read.roundTrips).toBe(1);
    const write = await api("/api/v1/blocks", { method: "POST", auth: session, body: { type: "page" } });
    expect(write.status).toBe(201);
    expect(write.roundTrips).toBe(1);
    // Signing out is one statement behind the guard: one round trip.
    expect((await signOut(session)).roundTrips).toBe(1);
  });
});
