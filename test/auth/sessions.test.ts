import { env } from "cloudflare:test";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";

const now = () => Math.floor(Date.now() / 1000);

describe("app-session bearer tokens (HS256 JWT)", () => {
  it("a valid session token authenticates /api/v1 without an API-key lookup", async () => {
    const { id: userId } = await createUser();
    const token = await sign({ sub: userId, exp: now() + 600 }, env.SESSION_SECRET ?? "", "HS256");
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
    const expired = await sign({ sub: "u1", exp: now() - 10 }, env.SESSION_SECRET ?? "", "HS256");
    const forged = await sign({ sub: "u1", exp: now() + 600 }, "another-secret", "HS256");
    const anonymous = await sign({ exp: now() + 600 }, env.SESSION_SECRET ?? "", "HS256");
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
});
