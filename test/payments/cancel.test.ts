import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { STRIPE_API_VERSION } from "../../src/services/payments/stripe";
import { api, createUser, type TestUser } from "../helpers/api";
import { MALFORMED_AUTHORIZATION, revokeApiKey } from "../helpers/auth-matrix";
import {
  CANCEL,
  capturingConsole,
  deliverOk,
  iso,
  ME,
  nowSeconds,
  type StoredSubscription,
  storedSubscription,
  subscribe,
  subscriptionEvent,
  subscriptionObject,
} from "../helpers/payments";
import { signSessionToken } from "../helpers/session-token";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";

let stripe: FakedThirdParties | undefined;
afterEach(() => {
  stripe?.restore();
  stripe = undefined;
});

interface Subscribed {
  user: TestUser;
  customer: string;
  subscription: string;
  periodEnd: number;
}

async function subscribedUser(): Promise<Subscribed> {
  const user = await createUser();
  return { user, ...(await subscribe(user)) };
}

/** Stripe's answer: the subscription after the change, with the headers Stripe sends. */
const stripeAnswer = (body: unknown, status = 200) =>
  Response.json(body, {
    status,
    headers: { "Request-Id": "req_StripeSecretRequestId", Date: new Date().toUTCString() },
  });

/** A form-encoded request body (read as bytes: workerd warns when such a body is read as text). */
const formOf = async (request: Request) =>
  Object.fromEntries(new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer())));

/** The form bodies the fake Stripe received. */
let sentForms: Record<string, string>[] = [];

/** A Stripe that cancels `who`'s subscription as asked, and answers its new state. */
function fakeStripeCancelling(who: Subscribed) {
  sentForms = [];
  return fakeThirdParties(async (request) => {
    const path = new URL(request.url).pathname;
    if (path !== `/v1/subscriptions/${who.subscription}`)
      return stripeAnswer({ error: { type: "invalid_request_error" } }, 404);
    const form = request.method === "POST" ? await formOf(request) : {};
    sentForms.push(form);
    const atPeriodEnd = form.cancel_at_period_end === "true";
    return stripeAnswer(
      subscriptionObject({
        id: who.subscription,
        customer: who.customer,
        status: request.method === "DELETE" ? "canceled" : "active",
        periodEnd: who.periodEnd,
        cancelAtPeriodEnd: atPeriodEnd,
      }),
    );
  });
}

const cancel = (user: TestUser | string, body?: unknown) => api(CANCEL, { method: "POST", auth: user, body });

/** A cancellation by `user` on a server without STRIPE_SECRET_KEY. */
const cancelUnconfigured = (user: TestUser) =>
  createApp().request(
    CANCEL,
    { method: "POST", headers: { Authorization: `Bearer ${user.key}` } },
    { ...env, STRIPE_SECRET_KEY: "" },
    createExecutionContext(),
  );

describe("POST /payments/cancel-subscription", () => {
  it("cancels at the end of the period by default, through Stripe, and stores the new state", async () => {
    const who = await subscribedUser();
    stripe = fakeStripeCancelling(who);
    const res = await cancel(who.user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      customer_id: who.customer,
      subscription_id: who.subscription,
      status: "active",
      plan: "pro_monthly",
      price_id: "price_pro_monthly",
      current_period_end: iso(who.periodEnd),
      cancel_at_period_end: true,
    });

    expect(stripe.requests).toHaveLength(1);
    const [request] = stripe.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`https://api.stripe.com/v1/subscriptions/${who.subscription}`);
    expect(request?.headers.get("Authorization")).toBe(`Bearer ${env.STRIPE_SECRET_KEY}`);
    expect(request?.headers.get("Stripe-Version")).toBe(STRIPE_API_VERSION);
    expect(request?.headers.get("Idempotency-Key")).toBeTruthy();
    expect(sentForms).toEqual([{ cancel_at_period_end: "true" }]);

    expect(await storedSubscription(who.customer)).toMatchObject({
      user_id: who.user.id,
      status: "active",
      cancel_at_period_end: 1,
    });
    // Still on the plan until the period ends.
    expect((await api<{ plan: string }>(ME, { auth: who.user })).body.plan).toBe("pro_monthly");
  });

  it("cancels at once with at_period_end: false", async () => {
    const who = await subscribedUser();
    stripe = fakeStripeCancelling(who);
    const res = await cancel(who.user, { at_period_end: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscription_id: who.subscription,
      status: "canceled",
      cancel_at_period_end: false,
    });
    expect(stripe.requests.map((request) => [request.method, new URL(request.url).pathname])).toEqual([
      ["DELETE", `/v1/subscriptions/${who.subscription}`],
    ]);
    expect((await storedSubscription(who.customer))?.status).toBe("canceled");
    expect((await api<{ plan: string }>(ME, { auth: who.user })).body.plan).toBe("free");
  });

  it("takes an app session as well as an API key", async () => {
    const who = await subscribedUser();
    stripe = fakeStripeCancelling(who);
    const token = await signSessionToken({ sub: who.user.id, exp: nowSeconds() + 600 });
    const res = await cancel(token, { at_period_end: true });
    expect(res.status).toBe(200);
    expect((await storedSubscription(who.customer))?.cancel_at_period_end).toBe(1);
  });

  it("400 when the caller has no subscription, without calling Stripe", async () => {
    const user = await createUser();
    stripe = fakeThirdParties(() => stripeAnswer({}));
    const res = await cancel(user);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "No active subscription to cancel", code: "validation_failed" });
    expect(stripe.requests).toHaveLength(0);
  });

  it("400 when the caller's subscription has already ended", async () => {
    const who = await subscribedUser();
    await deliverOk(
      subscriptionEvent("deleted", nowSeconds(), { id: who.subscription, customer: who.customer, status: "canceled" }),
    );
    stripe = fakeThirdParties(() => stripeAnswer({}));
    const res = await cancel(who.user);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { status: "canceled" } });
    expect(stripe.requests).toHaveLength(0);
  });

  it("400 for a body that is not {at_period_end: boolean}", async () => {
    const who = await subscribedUser();
    stripe = fakeThirdParties(() => stripeAnswer({}));
    for (const body of [{ at_period_end: "yes" }, { immediately: true }, []]) {
      const res = await cancel(who.user, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(stripe.requests).toHaveLength(0);
  });

  it("400 for an intruder without a subscription, who cannot name anyone else's", async () => {
    const owner = await subscribedUser();
    const before = await storedSubscription(owner.customer);
    const intruder = await createUser();
    stripe = fakeThirdParties(() => stripeAnswer({}));
    const res = await cancel(intruder, { at_period_end: false });
    expect(res.status).toBe(400);
    expect(stripe.requests).toHaveLength(0);
    expect(await storedSubscription(owner.customer)).toEqual(before);
  });

  it("cancels only the caller's subscription when both users have one", async () => {
    const [caller, other] = [await subscribedUser(), await subscribedUser()];
    const otherBefore = await storedSubscription(other.customer);
    // A Stripe that would cancel either subscription if asked.
    stripe = fakeThirdParties(async (request) => {
      const id = new URL(request.url).pathname.split("/").at(-1);
      const who = [caller, other].find((candidate) => candidate.subscription === id);
      if (!who) return stripeAnswer({ error: { type: "invalid_request_error" } }, 404);
      return stripeAnswer(
        subscriptionObject({
          id: who.subscription,
          customer: who.customer,
          status: "canceled",
          periodEnd: who.periodEnd,
        }),
      );
    });
    const res = await cancel(caller.user, { at_period_end: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscription_id: caller.subscription, status: "canceled" });
    expect(stripe.requests.map((request) => [request.method, new URL(request.url).pathname])).toEqual([
      ["DELETE", `/v1/subscriptions/${caller.subscription}`],
    ]);
    expect(stripe.requests.some((request) => request.url.includes(other.subscription))).toBe(false);
    expect((await storedSubscription(caller.customer))?.status).toBe("canceled");
    expect(await storedSubscription(other.customer)).toEqual(otherBefore);
    expect((await api<{ plan: string }>(ME, { auth: other.user })).body.plan).toBe("pro_monthly");
  });

  it("400 for an incomplete subscription, without calling Stripe", async () => {
    const user = await createUser();
    const { customer } = await subscribe(user, { status: "incomplete" });
    const before = await storedSubscription(customer);
    stripe = fakeThirdParties(() => stripeAnswer({}));
    for (const body of [undefined, { at_period_end: false }]) {
      const res = await cancel(user, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { status: "incomplete" } });
    }
    expect(stripe.requests).toHaveLength(0);
    expect(await storedSubscription(customer)).toEqual(before);
  });

  it("401 without a credential or with a malformed one, changing nothing", async () => {
    const owner = await subscribedUser();
    const before = await storedSubscription(owner.customer);
    stripe = fakeThirdParties(() => stripeAnswer({}));
    for (const authorization of [undefined, ...MALFORMED_AUTHORIZATION]) {
      const res = await api(CANCEL, {
        method: "POST",
        body: { at_period_end: false },
        headers: authorization ? { Authorization: authorization } : {},
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "unauthorized" });
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    }
    expect(stripe.requests).toHaveLength(0);
    expect(await storedSubscription(owner.customer)).toEqual(before);
  });

  it("a key revoked a moment ago is a 401, and Stripe is not called", async () => {
    const who = await subscribedUser();
    const before = await storedSubscription(who.customer);
    expect((await api(ME, { auth: who.user })).status).toBe(200); // this isolate now remembers the key
    await revokeApiKey(who.user.key);
    stripe = fakeThirdParties(() => stripeAnswer({}));
    const res = await cancel(who.user, { at_period_end: false });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "unauthorized" });
    expect(stripe.requests).toHaveLength(0);
    expect(await storedSubscription(who.customer)).toEqual(before);
  });

  describe("when Stripe fails", () => {
    const STRIPE_DETAIL = /req_|StripeSecret|api\.stripe\.com|sub_|card_declined|Something went wrong|sk_test/;

    async function expectFailedWithoutDetail(
      who: Subscribed,
      before: StoredSubscription | null,
      error: string,
      body?: { at_period_end: boolean },
    ) {
      const res = await cancel(who.user, body);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error, code: "upstream_failed", request_id: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toMatch(STRIPE_DETAIL);
      expect(JSON.stringify([...res.headers])).not.toMatch(STRIPE_DETAIL);
      expect(await storedSubscription(who.customer)).toEqual(before);
    }

    it("a Stripe 500 is a 500 upstream_failed with no Stripe message, URL or request id", async () => {
      const who = await subscribedUser();
      const before = await storedSubscription(who.customer);
      stripe = fakeThirdParties(() =>
        stripeAnswer(
          {
            error: {
              type: "api_error",
              message: "Something went wrong on req_StripeSecretRequestId",
              code: "card_declined",
            },
          },
          500,
        ),
      );
      await expectFailedWithoutDetail(who, before, "stripe answered with HTTP 500");
      // One retry, with the same idempotency key.
      expect(stripe.requests).toHaveLength(2);
      const keys = stripe.requests.map((request) => request.headers.get("Idempotency-Key"));
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
    });

    it("a Stripe 4xx is a 500 upstream_failed too, without Stripe's message", async () => {
      const who = await subscribedUser();
      const before = await storedSubscription(who.customer);
      stripe = fakeThirdParties(() =>
        stripeAnswer({ error: { type: "invalid_request_error", message: "No such subscription: 'sub_x'" } }, 404),
      );
      await expectFailedWithoutDetail(who, before, "stripe answered with HTTP 404", { at_period_end: false });
      // The cancellation, then the read-back (which fails too): the original failure is answered.
      expect(stripe.requests.map((request) => request.method)).toEqual(["DELETE", "GET"]);
    });

    it("a network failure is a 500 upstream_failed", async () => {
      const who = await subscribedUser();
      const before = await storedSubscription(who.customer);
      stripe = fakeThirdParties(() => {
        throw new TypeError("fetch failed: connect ECONNREFUSED api.stripe.com:443");
      });
      await expectFailedWithoutDetail(who, before, "stripe could not be reached", { at_period_end: false });
      // The cancellation and its retry, then the read-back and its retry.
      expect(stripe.requests.map((request) => request.method)).toEqual(["DELETE", "DELETE", "GET", "GET"]);
    });

    it("a cancellation at once whose answer was lost: the retry's 4xx, then a read-back showing it canceled is a 200", async () => {
      const who = await subscribedUser();
      let deletes = 0;
      stripe = fakeThirdParties((request) => {
        if (request.method === "DELETE") {
          deletes++;
          // Stripe cancelled it, but the answer never arrived; the retry finds it cancelled already.
          if (deletes === 1) throw new TypeError("fetch failed: connection reset");
          return stripeAnswer(
            { error: { type: "invalid_request_error", message: "This subscription is already canceled" } },
            400,
          );
        }
        return stripeAnswer(
          subscriptionObject({
            id: who.subscription,
            customer: who.customer,
            status: "canceled",
            periodEnd: who.periodEnd,
          }),
        );
      });
      const { result: res, logged } = await capturingConsole(() => cancel(who.user, { at_period_end: false }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ subscription_id: who.subscription, status: "canceled" });
      expect(logged).toContain("read back is canceled");
      expect(stripe.requests.map((request) => [request.method, new URL(request.url).pathname])).toEqual([
        ["DELETE", `/v1/subscriptions/${who.subscription}`],
        ["DELETE", `/v1/subscriptions/${who.subscription}`],
        ["GET", `/v1/subscriptions/${who.subscription}`],
      ]);
      expect((await storedSubscription(who.customer))?.status).toBe("canceled");
      expect((await api<{ plan: string }>(ME, { auth: who.user })).body.plan).toBe("free");
    });

    it("a failed cancellation at once whose read-back shows it still active is a 500, storing nothing", async () => {
      const who = await subscribedUser();
      const before = await storedSubscription(who.customer);
      stripe = fakeThirdParties((request) =>
        request.method === "DELETE"
          ? stripeAnswer({ error: { type: "invalid_request_error", message: "No such subscription" } }, 404)
          : stripeAnswer(
              subscriptionObject({
                id: who.subscription,
                customer: who.customer,
                status: "active",
                periodEnd: who.periodEnd,
              }),
            ),
      );
      await expectFailedWithoutDetail(who, before, "stripe answered with HTTP 404", { at_period_end: false });
      expect(stripe.requests.map((request) => request.method)).toEqual(["DELETE", "GET"]);
    });

    it("a failed cancellation at period end is not read back", async () => {
      const who = await subscribedUser();
      const before = await storedSubscription(who.customer);
      stripe = fakeThirdParties(() => stripeAnswer({ error: { type: "invalid_request_error" } }, 400));
      await expectFailedWithoutDetail(who, before, "stripe answered with HTTP 400");
      expect(stripe.requests.map((request) => request.method)).toEqual(["POST"]);
    });
  });

  describe("when Stripe cancelled but its answer cannot be read", () => {
    const unreadableAnswers: [string, (who: Subscribed) => Response][] = [
      ["an object that is not a subscription", (who) => stripeAnswer({ id: who.subscription, object: "subscription" })],
      [
        "a period end beyond year 9999",
        (who) =>
          stripeAnswer(
            subscriptionObject({ id: who.subscription, customer: who.customer, status: "canceled", periodEnd: 9e12 }),
          ),
      ],
      ["a body that is not JSON", () => new Response("<html>oops</html>", { status: 200 })],
    ];

    for (const [what, answer] of unreadableAnswers) {
      it(`at once, ${what}: 200 with the stored record marked canceled`, async () => {
        const who = await subscribedUser();
        stripe = fakeThirdParties(() => answer(who));
        const { result: res, logged } = await capturingConsole(() =>
          api(CANCEL, {
            method: "POST",
            auth: who.user,
            body: { at_period_end: false },
            headers: { "X-Request-Id": `unreadable-cancel-${what.length}` },
          }),
        );
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          customer_id: who.customer,
          subscription_id: who.subscription,
          status: "canceled",
          plan: "pro_monthly",
          price_id: "price_pro_monthly",
          current_period_end: iso(who.periodEnd),
          cancel_at_period_end: false,
        });
        expect(stripe.requests.map((request) => request.method)).toEqual(["DELETE"]);
        expect(await storedSubscription(who.customer)).toMatchObject({ status: "canceled", cancel_at_period_end: 0 });
        expect((await api<{ plan: string }>(ME, { auth: who.user })).body.plan).toBe("free");
        expect(logged).toContain(`"request_id":"unreadable-cancel-${what.length}"`);
        expect(logged).toContain('"failure":"unreadable_answer"');
        expect(logged).not.toMatch(/oops|9000000000000/);
      });
    }

    it("at period end: 200 with cancel_at_period_end true, stored", async () => {
      const who = await subscribedUser();
      stripe = fakeThirdParties(() => stripeAnswer({ id: who.subscription, object: "subscription" }));
      const { result: res } = await capturingConsole(() => cancel(who.user));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        subscription_id: who.subscription,
        status: "active",
        cancel_at_period_end: true,
      });
      expect(await storedSubscription(who.customer)).toMatchObject({ status: "active", cancel_at_period_end: 1 });
    });

    it("what is known does not overwrite a newer webhook state", async () => {
      const who = await subscribedUser();
      const later = nowSeconds() + 120;
      await deliverOk(
        subscriptionEvent("updated", later, { id: who.subscription, customer: who.customer, status: "past_due" }),
      );
      stripe = fakeThirdParties(() => stripeAnswer({ id: who.subscription, object: "subscription" }));
      const { result: res } = await capturingConsole(() => cancel(who.user));
      expect(res.status).toBe(200);
      expect(await storedSubscription(who.customer)).toMatchObject({
        status: "past_due",
        cancel_at_period_end: 0,
        state_at: later,
      });
    });
  });

  it("an answer older than the stored state does not overwrite it", async () => {
    const who = await subscribedUser();
    // A webhook state produced after Stripe's answer (its Date header) is already stored.
    const later = nowSeconds() + 120;
    await deliverOk(
      subscriptionEvent("updated", later, {
        id: who.subscription,
        customer: who.customer,
        status: "past_due",
        periodEnd: who.periodEnd,
      }),
    );
    stripe = fakeStripeCancelling(who);
    const res = await cancel(who.user);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ cancel_at_period_end: true });
    expect(await storedSubscription(who.customer)).toMatchObject({
      status: "past_due",
      cancel_at_period_end: 0,
      state_at: later,
    });
  });

  it("Stripe's clock dates the answer: one dated before the stored state is not stored", async () => {
    const who = await subscribedUser();
    const stored = nowSeconds() - 30;
    await deliverOk(
      subscriptionEvent("updated", stored, { id: who.subscription, customer: who.customer, status: "past_due" }),
    );
    stripe = fakeThirdParties(() =>
      Response.json(
        subscriptionObject({ id: who.subscription, customer: who.customer, status: "active", cancelAtPeriodEnd: true }),
        { headers: { Date: new Date((stored - 3600) * 1000).toUTCString() } },
      ),
    );
    expect((await cancel(who.user)).status).toBe(200);
    expect(await storedSubscription(who.customer)).toMatchObject({
      status: "past_due",
      cancel_at_period_end: 0,
      state_at: stored,
    });
  });

  it("503 `unavailable` when no Stripe secret key is configured, changing nothing", async () => {
    const who = await subscribedUser();
    const before = await storedSubscription(who.customer);
    stripe = fakeThirdParties(() => stripeAnswer({}));
    const res = await cancelUnconfigured(who.user);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: "Payments are not configured on this server",
      code: "unavailable",
      details: { setting: "STRIPE_SECRET_KEY" },
      request_id: expect.any(String),
    });
    expect(stripe.requests).toHaveLength(0);
    expect(await storedSubscription(who.customer)).toEqual(before);
  });

  it("400, not 503, when there is nothing to cancel and no Stripe secret key is configured", async () => {
    const user = await createUser();
    const ended = await subscribedUser();
    await deliverOk(
      subscriptionEvent("deleted", nowSeconds(), {
        id: ended.subscription,
        customer: ended.customer,
        status: "canceled",
      }),
    );
    stripe = fakeThirdParties(() => stripeAnswer({}));
    for (const [caller, status] of [
      [user, null],
      [ended.user, "canceled"],
    ] as const) {
      const res = await cancelUnconfigured(caller);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: "No active subscription to cancel",
        code: "validation_failed",
        details: { status },
      });
    }
    expect(stripe.requests).toHaveLength(0);
  });
});
