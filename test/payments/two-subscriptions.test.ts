import { afterEach, describe, expect, it } from "vitest";
import type { Me } from "../../src/schemas/subscriptions";
import { api, createUser, type TestUser } from "../helpers/api";
import {
  CANCEL,
  capturingConsole,
  checkoutEvent,
  deliver,
  deliverLogged,
  deliverOk,
  heldCheckout,
  keptSubscriptionState,
  ME,
  nowSeconds,
  recordedEvent,
  type StripeTestEvent,
  storedSubscription,
  subscribe,
  subscriptionEvent,
  subscriptionObject,
  unique,
} from "../helpers/payments";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";

let stripe: FakedThirdParties | undefined;
afterEach(() => {
  stripe?.restore();
  stripe = undefined;
});

const me = async (user: TestUser) => (await api<Me>(ME, { auth: user })).body;

/** Delivers each event (logging silenced: held ones are logged). */
async function deliverAll(events: StripeTestEvent[]) {
  await capturingConsole(async () => {
    for (const each of events) await deliverOk(each);
  });
}

/** Every event again, as Stripe's resend: each a duplicate, changing nothing of the customer's record. */
async function expectResendsChangeNothing(customer: string, events: StripeTestEvent[]) {
  const before = await storedSubscription(customer);
  for (const each of events) expect(await deliverOk(each)).toMatchObject({ handled: true, duplicate: true });
  expect(await storedSubscription(customer)).toEqual(before);
}

/** A Stripe that cancels at once any of `subscriptions` of `customer`, answering it canceled. */
const fakeStripeCancellingAtOnce = (customer: string, subscriptions: string[]) =>
  fakeThirdParties((request) => {
    const id = new URL(request.url).pathname.split("/").at(-1) ?? "";
    if (request.method !== "DELETE" || !subscriptions.includes(id)) {
      return Response.json({ error: { type: "invalid_request_error" } }, { status: 404 });
    }
    return Response.json(subscriptionObject({ id, customer, status: "canceled" }), {
      headers: { Date: new Date().toUTCString() },
    });
  });

describe("a second subscription of the same customer", () => {
  it("is held while the shown one has not ended: logged, answered held, the user still sees (and cancels) the first", async () => {
    const alice = await createUser();
    const { customer, subscription: first } = await subscribe(alice);
    const t = nowSeconds() - 30;
    // A second checkout on the same customer, naming the same user: no conflict of links.
    expect(await deliverOk(checkoutEvent(t, { customer, userId: alice.id }))).toMatchObject({
      handled: true,
      duplicate: false,
    });
    const second = unique("sub");
    const created = subscriptionEvent("created", t + 1, { id: second, customer, status: "active", lookupKey: "team" });
    const { res, line } = await deliverLogged(created, "second-subscription");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ handled: true, duplicate: false, held: "customer_on_another_subscription" });
    expect(line).toMatchObject({
      level: "warn",
      request_id: "second-subscription",
      event_id: created.id,
      held: "customer_on_another_subscription",
      customer_id: customer,
      subscription_id: second,
      shown_subscription_id: first,
    });
    expect(await recordedEvent(created.id)).not.toBeNull();
    expect(await keptSubscriptionState(customer, second)).toMatchObject({
      status: "active",
      state_at: t + 1,
      held_at: expect.any(String),
      released_at: null,
    });
    expect(await me(alice)).toMatchObject({ plan: "pro_monthly", subscription: { subscription_id: first } });

    // The record does not follow whichever event came last: a later state of either changes nothing of that.
    const firstUpdated = subscriptionEvent("updated", t + 2, { id: first, customer, status: "active" });
    await deliverOk(firstUpdated);
    const secondUpdated = subscriptionEvent("updated", t + 3, {
      id: second,
      customer,
      status: "active",
      lookupKey: "team",
    });
    const again = await capturingConsole(() => deliver(secondUpdated));
    expect(again.result.body).toMatchObject({ handled: true, held: "customer_on_another_subscription" });
    expect(await me(alice)).toMatchObject({ subscription: { subscription_id: first, status: "active" } });
    expect(await keptSubscriptionState(customer, second)).toMatchObject({ state_at: t + 3, released_at: null });
    await expectResendsChangeNothing(customer, [created, firstUpdated, secondUpdated]);

    // The cancellation reaches the subscription shown; once it has ended, the held one is shown, and reachable.
    stripe = fakeStripeCancellingAtOnce(customer, [first, second]);
    const cancelled = await api<{ subscription_id: string; status: string }>(CANCEL, {
      method: "POST",
      auth: alice,
      body: { at_period_end: false },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ subscription_id: first, status: "canceled" });
    expect(await me(alice)).toMatchObject({
      plan: "team",
      subscription: { subscription_id: second, status: "active" },
    });
    expect((await keptSubscriptionState(customer, second))?.released_at).not.toBeNull();
    const next = await api<{ subscription_id: string }>(CANCEL, {
      method: "POST",
      auth: alice,
      body: { at_period_end: false },
    });
    expect(next.body).toMatchObject({ subscription_id: second, status: "canceled" });
    expect(stripe.requests.map((request) => [request.method, new URL(request.url).pathname])).toEqual([
      ["DELETE", `/v1/subscriptions/${first}`],
      ["DELETE", `/v1/subscriptions/${second}`],
    ]);
    expect(await me(alice)).toMatchObject({ plan: "free", subscription: { subscription_id: second } });
  });

  for (const gap of [0, 1]) {
    for (const deletedFirst of [false, true]) {
      it(`a plan change (new subscription created, old deleted ${gap} s later) shows the new one when the ${deletedFirst ? "deletion" : "creation"} arrives first`, async () => {
        const user = await createUser();
        const { customer, subscription: old } = await subscribe(user);
        const next = unique("sub");
        const t = nowSeconds() - 30;
        const created = subscriptionEvent("created", t, { id: next, customer, status: "active", lookupKey: "team" });
        const deleted = subscriptionEvent("deleted", t + gap, { id: old, customer, status: "canceled" });
        const events = deletedFirst ? [deleted, created] : [created, deleted];
        await deliverAll(events);
        expect(await me(user)).toMatchObject({
          plan: "team",
          subscription: { subscription_id: next, status: "active" },
        });
        expect(await storedSubscription(customer)).toMatchObject({ user_id: user.id, state_at: t });
        await expectResendsChangeNothing(customer, events);
      });
    }
  }

  for (const endedFirst of [false, true]) {
    it(`a held subscription that ends before the shown one is never shown (its end arriving ${endedFirst ? "before" : "after"} its creation)`, async () => {
      const user = await createUser();
      const { customer, subscription: first } = await subscribe(user);
      const second = unique("sub");
      const t = nowSeconds() - 30;
      const created = subscriptionEvent("created", t, { id: second, customer, status: "active" });
      const ended = subscriptionEvent("deleted", t + 5, { id: second, customer, status: "canceled" });
      await deliverAll(endedFirst ? [ended, created] : [created, ended]);
      expect(await me(user)).toMatchObject({ subscription: { subscription_id: first, status: "active" } });
      expect(await keptSubscriptionState(customer, second)).toMatchObject({ status: "canceled", state_at: t + 5 });

      const firstEnded = subscriptionEvent("deleted", t + 10, { id: first, customer, status: "canceled" });
      await deliverOk(firstEnded);
      expect(await me(user)).toMatchObject({
        plan: "free",
        subscription: { subscription_id: first, status: "canceled" },
      });
      await expectResendsChangeNothing(customer, [created, ended, firstEnded]);
    });
  }

  it("of several held subscriptions, the latest is shown when the shown one ends, then the next that has not ended", async () => {
    const user = await createUser();
    const { customer, subscription: first } = await subscribe(user);
    const [team, enterprise] = [unique("sub"), unique("sub")];
    const t = nowSeconds() - 30;
    await deliverAll([
      subscriptionEvent("created", t + 5, { id: enterprise, customer, status: "trialing", lookupKey: "enterprise" }),
      subscriptionEvent("created", t, { id: team, customer, status: "active", lookupKey: "team" }),
    ]);
    expect(await me(user)).toMatchObject({ subscription: { subscription_id: first } });
    await deliverOk(subscriptionEvent("deleted", t + 10, { id: first, customer, status: "canceled" }));
    expect(await me(user)).toMatchObject({ plan: "enterprise", subscription: { subscription_id: enterprise } });
    await deliverOk(subscriptionEvent("deleted", t + 20, { id: enterprise, customer, status: "canceled" }));
    expect(await me(user)).toMatchObject({ plan: "team", subscription: { subscription_id: team } });
  });

  it("a late, older state of a subscription whose end was shown does not bring it back", async () => {
    const user = await createUser();
    const { customer, subscription: old } = await subscribe(user);
    const next = unique("sub");
    const t = nowSeconds() - 50;
    await deliverAll([
      subscriptionEvent("deleted", t + 10, { id: old, customer, status: "canceled" }),
      subscriptionEvent("created", t + 5, { id: next, customer, status: "active", lookupKey: "team" }),
    ]);
    expect(await me(user)).toMatchObject({ subscription: { subscription_id: next } });
    // Delivered late (Stripe retries for days): older than the deletion already kept. Not held: outdated.
    const late = await deliver(subscriptionEvent("updated", t + 1, { id: old, customer, status: "active" }));
    expect(late.body).toMatchObject({ handled: true, duplicate: false });
    expect(late.body.held).toBeUndefined();
    await deliverOk(subscriptionEvent("deleted", t + 20, { id: next, customer, status: "canceled" }));
    expect(await me(user)).toMatchObject({
      plan: "free",
      subscription: { subscription_id: next, status: "canceled" },
    });
  });
});

describe("a checkout held because its user was on another subscription", () => {
  it("is applied when that subscription ends: a user on an incomplete subscription who paid again gets what they paid", async () => {
    const user = await createUser();
    const [first, next] = [
      { customer: unique("cus"), id: unique("sub") },
      { customer: unique("cus"), id: unique("sub") },
    ];
    const t = nowSeconds() - 100;
    await deliverOk(checkoutEvent(t, { customer: first.customer, userId: user.id, subscription: first.id }));
    await deliverOk(subscriptionEvent("created", t, { ...first, status: "incomplete" }));
    await deliverOk(subscriptionEvent("created", t + 10, { ...next, status: "active", lookupKey: "team" }));
    const checkout = checkoutEvent(t + 10, { customer: next.customer, userId: user.id, subscription: next.id });
    const { result } = await capturingConsole(() => deliver(checkout));
    expect(result.body).toMatchObject({ handled: false, ignored: "user_on_another_subscription" });
    expect(await me(user)).toMatchObject({ plan: "free", subscription: { subscription_id: first.id } });

    const expired = subscriptionEvent("updated", t + 20, { ...first, status: "incomplete_expired" });
    expect(await deliverOk(expired)).toMatchObject({ handled: true, duplicate: false });
    expect(await me(user)).toMatchObject({ plan: "team", subscription: { subscription_id: next.id } });
    expect(await heldCheckout(checkout.id)).toMatchObject({ released_by: expired.id, released_at: expect.any(String) });
    expect(await recordedEvent(checkout.id)).not.toBeNull();
    expect((await storedSubscription(first.customer))?.user_id).toBeNull();
    expect(await storedSubscription(next.customer)).toMatchObject({ user_id: user.id, linked_at: t + 10 });
    // Resends: duplicates, nothing moves.
    for (const each of [checkout, expired]) expect((await deliverOk(each)).duplicate).toBe(true);
    expect(await me(user)).toMatchObject({ subscription: { subscription_id: next.id } });
  });

  it("is applied when the user cancels that subscription at once", async () => {
    const user = await createUser();
    const { customer, subscription } = await subscribe(user, { status: "unpaid" });
    const next = { customer: unique("cus"), id: unique("sub") };
    await deliverOk(subscriptionEvent("created", nowSeconds() - 10, { ...next, status: "active", lookupKey: "team" }));
    const checkout = checkoutEvent(nowSeconds() - 10, { customer: next.customer, userId: user.id });
    await capturingConsole(() => deliver(checkout));
    expect((await heldCheckout(checkout.id))?.released_at).toBeNull();

    stripe = fakeStripeCancellingAtOnce(customer, [subscription]);
    const cancelled = await api(CANCEL, { method: "POST", auth: user, body: { at_period_end: false } });
    expect(cancelled.body).toMatchObject({ subscription_id: subscription, status: "canceled" });
    expect(await me(user)).toMatchObject({ plan: "team", subscription: { subscription_id: next.id } });
    expect((await heldCheckout(checkout.id))?.released_by).toMatch(/^stripe_answer:/);
    expect(await recordedEvent(checkout.id)).not.toBeNull();
  });

  it("is left to the operator when it is older than the user's link, or its customer is another user's", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const [linked, older, taken] = [
      { customer: unique("cus"), id: unique("sub") },
      { customer: unique("cus"), id: unique("sub") },
      { customer: unique("cus"), id: unique("sub") },
    ];
    const t = nowSeconds() - 100;
    await deliverOk(checkoutEvent(t + 10, { customer: linked.customer, userId: user.id }));
    await deliverOk(subscriptionEvent("created", t + 10, { ...linked, status: "active" }));
    await deliverOk(checkoutEvent(t + 10, { customer: taken.customer, userId: other.id }));
    await deliverOk(subscriptionEvent("created", t + 10, { ...taken, status: "active" }));
    const olderCheckout = checkoutEvent(t, { customer: older.customer, userId: user.id });
    const takenCheckout = checkoutEvent(t + 15, { customer: taken.customer, userId: user.id });
    await capturingConsole(async () => {
      for (const each of [olderCheckout, takenCheckout]) await deliver(each);
    });

    await deliverOk(subscriptionEvent("deleted", t + 20, { ...linked, status: "canceled" }));
    for (const each of [olderCheckout, takenCheckout]) {
      expect(await heldCheckout(each.id)).toMatchObject({ released_at: null, released_by: null });
      expect(await recordedEvent(each.id)).toBeNull();
    }
    expect((await storedSubscription(linked.customer))?.user_id).toBe(user.id);
    expect((await storedSubscription(taken.customer))?.user_id).toBe(other.id);
  });
});
