import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import worker from "../../src/index";
import { APPLIED_EVENT_RETENTION_DAYS } from "../../src/services/payments/webhook";
import { DEVELOPMENT_STRIPE_WEBHOOK_SECRET } from "../../src/services/payments/webhook-contract";
import { api, createUser } from "../helpers/api";
import {
  checkoutEvent,
  deliver,
  deliverOk,
  event,
  iso,
  nowSeconds,
  recordedEvent,
  type StripeTestEvent,
  signatureFor,
  storedSubscription,
  subscriptionEvent,
  subscriptionObject,
  unique,
  WEBHOOK,
} from "../helpers/payments";

const invalidSignature = (reason: string) => ({
  error: "Invalid webhook signature",
  code: "validation_failed",
  details: { header: "Stripe-Signature", reason },
  request_id: expect.any(String),
});

/** A subscription event for a new customer, and what it should leave stored. */
function newSubscription(created = nowSeconds()) {
  const customer = unique("cus");
  const subscription = unique("sub");
  const periodEnd = created + 30 * 86400;
  return {
    customer,
    subscription,
    periodEnd,
    event: subscriptionEvent("created", created, { id: subscription, customer, status: "active", periodEnd }),
  };
}

describe("POST /payments/webhook: signature", () => {
  it("applies a correctly signed event once and records its id", async () => {
    const { customer, subscription, periodEnd, event: created } = newSubscription();
    const res = await deliver(created);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      received: true,
      event_id: created.id,
      event_type: "customer.subscription.created",
      handled: true,
      duplicate: false,
    });
    expect(await storedSubscription(customer)).toEqual({
      customer_id: customer,
      user_id: null,
      subscription_id: subscription,
      status: "active",
      price_id: "price_pro_monthly",
      plan: "pro_monthly",
      current_period_end: iso(periodEnd),
      cancel_at_period_end: 0,
      state_at: created.created,
      linked_at: null,
    });
    expect(await recordedEvent(created.id)).toEqual({ id: created.id, type: "customer.subscription.created" });
  });

  it("takes the body as Stripe sends it (Content-Type with a charset)", async () => {
    const { customer, event: created } = newSubscription();
    const payload = JSON.stringify(created);
    const res = await api(WEBHOOK, {
      method: "POST",
      body: payload,
      headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": await signatureFor(payload) },
    });
    expect(res.status).toBe(200);
    expect((await storedSubscription(customer))?.status).toBe("active");
  });

  it("refuses a body changed by one byte after signing, storing nothing", async () => {
    const { customer, event: created } = newSubscription();
    const payload = JSON.stringify(created, null, 2);
    const header = await signatureFor(payload);
    const tampered = payload.replace('"status": "active"', '"status": "activf"');
    expect(tampered.length).toBe(payload.length);
    expect(tampered).not.toBe(payload);
    const res = await deliver(created, { header, body: tampered });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidSignature("mismatch"));
    expect(await storedSubscription(customer)).toBeNull();
    expect(await recordedEvent(created.id)).toBeNull();
  });

  it("refuses a signature made with another secret", async () => {
    const { customer, event: created } = newSubscription();
    const res = await deliver(created, { secret: "whsec_somebody_else" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidSignature("mismatch"));
    expect(await storedSubscription(customer)).toBeNull();
  });

  it("refuses a signature 301 seconds old, and takes one 299 seconds old", async () => {
    const stale = newSubscription();
    const refused = await deliver(stale.event, { timestamp: nowSeconds() - 301 });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(invalidSignature("expired"));
    expect(await storedSubscription(stale.customer)).toBeNull();
    expect(await recordedEvent(stale.event.id)).toBeNull();

    const recent = newSubscription();
    const taken = await deliver(recent.event, { timestamp: nowSeconds() - 299 });
    expect(taken.status).toBe(200);
    expect((await storedSubscription(recent.customer))?.status).toBe("active");
  });

  it("refuses a missing header", async () => {
    const { customer, event: created } = newSubscription();
    for (const header of [null, "", "   "]) {
      const res = await deliver(created, { header });
      expect(res.status, JSON.stringify(header)).toBe(400);
      expect(res.body).toEqual(invalidSignature("missing"));
    }
    expect(await storedSubscription(customer)).toBeNull();
  });

  it("refuses malformed headers", async () => {
    const { customer, event: created } = newSubscription();
    const good = await signatureFor(JSON.stringify(created, null, 2));
    const signature = good.split("v1=")[1] ?? "";
    const malformed = [
      "garbage",
      `t=${nowSeconds()}`,
      `v1=${signature}`,
      `t=soon,v1=${signature}`,
      `t=${nowSeconds()},v1=`,
      `t=${nowSeconds()},v0=${signature}`,
    ];
    for (const header of malformed) {
      const res = await deliver(created, { header });
      expect(res.status, header).toBe(400);
      expect(res.body).toEqual(invalidSignature("malformed"));
    }
    expect(await storedSubscription(customer)).toBeNull();
  });

  it("refuses a well-formed signature that is not Stripe's (a made-up v1)", async () => {
    const { customer, event: created } = newSubscription();
    const res = await deliver(created, { header: `t=${nowSeconds()},v1=${"ab".repeat(32)}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidSignature("mismatch"));
    expect(await storedSubscription(customer)).toBeNull();
  });

  it("answers 503 `unavailable` when no webhook secret is configured, storing nothing", async () => {
    const { customer, event: created } = newSubscription();
    const payload = JSON.stringify(created);
    const app = createApp();
    const res = await app.request(
      WEBHOOK,
      {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": await signatureFor(payload) },
        body: payload,
      },
      { ...env, STRIPE_WEBHOOK_SECRET: "" },
      createExecutionContext(),
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error:
        "Payments are not configured on this server: set the STRIPE_WEBHOOK_SECRET secret (wrangler secret put STRIPE_WEBHOOK_SECRET)",
      code: "unavailable",
      details: { setting: "STRIPE_WEBHOOK_SECRET" },
      request_id: expect.any(String),
    });
    expect(await storedSubscription(customer)).toBeNull();
  });
});

describe("POST /payments/webhook: the development secret (npm run stripe:event offline)", () => {
  /** Delivers `created` signed with `secret` to a Worker with `vars`, from `peer` (CF-Connecting-IP). */
  async function deliverTo(vars: Partial<Env>, created: StripeTestEvent, secret: string, peer: string) {
    const payload = JSON.stringify(created);
    const res = await createApp().request(
      WEBHOOK,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "CF-Connecting-IP": peer,
          "Stripe-Signature": await signatureFor(payload, { secret }),
        },
        body: payload,
      },
      { ...env, ...vars },
      createExecutionContext(),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("under wrangler dev on this machine, with no secret set, verifies events signed with it", async () => {
    const { customer, event: created } = newSubscription();
    const res = await deliverTo(
      { ENVIRONMENT: "development", STRIPE_WEBHOOK_SECRET: "" },
      created,
      DEVELOPMENT_STRIPE_WEBHOOK_SECRET,
      "127.0.0.1",
    );
    expect(res).toMatchObject({ status: 200, body: { event_id: created.id, handled: true } });
    expect((await storedSubscription(customer))?.status).toBe("active");
  });

  it("is no secret from another machine, nor anywhere once deployed, set or not: 503, nothing stored", async () => {
    const { customer, event: created } = newSubscription();
    const unavailable = { status: 503, body: { code: "unavailable", details: { setting: "STRIPE_WEBHOOK_SECRET" } } };
    for (const [vars, peer] of [
      [{ ENVIRONMENT: "development", STRIPE_WEBHOOK_SECRET: "" }, "203.0.113.7"],
      [{ ENVIRONMENT: "production", STRIPE_WEBHOOK_SECRET: "" }, "203.0.113.7"],
      [{ ENVIRONMENT: "production", STRIPE_WEBHOOK_SECRET: DEVELOPMENT_STRIPE_WEBHOOK_SECRET }, "203.0.113.7"],
    ] as const) {
      expect(await deliverTo(vars, created, DEVELOPMENT_STRIPE_WEBHOOK_SECRET, peer)).toMatchObject(unavailable);
    }
    expect(await storedSubscription(customer)).toBeNull();
  });
});

describe("POST /payments/webhook: each event once", () => {
  it("a redelivered event answers 200 as a duplicate and changes nothing", async () => {
    const { customer, event: created } = newSubscription();
    expect((await deliver(created)).body.duplicate).toBe(false);
    const before = await storedSubscription(customer);
    const again = await deliver(created);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ event_id: created.id, handled: true, duplicate: true });
    expect(await storedSubscription(customer)).toEqual(before);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM payment_events WHERE id = ?")
      .bind(created.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it("a redelivery does not apply again what a later event changed (dedup, not only ordering)", async () => {
    // Two checkouts in the same second, each subscription ended: the later delivery links the
    // user. Applying the first again would link it back; as a duplicate it changes nothing.
    const user = await createUser();
    const [first, second] = [unique("cus"), unique("cus")];
    const at = nowSeconds();
    const ended = (customer: string) =>
      deliverOk(subscriptionEvent("deleted", at, { id: unique("sub"), customer, status: "canceled" }));
    const linkFirst = checkoutEvent(at, { customer: first, userId: user.id });
    await deliver(linkFirst);
    await ended(first);
    await deliver(checkoutEvent(at, { customer: second, userId: user.id }));
    await ended(second);
    expect((await storedSubscription(second))?.user_id).toBe(user.id);

    const replay = await deliver(linkFirst);
    expect(replay.body.duplicate).toBe(true);
    expect((await storedSubscription(second))?.user_id).toBe(user.id);
    expect((await storedSubscription(first))?.user_id).toBeNull();
  });

  it("concurrent deliveries of one subscription event apply it once", async () => {
    const { customer, subscription, periodEnd, event: created } = newSubscription(nowSeconds() - 5);
    const results = await Promise.all(Array.from({ length: 6 }, () => deliver(created)));
    expect(results.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(results.filter((res) => !res.body.duplicate)).toHaveLength(1);
    expect(results.every((res) => res.body.handled)).toBe(true);
    expect(await storedSubscription(customer)).toMatchObject({
      subscription_id: subscription,
      status: "active",
      current_period_end: iso(periodEnd),
      state_at: created.created,
    });
    const count = await env.DB.prepare("SELECT count(*) AS n FROM payment_events WHERE id = ?")
      .bind(created.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it("concurrent deliveries of one checkout event apply it once", async () => {
    const user = await createUser();
    const customer = unique("cus");
    const link = checkoutEvent(nowSeconds(), { customer, userId: user.id });
    const results = await Promise.all(Array.from({ length: 6 }, () => deliver(link)));
    expect(results.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(results.filter((res) => !res.body.duplicate)).toHaveLength(1);
    expect((await storedSubscription(customer))?.user_id).toBe(user.id);
  });
});

describe("POST /payments/webhook: event types", () => {
  it("acknowledges an unhandled type with 200 and stores nothing", async () => {
    for (const type of ["customer.created", "payment_intent.succeeded", "invoice.finalized"]) {
      const unhandled = event(type, nowSeconds(), { id: unique("obj"), object: "thing" });
      const res = await deliver(unhandled);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        received: true,
        event_id: unhandled.id,
        event_type: type,
        handled: false,
        duplicate: false,
        ignored: "unhandled_type",
      });
      expect(await recordedEvent(unhandled.id)).toBeNull();
    }
  });

  it("reads the period end from the subscription itself in older API versions", async () => {
    const customer = unique("cus");
    const periodEnd = nowSeconds() + 86400;
    const legacy = subscriptionEvent("updated", nowSeconds(), {
      id: unique("sub"),
      customer,
      status: "trialing",
      periodEnd,
      lookupKey: null,
      nickname: "Team (yearly)",
      shape: "legacy",
    });
    expect((await deliver(legacy)).status).toBe(200);
    expect(await storedSubscription(customer)).toMatchObject({
      status: "trialing",
      plan: "Team (yearly)",
      current_period_end: iso(periodEnd),
    });
  });

  it("takes an expanded customer object as well as its id", async () => {
    const customer = unique("cus");
    const object = { ...subscriptionObject({ id: unique("sub"), customer, status: "active" }) };
    object.customer = { id: customer, object: "customer", email: "ada@example.com" };
    expect((await deliver(event("customer.subscription.created", nowSeconds(), object))).status).toBe(200);
    expect((await storedSubscription(customer))?.status).toBe("active");
  });

  it("a deleted subscription is stored as canceled", async () => {
    const { customer, subscription, event: created } = newSubscription(nowSeconds() - 10);
    await deliver(created);
    await deliver(subscriptionEvent("deleted", nowSeconds(), { id: subscription, customer, status: "canceled" }));
    expect((await storedSubscription(customer))?.status).toBe("canceled");
  });

  it("refuses a signed handled event whose object is not a subscription, storing nothing", async () => {
    const broken = event("customer.subscription.updated", nowSeconds(), { id: unique("sub"), object: "subscription" });
    const res = await deliver(broken);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "data.object" } });
    expect(await recordedEvent(broken.id)).toBeNull();
  });

  it("refuses a signed event with a timestamp beyond year 9999 (400, never 500), storing nothing", async () => {
    const absurd = 9e12;
    const customer = unique("cus");
    const events = [
      subscriptionEvent("updated", nowSeconds(), { id: unique("sub"), customer, status: "active", periodEnd: absurd }),
      subscriptionEvent("updated", nowSeconds(), {
        id: unique("sub"),
        customer,
        status: "active",
        periodEnd: absurd,
        shape: "legacy",
      }),
      subscriptionEvent("updated", absurd, { id: unique("sub"), customer, status: "active" }),
      subscriptionEvent("updated", nowSeconds(), { id: unique("sub"), customer, status: "active", periodEnd: -1 }),
    ];
    for (const absurdEvent of events) {
      const res = await deliver(absurdEvent);
      expect(res.status, JSON.stringify(absurdEvent.data.object)).toBe(400);
      expect(res.body).toMatchObject({ code: "validation_failed" });
      expect(await recordedEvent(absurdEvent.id)).toBeNull();
    }
    expect(await storedSubscription(customer)).toBeNull();

    // The last second of year 9999 is still a date.
    const lastSecond = 253402300799;
    const edge = subscriptionEvent("updated", nowSeconds(), {
      id: unique("sub"),
      customer,
      status: "active",
      periodEnd: lastSecond,
    });
    expect((await deliver(edge)).status).toBe(200);
    expect((await storedSubscription(customer))?.current_period_end).toBe("9999-12-31T23:59:59.000Z");
  });

  it("refuses a body that is not an event before looking at the signature", async () => {
    const res = await deliver(event("x", 1, {}), { body: JSON.stringify({ hello: "world" }) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
  });
});

describe("applied event ids and invoice outcomes are forgotten after their retention", () => {
  it(`the every-minute Cron Trigger removes ids and outcomes older than ${APPLIED_EVENT_RETENTION_DAYS} days and keeps newer ones`, async () => {
    const day = 86_400_000;
    const old = `evt_old_${crypto.randomUUID()}`;
    const recent = `evt_recent_${crypto.randomUUID()}`;
    await env.DB.batch(
      [
        [old, APPLIED_EVENT_RETENTION_DAYS + 1],
        [recent, APPLIED_EVENT_RETENTION_DAYS - 1],
      ].flatMap(([id, daysAgo]) => {
        const receivedAt = new Date(Date.now() - Number(daysAgo) * day).toISOString();
        return [
          env.DB.prepare("INSERT INTO payment_events (id, type, received_at) VALUES (?, 'invoice.paid', ?)").bind(
            id,
            receivedAt,
          ),
          env.DB.prepare(
            `INSERT INTO invoice_outcomes (event_id, customer_id, subscription_id, outcome, created, received_at)
             VALUES (?, 'cus_pruned', 'sub_pruned', 'paid', 1, ?)`,
          ).bind(id, receivedAt),
        ];
      }),
    );
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" });
    const execution = createExecutionContext();
    await worker.scheduled?.(controller, env, execution);
    await waitOnExecutionContext(execution);
    const kept = await env.DB.prepare("SELECT id FROM payment_events WHERE id IN (?, ?)").bind(old, recent).all();
    expect(kept.results.map((row) => row.id)).toEqual([recent]);
    const outcomes = await env.DB.prepare("SELECT event_id FROM invoice_outcomes WHERE event_id IN (?, ?)")
      .bind(old, recent)
      .all();
    expect(outcomes.results.map((row) => row.event_id)).toEqual([recent]);
  });
});
