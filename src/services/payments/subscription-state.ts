/**
 * The per-customer subscription record (table `subscriptions`), written only by conditional
 * statements: each holds its own rule of precedence in SQL, so concurrent and out-of-order
 * writers never need a read first.
 *
 * Precedence of subscription states: a state produced later by Stripe (`state_at`, the event's
 * `created`, Unix seconds) replaces an earlier one; an earlier one changes nothing. Within the
 * same second, a state of the same subscription replaces the stored one unless it goes back in
 * its life (incomplete → live → ended). A record holding a live subscription is replaced by
 * another subscription of the customer only when that one is live too, so an old subscription's
 * late cancellation never hides the customer's new one.
 */
import { type SQL, sql } from "drizzle-orm";
import { ENDED_STATUSES, FREE_PLAN, isLive, LIVE_STATUSES, type Subscription } from "../../schemas/subscriptions";
import type { SubscriptionState } from "./stripe-objects";

const list = (values: readonly string[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/** Where a status is in a subscription's life: incomplete 0, live or paused 1, ended 2. */
const lifeStage = (status: SQL) =>
  sql`(CASE WHEN ${status} = 'incomplete' THEN 0 WHEN ${status} IN (${list(ENDED_STATUSES)}) THEN 2 ELSE 1 END)`;

/** A statement of a webhook event applies only while the event has not been applied; null: not from an event. */
const eventIsNew = (eventId: string | null) =>
  eventId === null ? sql`1` : sql`NOT EXISTS (SELECT 1 FROM payment_events WHERE id = ${eventId})`;

/**
 * Stores a subscription's state under its customer (creating the record, not yet linked to a
 * user, when the customer is new), unless the stored state takes precedence (see above).
 */
export function writeSubscriptionState(
  state: SubscriptionState,
  stateAt: number,
  now: Date,
  eventId: string | null,
): SQL {
  return sql`
    INSERT INTO subscriptions (customer_id, subscription_id, status, price_id, plan, current_period_end,
      cancel_at_period_end, state_at, updated_at)
    SELECT ${state.customerId}, ${state.subscriptionId}, ${state.status}, ${state.priceId}, ${state.plan},
      ${state.currentPeriodEnd}, ${state.cancelAtPeriodEnd ? 1 : 0}, ${stateAt}, ${now.toISOString()}
    WHERE ${eventIsNew(eventId)}
    ON CONFLICT (customer_id) DO UPDATE SET
      subscription_id = excluded.subscription_id, status = excluded.status, price_id = excluded.price_id,
      plan = excluded.plan, current_period_end = excluded.current_period_end,
      cancel_at_period_end = excluded.cancel_at_period_end, state_at = excluded.state_at,
      updated_at = excluded.updated_at
    WHERE (excluded.state_at > subscriptions.state_at
        OR (excluded.state_at = subscriptions.state_at
          AND (subscriptions.subscription_id IS NOT excluded.subscription_id
            OR ${lifeStage(sql.raw("excluded.status"))} >= ${lifeStage(sql.raw("subscriptions.status"))})))
      AND (subscriptions.subscription_id IS NULL OR subscriptions.subscription_id = excluded.subscription_id
        OR excluded.status IN (${list(LIVE_STATUSES)})
        OR COALESCE(subscriptions.status, '') NOT IN (${list(LIVE_STATUSES)}))`;
}

/** What a paid or failed invoice does to its subscription's status, from which statuses. */
const INVOICE_OUTCOMES = {
  paid: { from: ["incomplete", "past_due", "unpaid"], to: "active" },
  payment_failed: { from: ["active", "trialing"], to: "past_due" },
} as const;

/**
 * A paid or failed invoice moves its subscription's status (a renewal that changes nothing
 * writes nothing, so it never outranks the subscription events around it). Only a stored,
 * not-ended subscription is moved, and only when the invoice is not older than its state.
 */
export function writeInvoiceOutcome(
  invoice: { customerId: string; subscriptionId: string },
  outcome: keyof typeof INVOICE_OUTCOMES,
  stateAt: number,
  now: Date,
  eventId: string,
): SQL {
  const { from, to } = INVOICE_OUTCOMES[outcome];
  return sql`
    UPDATE subscriptions SET status = ${to}, state_at = ${stateAt}, updated_at = ${now.toISOString()}
    WHERE customer_id = ${invoice.customerId} AND subscription_id = ${invoice.subscriptionId}
      AND status IN (${list(from)}) AND state_at <= ${stateAt} AND ${eventIsNew(eventId)}`;
}

/**
 * The `users.id` a checkout names: the user whose id it is, else the user whose identity
 * provider's id (`users.external_id`, `clerk:user_...`) it is; NULL when nobody is. Ids are
 * UUIDs and provider ids are prefixed by their provider, so the two never meet; the id wins.
 */
const userNamed = (userRef: string) =>
  sql`COALESCE((SELECT id FROM users WHERE id = ${userRef}), (SELECT id FROM users WHERE external_id = ${userRef}))`;

/** A completed subscription checkout, as `linkCustomer` takes it. */
export interface CheckoutLink {
  customerId: string;
  /** `users.id` or `users.external_id`. */
  userRef: string;
}

/** Why a checkout is held for the operator instead of applied (see `linkCustomer`). */
export type HeldBecause = "user_on_another_subscription" | "customer_of_another_user";

/** The statements of a checkout, for one batch (see `linkCustomer`). */
export interface LinkStatements {
  /** First in the batch, for the receipt: whether its event was applied before, why it is not applied. */
  probe: SQL;
  /** The link itself, then the record of a hold (or of its release). */
  statements: SQL[];
  /** After them: the event is applied (its id may be recorded) only when this holds. */
  applied: SQL;
}

/** What the probe of `linkCustomer` reads, before the batch writes anything. */
export interface LinkProbe {
  /** The session's customer. */
  customer_id: string;
  /** The user the checkout names, or null when there is no such user. */
  user_id: string | null;
  /** 1 when the event had been applied before. */
  recorded: number;
  /** Why it is not applied (unless recorded before): no such user, or held. */
  ignored: "unknown_user" | HeldBecause | null;
}

/**
 * A record whose subscription has not ended: any status but canceled or incomplete_expired (an
 * incomplete one may still be paid, an unpaid or paused one resumed), or none seen yet (a
 * subscription checkout always makes one, and its events may come later).
 */
const notEnded = sql`(status IS NULL OR status NOT IN (${list(ENDED_STATUSES)}))`;

/**
 * Links a customer to a user, as of a subscription checkout at `linkedAt` (Unix seconds).
 *
 * A subscription that has not ended never loses its user: a checkout naming a user linked to
 * another customer whose subscription has not ended, or a customer linked to another user whose
 * subscription has not ended, is **held** (paid or not, whichever came first): it links nothing,
 * is written to `held_checkouts` for the operator (one row per event, kept on a resend) and is not
 * applied, so its event id is not recorded and Stripe's "resend", once the conflict is gone,
 * applies it (and marks the hold released). Re-linking would leave that subscription billing with
 * no user able to see or cancel it, and anyone can name a user in a Payment Link.
 *
 * Otherwise the user's link to any other customer made no later is dropped (`user_id` is unique:
 * one record per user; that customer's subscription has ended), then the customer's record
 * (created when new) takes the user unless it was linked later still. A checkout naming no known
 * user is not applied either (nothing held: a resend once the user exists applies it).
 */
export function linkCustomer(link: CheckoutLink, linkedAt: number, now: Date, eventId: string): LinkStatements {
  const user = userNamed(link.userRef);
  const userCustomer = sql`(SELECT customer_id FROM subscriptions
    WHERE user_id = ${user} AND customer_id <> ${link.customerId} AND ${notEnded})`;
  const customerUser = sql`(SELECT user_id FROM subscriptions
    WHERE customer_id = ${link.customerId} AND user_id <> ${user} AND ${notEnded})`;
  const heldBecause = sql`(CASE WHEN ${userCustomer} IS NOT NULL THEN 'user_on_another_subscription'
    WHEN ${customerUser} IS NOT NULL THEN 'customer_of_another_user' END)`;
  const applies = sql`${eventIsNew(eventId)} AND ${user} IS NOT NULL`;
  const linking = sql`${applies} AND ${heldBecause} IS NULL`;
  return {
    probe: sql`SELECT ${link.customerId} AS customer_id, ${user} AS user_id,
      EXISTS (SELECT 1 FROM payment_events WHERE id = ${eventId}) AS recorded,
      CASE WHEN ${user} IS NULL THEN 'unknown_user' ELSE ${heldBecause} END AS ignored`,
    statements: [
      sql`
        UPDATE subscriptions SET user_id = NULL, updated_at = ${now.toISOString()}
        WHERE user_id = ${user} AND customer_id <> ${link.customerId}
          AND COALESCE(linked_at, 0) <= ${linkedAt} AND ${linking}`,
      sql`
        INSERT INTO subscriptions (customer_id, user_id, linked_at, updated_at)
        SELECT ${link.customerId}, ${user}, ${linkedAt}, ${now.toISOString()}
        WHERE ${linking}
          AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = ${user} AND customer_id <> ${link.customerId})
        ON CONFLICT (customer_id) DO UPDATE SET
          user_id = excluded.user_id, linked_at = excluded.linked_at, updated_at = excluded.updated_at
        WHERE COALESCE(subscriptions.linked_at, 0) <= excluded.linked_at`,
      sql`
        INSERT INTO held_checkouts (event_id, customer_id, user_id, reason, user_customer_id, customer_user_id,
          checkout_at, held_at)
        SELECT ${eventId}, ${link.customerId}, ${user}, ${heldBecause}, ${userCustomer}, ${customerUser},
          ${linkedAt}, ${now.toISOString()}
        WHERE ${applies} AND ${heldBecause} IS NOT NULL
        ON CONFLICT (event_id) DO NOTHING`,
      sql`
        UPDATE held_checkouts SET released_at = ${now.toISOString()}
        WHERE event_id = ${eventId} AND released_at IS NULL AND ${linking}`,
    ],
    // Nothing above changes what holds a checkout: a held one is still held after them.
    applied: sql`${user} IS NOT NULL AND ${heldBecause} IS NULL`,
  };
}

/** The stored record's columns a caller sees. */
export interface SubscriptionRecord {
  customer_id: string | null;
  subscription_id: string | null;
  status: string | null;
  price_id: string | null;
  plan: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number | null;
}

/** The record as the API shows it; null while it holds no subscription (only a link). */
export function presentSubscription(record: SubscriptionRecord | undefined): Subscription | null {
  if (!record?.customer_id || !record.subscription_id || !record.status) return null;
  return {
    customer_id: record.customer_id,
    subscription_id: record.subscription_id,
    status: record.status,
    plan: record.plan,
    price_id: record.price_id,
    current_period_end: record.current_period_end,
    cancel_at_period_end: record.cancel_at_period_end === 1,
  };
}

export const presentState = (state: SubscriptionState): Subscription => ({
  customer_id: state.customerId,
  subscription_id: state.subscriptionId,
  status: state.status,
  plan: state.plan,
  price_id: state.priceId,
  current_period_end: state.currentPeriodEnd,
  cancel_at_period_end: state.cancelAtPeriodEnd,
});

/** The plan a subscription grants: its own while live, else the free plan. */
export const planOf = (subscription: Subscription | null): string =>
  subscription && isLive(subscription.status) ? (subscription.plan ?? subscription.price_id ?? "paid") : FREE_PLAN;
