import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";
import {
  CANCEL,
  capturingConsole,
  checkoutEvent,
  deliver,
  deliverLogged,
  deliverOk,
  heldCheckout,
  invoiceEvent,
  iso,
  ME,
  nowSeconds,
  recordedEvent,
  storedSubscription,
  subscribe,
  subscriptionEvent,
  subscriptionObject,
  subscriptionOfUser,
  unique,
} from "../helpers/payments";
import { fakeThirdParties } from "../helpers/third-party";

const ids = () => ({ customer: unique("cus"), id: unique("sub") });

describe("out-of-order subscription events", () => {
  it("an older event delivered after a newer one changes nothing", async () => {
    const sub = ids();
    const t1 = nowSeconds() - 100;
    const t2 = t1 + 50;
    await deliverOk(
      subscriptionEvent("updated", t2, { ...sub, status: "active", cancelAtPeriodEnd: true, periodEnd: t2 + 1000 }),
    );
    const late = await deliver(
      subscriptionEvent("created", t1, { ...sub, status: "incomplete", periodEnd: t1 + 1000 }),
    );
    expect(late.status).toBe(200);
    expect(late.body.duplicate).toBe(false);
    expect(await storedSubscription(sub.customer)).toMatchObject({
      status: "active",
      cancel_at_period_end: 1,
      current_period_end: iso(t2 + 1000),
      state_at: t2,
    });
  });

  it("a newer event replaces an older one", async () => {
    const sub = ids();
    const t1 = nowSeconds() - 100;
    await deliverOk(subscriptionEvent("created", t1, { ...sub, status: "incomplete" }));
    await deliverOk(
      subscriptionEvent("updated", t1 + 5, { ...sub, status: "active", priceId: "price_team", lookupKey: "team" }),
    );
    expect(await storedSubscription(sub.customer)).toMatchObject({
      status: "active",
      price_id: "price_team",
      plan: "team",
      state_at: t1 + 5,
    });
  });

  it("within one second, a state never goes back in the subscription's life", async () => {
    const t = nowSeconds() - 30;
    // incomplete then active, delivered in order and in reverse: active either way.
    const inOrder = ids();
    await deliverOk(subscriptionEvent("created", t, { ...inOrder, status: "incomplete" }));
    await deliverOk(subscriptionEvent("updated", t, { ...inOrder, status: "active" }));
    expect((await storedSubscription(inOrder.customer))?.status).toBe("active");

    const reversed = ids();
    await deliverOk(subscriptionEvent("updated", t, { ...reversed, status: "active" }));
    await deliverOk(subscriptionEvent("created", t, { ...reversed, status: "incomplete" }));
    expect((await storedSubscription(reversed.customer))?.status).toBe("active");

    // deleted then updated in the same second: stays canceled.
    const ended = ids();
    await deliverOk(subscriptionEvent("deleted", t, { ...ended, status: "canceled" }));
    await deliverOk(subscriptionEvent("updated", t, { ...ended, status: "active" }));
    expect((await storedSubscription(ended.customer))?.status).toBe("canceled");
  });

  it("a later deletion of the customer's old subscription does not hide their new live one", async () => {
    const customer = unique("cus");
    const [oldSub, newSub] = [unique("sub"), unique("sub")];
    const t = nowSeconds() - 100;
    await deliverOk(subscriptionEvent("created", t, { id: oldSub, customer, status: "active" }));
    // Held while the old one is live, shown once it ends.
    await capturingConsole(() =>
      deliverOk(subscriptionEvent("created", t + 10, { id: newSub, customer, status: "active", lookupKey: "team" })),
    );
    await deliverOk(subscriptionEvent("deleted", t + 20, { id: oldSub, customer, status: "canceled" }));
    expect(await storedSubscription(customer)).toMatchObject({
      subscription_id: newSub,
      status: "active",
      plan: "team",
    });

    // Once the new one ends too, a later subscription of the customer takes the record.
    await deliverOk(subscriptionEvent("deleted", t + 30, { id: newSub, customer, status: "canceled" }));
    const third = unique("sub");
    await deliverOk(subscriptionEvent("created", t + 40, { id: third, customer, status: "incomplete" }));
    expect(await storedSubscription(customer)).toMatchObject({ subscription_id: third, status: "incomplete" });
  });
});

describe("invoices", () => {
  async function subscription(status: string, at: number) {
    const sub = ids();
    await deliverOk(subscriptionEvent("updated", at, { ...sub, status }));
    return sub;
  }

  it("invoice.paid makes a past_due subscription active (recent shape: parent.subscription_details)", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("past_due", t);
    await deliverOk(invoiceEvent("paid", t + 10, { customer: sub.customer, subscription: sub.id }));
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "active", state_at: t + 10 });
  });

  it("invoice.payment_failed makes an active subscription past_due (older shape: invoice.subscription)", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("active", t);
    await deliverOk(
      invoiceEvent("payment_failed", t + 10, { customer: sub.customer, subscription: sub.id, shape: "legacy" }),
    );
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "past_due", state_at: t + 10 });
  });

  it("never brings back a canceled subscription, however new the invoice", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("canceled", t);
    for (const outcome of ["paid", "payment_failed"] as const) {
      await deliverOk(invoiceEvent(outcome, t + 50, { customer: sub.customer, subscription: sub.id }));
    }
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "canceled", state_at: t });
  });

  it("an invoice older than the stored state changes nothing", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("active", t);
    await deliverOk(invoiceEvent("payment_failed", t - 10, { customer: sub.customer, subscription: sub.id }));
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "active", state_at: t });
  });

  it("a subscription event older than an invoice that changed the status changes nothing", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("past_due", t);
    await deliverOk(invoiceEvent("paid", t + 20, { customer: sub.customer, subscription: sub.id }));
    await deliverOk(subscriptionEvent("updated", t + 10, { ...sub, status: "past_due" }));
    expect((await storedSubscription(sub.customer))?.status).toBe("active");
  });

  it("an invoice of another subscription, or of nobody known, changes nothing", async () => {
    const t = nowSeconds() - 100;
    const sub = await subscription("active", t);
    await deliverOk(invoiceEvent("payment_failed", t + 10, { customer: sub.customer, subscription: unique("sub") }));
    expect((await storedSubscription(sub.customer))?.status).toBe("active");
    const stranger = unique("cus");
    const res = await deliver(invoiceEvent("paid", t + 10, { customer: stranger, subscription: unique("sub") }));
    expect(res.status).toBe(200);
    expect(await storedSubscription(stranger)).toBeNull();
  });

  it("an invoice that arrives before its subscription is applied when the subscription arrives; a resend changes nothing", async () => {
    const sub = ids();
    const t = nowSeconds() - 100;
    const failed = invoiceEvent("payment_failed", t + 10, { customer: sub.customer, subscription: sub.id });
    expect(await deliverOk(failed)).toMatchObject({ handled: true, duplicate: false });
    expect(await storedSubscription(sub.customer)).toBeNull();

    const created = subscriptionEvent("created", t, { ...sub, status: "active" });
    await deliverOk(created);
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "past_due", state_at: t + 10 });

    for (const again of [failed, created]) {
      expect(await deliverOk(again)).toMatchObject({ handled: true, duplicate: true });
    }
    expect(await storedSubscription(sub.customer)).toMatchObject({ status: "past_due", state_at: t + 10 });
  });

  it("an invoice of the customer's next subscription, before it, is applied when it is shown", async () => {
    const customer = unique("cus");
    const [old, next] = [unique("sub"), unique("sub")];
    const t = nowSeconds() - 100;
    await deliverOk(subscriptionEvent("created", t, { id: old, customer, status: "active" }));
    await deliverOk(invoiceEvent("payment_failed", t + 20, { customer, subscription: next }));
    expect(await storedSubscription(customer)).toMatchObject({ subscription_id: old, status: "active" });
    await capturingConsole(() =>
      deliverOk(subscriptionEvent("created", t + 10, { id: next, customer, status: "active" })),
    );
    // Held while the old one is live; shown, with its invoice applied, once the old one ends.
    expect(await storedSubscription(customer)).toMatchObject({ subscription_id: old, status: "active" });
    await deliverOk(subscriptionEvent("deleted", t + 30, { id: old, customer, status: "canceled" }));
    expect(await storedSubscription(customer)).toMatchObject({
      subscription_id: next,
      status: "past_due",
      state_at: t + 20,
    });
  });

  /** Every order of `events`. */
  const orders = <T>(events: T[]): T[][] =>
    events.length <= 1
      ? [events]
      : events.flatMap((first, i) => orders(events.filter((_, j) => j !== i)).map((rest) => [first, ...rest]));

  for (const [story, steps, expected] of [
    [
      "incomplete, paid, then failed",
      [
        ["created", 0, "incomplete"],
        ["paid", 10],
        ["payment_failed", 20],
      ],
      { status: "past_due", state_at: 20 },
    ],
    [
      "active, failed, then paid",
      [
        ["created", 0, "active"],
        ["payment_failed", 10],
        ["paid", 20],
      ],
      { status: "active", state_at: 20 },
    ],
    [
      "trialing, a failure and its payment in one second (the payment counts as later)",
      [
        ["created", 0, "trialing"],
        ["payment_failed", 10],
        ["paid", 10],
      ],
      { status: "active", state_at: 10 },
    ],
    [
      "active, failed, then updated as active later still",
      [
        ["created", 0, "active"],
        ["payment_failed", 10],
        ["updated", 20, "active"],
      ],
      { status: "active", state_at: 20 },
    ],
  ] as const) {
    it(`a subscription and its invoices leave one state whatever the order: ${story}`, async () => {
      const t = nowSeconds() - 100;
      for (const order of orders([...steps])) {
        const sub = ids();
        const events = order.map(([type, at, status]) =>
          type === "paid" || type === "payment_failed"
            ? invoiceEvent(type, t + at, { customer: sub.customer, subscription: sub.id })
            : subscriptionEvent(type, t + at, { ...sub, status: status ?? "active" }),
        );
        for (const each of events) await deliverOk(each);
        const arrived = order.map(([type, at]) => `${type}@${at}`).join(", ");
        const stored = await storedSubscription(sub.customer);
        expect({ arrived, status: stored?.status, state_at: stored?.state_at }).toEqual({
          arrived,
          status: expected.status,
          state_at: t + expected.state_at,
        });
        // Stripe's resend of every event changes nothing.
        for (const each of events) expect((await deliverOk(each)).duplicate).toBe(true);
        expect(await storedSubscription(sub.customer)).toEqual(stored);
      }
    });
  }
});

describe("checkout links customers to users", () => {
  it("a subscription seen before its checkout is kept by customer, and linked when the checkout comes", async () => {
    const user = await createUser();
    const sub = ids();
    const t = nowSeconds() - 60;
    await deliverOk(subscriptionEvent("created", t + 1, { ...sub, status: "active", lookupKey: "pro_yearly" }));
    expect(await storedSubscription(sub.customer)).toMatchObject({ user_id: null, status: "active" });
    expect((await api<{ plan: string }>(ME, { auth: user })).body.plan).toBe("free");

    await deliverOk(checkoutEvent(t, { customer: sub.customer, userId: user.id, subscription: sub.id }));
    expect(await storedSubscription(sub.customer)).toMatchObject({
      user_id: user.id,
      linked_at: t,
      status: "active",
      state_at: t + 1,
    });
    expect((await api<{ plan: string }>(ME, { auth: user })).body.plan).toBe("pro_yearly");
  });

  it("takes the user from metadata.user_id when there is no client_reference_id", async () => {
    const user = await createUser();
    const customer = unique("cus");
    await deliverOk(checkoutEvent(nowSeconds(), { customer, metadataUserId: user.id }));
    expect((await storedSubscription(customer))?.user_id).toBe(user.id);
  });

  it("an unknown user id is not recorded (handled: false, a warning logged), so a resend once the user exists links it", async () => {
    const userId = crypto.randomUUID();
    const customer = unique("cus");
    const t = nowSeconds() - 60;
    await deliverOk(subscriptionEvent("created", t, { id: unique("sub"), customer, status: "active" }));
    const checkout = checkoutEvent(t, { customer, userId });
    const { result: unknown, logged } = await capturingConsole(() =>
      deliver(checkout, { headers: { "X-Request-Id": "checkout-unknown-user" } }),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ event_id: checkout.id, handled: false, duplicate: false });
    expect(await recordedEvent(checkout.id)).toBeNull();
    expect((await storedSubscription(customer))?.user_id).toBeNull();
    expect(unknown.body.ignored).toBe("unknown_user");
    expect(logged).toContain('"request_id":"checkout-unknown-user"');
    expect(logged).toContain(checkout.id);

    // The user signs up afterwards; Stripe's "resend" delivers the same event again.
    await env.DB.prepare("INSERT INTO users (id, email) VALUES (?, ?)").bind(userId, `${userId}@example.test`).run();
    const resent = await deliver(checkout);
    expect(resent.body).toMatchObject({ handled: true, duplicate: false });
    expect(await recordedEvent(checkout.id)).not.toBeNull();
    expect(await storedSubscription(customer)).toMatchObject({ user_id: userId, linked_at: t, status: "active" });
    expect((await deliver(checkout)).body).toMatchObject({ handled: true, duplicate: true });
  });

  it("takes the user's provider id (users.external_id) as well as users.id", async () => {
    for (const field of ["userId", "metadataUserId"] as const) {
      const user = await createUser();
      const externalId = `clerk:${unique("user")}`;
      await env.DB.prepare("UPDATE users SET external_id = ? WHERE id = ?").bind(externalId, user.id).run();
      const customer = unique("cus");
      const res = await deliver(checkoutEvent(nowSeconds(), { customer, [field]: externalId }));
      expect(res.body).toMatchObject({ handled: true, duplicate: false });
      expect((await storedSubscription(customer))?.user_id).toBe(user.id);
    }
  });

  it("a checkout without customer or user links nothing and is not recorded", async () => {
    const customer = unique("cus");
    const user = await createUser();
    for (const checkout of [
      checkoutEvent(nowSeconds(), { customer: null, userId: user.id }),
      checkoutEvent(nowSeconds(), { customer }),
    ]) {
      const { result: res } = await capturingConsole(() => deliver(checkout));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ handled: false, duplicate: false, ignored: "no_customer_or_user" });
      expect(await recordedEvent(checkout.id)).toBeNull();
    }
    expect(await storedSubscription(customer)).toBeNull();
    expect(await subscriptionOfUser(user.id)).toBeNull();
  });

  it("only a subscription-mode checkout links: payment and setup sessions leave the user where they are", async () => {
    const user = await createUser();
    const { customer } = await subscribe(user);
    for (const mode of ["payment", "setup"]) {
      const other = unique("cus");
      const res = await deliver(checkoutEvent(nowSeconds(), { customer: other, userId: user.id, mode }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ handled: false, duplicate: false, ignored: "not_a_subscription_checkout" });
      expect(await recordedEvent(res.body.event_id)).toBeNull();
      expect(await storedSubscription(other)).toBeNull();
    }
    expect((await storedSubscription(customer))?.user_id).toBe(user.id);
    expect((await api<{ plan: string }>(ME, { auth: user })).body.plan).toBe("pro_monthly");
  });

  it("a second checkout naming a user on a live subscription is held for the operator, paid or not: the subscription keeps its user", async () => {
    for (const paymentStatus of ["paid", "unpaid"]) {
      const user = await createUser();
      const first = await subscribe(user);
      const next = ids();
      // Anyone can name the user in a Payment Link's client_reference_id, and pay.
      const checkout = checkoutEvent(nowSeconds(), {
        customer: next.customer,
        userId: user.id,
        subscription: next.id,
        paymentStatus,
      });
      await deliverOk(subscriptionEvent("created", nowSeconds(), { ...next, status: "active", lookupKey: "team" }));
      const { res: held, line } = await deliverLogged(checkout, "checkout-held");
      expect(held.status).toBe(200);
      expect(held.body).toMatchObject({ handled: false, duplicate: false, ignored: "user_on_another_subscription" });
      expect(line).toMatchObject({
        level: "warn",
        request_id: "checkout-held",
        event_id: checkout.id,
        ignored: "user_on_another_subscription",
        customer_id: next.customer,
        user_id: user.id,
      });
      expect(await heldCheckout(checkout.id)).toMatchObject({
        customer_id: next.customer,
        user_id: user.id,
        reason: "user_on_another_subscription",
        user_customer_id: first.customer,
        customer_user_id: null,
        checkout_at: checkout.created,
        released_at: null,
      });
      expect(await recordedEvent(checkout.id)).toBeNull();
      expect((await storedSubscription(first.customer))?.user_id).toBe(user.id);
      expect((await storedSubscription(next.customer))?.user_id).toBeNull();
      const me = await api<{ plan: string; subscription: { subscription_id: string } }>(ME, { auth: user });
      expect(me.body).toMatchObject({ plan: "pro_monthly", subscription: { subscription_id: first.subscription } });

      // The user can still cancel what bills them.
      const stripe = fakeThirdParties((request) =>
        Response.json(
          new URL(request.url).pathname === `/v1/subscriptions/${first.subscription}`
            ? subscriptionObject({ id: first.subscription, customer: first.customer, status: "active" })
            : { error: { type: "invalid_request_error" } },
          { status: new URL(request.url).pathname === `/v1/subscriptions/${first.subscription}` ? 200 : 404 },
        ),
      );
      try {
        const cancelled = await api<{ subscription_id: string }>(CANCEL, { method: "POST", auth: user });
        expect(cancelled.status).toBe(200);
        expect(cancelled.body.subscription_id).toBe(first.subscription);
      } finally {
        stripe.restore();
      }

      // A resend while the conflict stands holds it again, once.
      expect((await capturingConsole(() => deliver(checkout))).result.body).toMatchObject({
        handled: false,
        ignored: "user_on_another_subscription",
      });
      const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM held_checkouts WHERE event_id = ?")
        .bind(checkout.id)
        .first<{ n: number }>();
      expect(count?.n).toBe(1);

      // The end of the first subscription releases the hold: the checkout is applied and recorded.
      const ended = subscriptionEvent("deleted", nowSeconds(), {
        id: first.subscription,
        customer: first.customer,
        status: "canceled",
      });
      await deliverOk(ended);
      expect(await recordedEvent(checkout.id)).not.toBeNull();
      expect(await heldCheckout(checkout.id)).toMatchObject({ released_by: ended.id });
      expect((await heldCheckout(checkout.id))?.released_at).not.toBeNull();
      expect((await deliver(checkout)).body).toMatchObject({ handled: true, duplicate: true });
      expect((await storedSubscription(first.customer))?.user_id).toBeNull();
      expect((await storedSubscription(next.customer))?.user_id).toBe(user.id);
      expect((await api<{ plan: string }>(ME, { auth: user })).body.plan).toBe("team");
    }
  });

  it("whichever checkout of two paid ones arrives first links the user; the other is held, its subscription unlinked", async () => {
    const user = await createUser();
    const [first, second] = [ids(), ids()];
    const t = nowSeconds() - 100;
    const [older, newer] = [
      checkoutEvent(t, { customer: first.customer, userId: user.id, subscription: first.id }),
      checkoutEvent(t + 10, { customer: second.customer, userId: user.id, subscription: second.id }),
    ];
    await deliverOk(newer);
    await deliverOk(subscriptionEvent("created", t + 10, { ...second, status: "active", lookupKey: "team" }));
    await deliverOk(subscriptionEvent("created", t, { ...first, status: "active" }));
    const { result } = await capturingConsole(() => deliver(older));
    expect(result.body).toMatchObject({ handled: false, ignored: "user_on_another_subscription" });
    expect(await heldCheckout(older.id)).toMatchObject({
      customer_id: first.customer,
      user_customer_id: second.customer,
    });
    expect((await storedSubscription(first.customer))?.user_id).toBeNull();
    expect((await storedSubscription(second.customer))?.user_id).toBe(user.id);
  });

  it("a checkout naming a customer that another user pays through is held: the customer keeps its user", async () => {
    const [ada, bob] = [await createUser(), await createUser()];
    const { customer, subscription } = await subscribe(ada);
    const checkout = checkoutEvent(nowSeconds(), { customer, userId: bob.id });
    const { result, logged } = await capturingConsole(() => deliver(checkout));
    expect(result.body).toMatchObject({ handled: false, duplicate: false, ignored: "customer_of_another_user" });
    expect(logged).toContain(checkout.id);
    expect(await heldCheckout(checkout.id)).toMatchObject({
      customer_id: customer,
      user_id: bob.id,
      reason: "customer_of_another_user",
      user_customer_id: null,
      customer_user_id: ada.id,
      released_at: null,
    });
    expect(await recordedEvent(checkout.id)).toBeNull();
    expect((await storedSubscription(customer))?.user_id).toBe(ada.id);
    expect(await subscriptionOfUser(bob.id)).toBeNull();
    expect(await subscriptionOfUser(ada.id)).toMatchObject({ customer_id: customer, subscription_id: subscription });
  });

  it("a paid checkout moves a user whose subscription has ended, before the new subscription's event arrives", async () => {
    const user = await createUser();
    const { customer, subscription } = await subscribe(user);
    await deliverOk(subscriptionEvent("deleted", nowSeconds(), { id: subscription, customer, status: "canceled" }));
    const next = ids();
    const checkout = checkoutEvent(nowSeconds(), { customer: next.customer, userId: user.id, subscription: next.id });
    expect(await deliverOk(checkout)).toMatchObject({ handled: true, duplicate: false });
    expect(await heldCheckout(checkout.id)).toBeNull();
    expect((await storedSubscription(customer))?.user_id).toBeNull();
    expect((await storedSubscription(next.customer))?.user_id).toBe(user.id);
  });

  it("a user re-linked to a newer customer moves there; a late older checkout does not take them back", async () => {
    const user = await createUser();
    const [first, second] = [ids(), ids()];
    const t = nowSeconds() - 100;
    await deliverOk(checkoutEvent(t, { customer: first.customer, userId: user.id }));
    await deliverOk(subscriptionEvent("created", t, { ...first, status: "canceled" }));
    await deliverOk(checkoutEvent(t + 20, { customer: second.customer, userId: user.id }));
    await deliverOk(subscriptionEvent("created", t + 20, { ...second, status: "active", lookupKey: "team" }));
    expect((await storedSubscription(first.customer))?.user_id).toBeNull();
    expect((await storedSubscription(second.customer))?.user_id).toBe(user.id);

    // A checkout made between the two, delivered last: held, as the user's subscription is live.
    const late = checkoutEvent(t + 10, { customer: first.customer, userId: user.id });
    const { result } = await capturingConsole(() => deliver(late));
    expect(result.body).toMatchObject({ handled: false, ignored: "user_on_another_subscription" });
    expect((await storedSubscription(first.customer))?.user_id).toBeNull();
    expect((await storedSubscription(second.customer))?.user_id).toBe(user.id);
    const me = await api<{ plan: string; subscription: { subscription_id: string } }>(ME, { auth: user });
    expect(me.body).toMatchObject({ plan: "team", subscription: { subscription_id: second.id } });
  });

  it("a customer moves to the user of its newest checkout once its subscription has ended, never back to an older one", async () => {
    const [ada, bob] = [await createUser(), await createUser()];
    const sub = ids();
    const t = nowSeconds() - 100;
    await deliverOk(checkoutEvent(t, { customer: sub.customer, userId: ada.id }));
    // While the customer's subscription may still be on its way (or live), another user's checkout is held.
    const toBob = checkoutEvent(t + 10, { customer: sub.customer, userId: bob.id });
    const { result } = await capturingConsole(() => deliver(toBob));
    expect(result.body).toMatchObject({ handled: false, ignored: "customer_of_another_user" });
    expect((await storedSubscription(sub.customer))?.user_id).toBe(ada.id);

    await deliverOk(subscriptionEvent("deleted", t + 5, { ...sub, status: "canceled" }));
    expect((await deliver(toBob)).body).toMatchObject({ handled: true, duplicate: false });
    expect((await storedSubscription(sub.customer))?.user_id).toBe(bob.id);
    // An older checkout delivered late does not take it back.
    await deliverOk(checkoutEvent(t + 1, { customer: sub.customer, userId: ada.id }));
    expect((await storedSubscription(sub.customer))?.user_id).toBe(bob.id);
  });
});
