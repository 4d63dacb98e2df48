import { env } from "cloudflare:test";
import { decode, sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../../src/auth/sessions";
import { api, createUser } from "../helpers/api";
import { signSessionToken } from "../helpers/session-token";

const now = () => Math.floor(Date.now() / 1000);

describe("app-session bearer tokens (HS256 JWT)", () => {
  it("a valid session token authenticates /api/v1 without an API-key lookup", async () => {
    const { id: userId } = await createUser();
    const token = await signSessionToken({ sub: userId, exp: now() + 600 });
    const created = await api<{ created_by: string }>("/api/v1/blocks", {
      method: "POST",
      auth: token,
      body: { type: "page", properties: { title: "From a session" } },
    });
    expect(created.status).toBe(201);
    expect(created.body.created_by).toBe(userId);
    // Session auth costs no D1 round trip: the insert is the only one.
    expect(created.roundTrips).toBe(1);
  });

  it("refuses an expired token, a token signed with another secret, and one without a subject", async () => {
    const expired = await signSessionToken({ sub: "u1", exp: now() - 10 });
    const forged = await signSessionToken({ sub: "u1", exp: now() + 600 }, "another-secret");
    const anonymous = await signSessionToken({ exp: now() + 600 });
    for (const token of [expired, forged, anonymous, "not.a.jwt"]) {
      const res = await api("/api/v1/blocks", { auth: token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: "Invalid or expired session token",
        code: "unauthorized",
        request_id: expect.any(String),
      });
    }
  });

  it("refuses a token this service did not issue as an app session: no iss or aud, or others", async () => {
    const { id: userId } = await createUser();
    const exp = now() + 600;
    const tokens = [
      // Signed with the session secret, as another system sharing it would sign.
      await sign({ sub: userId, exp }, env.SESSION_SECRET ?? "", "HS256"),
      await signSessionToken({ sub: userId, exp, iss: undefined }),
      await signSessionToken({ sub: userId, exp, aud: undefined }),
      await signSessionToken({ sub: userId, exp, iss: "another-service" }),
      await signSessionToken({ sub: userId, exp, aud: "another-audience" }),
      await signSessionToken({ sub: userId, exp, aud: ["another-audience"] }),
    ];
    for (const token of tokens) {
      const res = await api("/api/v1/blocks", { auth: token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: "Invalid or expired session token", code: "unauthorized" });
    }
    // The same claims with this service's iss and aud are a session (an aud list naming it too).
    for (const aud of [SESSION_AUDIENCE, ["another-audience", SESSION_AUDIENCE]]) {
      expect((await api("/api/v1/blocks", { auth: await signSessionToken({ sub: userId, exp, aud }) })).status).toBe(
        200,
      );
    }
  });

  it("a session issued at sign-in names this service as its issuer and app sessions as its audience", async () => {
    const { id, email } = await createUser();
    const signedIn = await api<{ sessionData: { token: string } }>("/auth/complete", {
      method: "POST",
      body: { sessionId: `dev:${email}` },
    });
    expect(signedIn.status).toBe(200);
    const { payload } = decode(signedIn.body.sessionData.token);
    expect(payload).toMatchObject({ iss: SESSION_ISSUER, aud: SESSION_AUDIENCE, sub: id });
  });
});
