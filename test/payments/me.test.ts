import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Me } from "../../src/schemas/subscriptions";
import { api, createUser } from "../helpers/api";
import { MALFORMED_AUTHORIZATION } from "../helpers/auth-matrix";
import { deliverOk, iso, ME, nowSeconds, subscribe, subscriptionEvent } from "../helpers/payments";
import { signSessionToken } from "../helpers/session-token";

const session = (sub: string) => signSessionToken({ sub, exp: nowSeconds() + 600 });

describe("GET /api/v1/me", () => {
  it("a user who never subscribed is on the free plan, with no subscription", async () => {
    const user = await createUser();
    await env.DB.prepare("UPDATE users SET name = ? WHERE id = ?").bind("Ada Lovelace", user.id).run();
    const res = await api<Me>(ME, { auth: user });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      email: user.email,
      name: "Ada Lovelace",
      plan: "free",
      subscription: null,
    });
    // The key lookup and one query.
    expect(res.queryRoundTrips).toBeLessThanOrEqual(1);
  });

  it("a subscribed user has the subscription's plan and state", async () => {
    const user = await createUser();
    const { customer, subscription, periodEnd } = await subscribe(user, { lookupKey: "team_yearly" });
    const res = await api<Me>(ME, { auth: user });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      email: user.email,
      name: null,
      plan: "team_yearly",
      subscription: {
        customer_id: customer,
        subscription_id: subscription,
        status: "active",
        plan: "team_yearly",
        price_id: "price_pro_monthly",
        current_period_end: iso(periodEnd),
        cancel_at_period_end: false,
      },
    });
  });

  it("past_due and trialing keep the plan; unpaid, incomplete and canceled are free, with the state shown", async () => {
    const user = await createUser();
    const { customer, subscription } = await subscribe(user);
    const expected: [string, string][] = [
      ["trialing", "pro_monthly"],
      ["past_due", "pro_monthly"],
      ["unpaid", "free"],
      ["canceled", "free"],
    ];
    let at = nowSeconds();
    for (const [status, plan] of expected) {
      at += 1;
      await deliverOk(subscriptionEvent("updated", at, { id: subscription, customer, status }));
      const res = await api<Me>(ME, { auth: user });
      expect(res.body.plan, status).toBe(plan);
      expect(res.body.subscription?.status).toBe(status);
    }
  });

  it("answers an app session too", async () => {
    const user = await createUser();
    const res = await api<Me>(ME, { auth: await session(user.id) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email, plan: "free" });
  });

  it("401 for a session whose user does not exist", async () => {
    const ghost = crypto.randomUUID();
    const res = await api(ME, { auth: await session(ghost) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: "This session has ended: sign in again",
      code: "unauthorized",
      request_id: expect.any(String),
    });
  });

  it("401 without a credential or with a malformed one", async () => {
    for (const authorization of [undefined, ...MALFORMED_AUTHORIZATION]) {
      const res = await api(ME, { headers: authorization ? { Authorization: authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "unauthorized" });
    }
  });

  it("shows only the caller's own subscription", async () => {
    const [ada, bob] = [await createUser(), await createUser()];
    await subscribe(ada);
    const res = await api<Me>(ME, { auth: bob });
    expect(res.body).toMatchObject({ id: bob.id, plan: "free", subscription: null });
  });
});
