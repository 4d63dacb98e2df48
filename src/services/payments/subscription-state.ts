/**
 * The per-customer subscription record (table `subscriptions`) and every subscription's latest
 * state (table `subscription_states`), written only by conditional statements: each holds its own
 * rule of precedence in SQL, so concurrent and out-of-order writers never need a read first.
 *
 * Precedence of a subscription's states: a state produced later by Stripe (`state_at`, the event's
 * `created`, Unix seconds) replaces an earlier one; an earlier one changes nothing. Within the
 * same second, a state replaces the stored one unless it goes back in the subscription's life
 * (incomplete → live → ended).
 *
 * The record shows one subscription of its customer, and while that one has not ended it is never
 * replaced by another: a state of another subscription of the customer is **held** (kept in
 * `subscription_states`, not shown), so no subscription that still bills is hidden from its user
 * or out of reach of the cancellation. Once the shown one has ended, the latest held subscription
 * that has not ended is shown (`showHeldSubscription`, after every write), else a newer state of
 * any other. Invoices are kept and replayed over the shown state after every write of either
 * (`applyInvoiceOutcomes`), so the order events arrive in does not change the state they leave.
 * The end of the shown subscription also releases a checkout held because its user was on it
 * (`releaseHeldCheckouts`).
 */
import { type SQL, sql } from "drizzle-orm";
import type { RawRow } from "../../db/rows";
import type { subscriptions } from "../../db/schema";
import { ENDED_STATUSES, FREE_PLAN, isLive, type Subscription } from "../../schemas/subscriptions";
import type { SubscriptionState } from "./stripe-objects";

const list = (values: readonly string[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/** Where a status is in a subscription's life: incomplete 0, live or paused 1, ended 2. */
const lifeStage = (status: SQL) =>
  sql`(CASE WHEN ${status} = 'incomplete' THEN 0 WHEN ${status} IN (${list(ENDED_STATUSES)}) THEN 2 ELSE 1 END)`;

/** Whether a subscription's state (`at`, `status`) replaces its stored one (see above). */
const replaces = (at: SQL | number, status: SQL | string, storedAt: SQL, storedStatus: SQL) =>
  sql`(${at} > ${storedAt} OR (${at} = ${storedAt} AND ${lifeStage(sql`${status}`)} >= ${lifeStage(storedStatus)}))`;

/** A statement of a webhook event applies only while the event has not been applied; null: not from an event. */
const eventIsNew = (eventId: string | null) =>
  eventId === null ? sql`1` : sql`NOT EXISTS (SELECT 1 FROM payment_events WHERE id = ${eventId})`;

/**
 * A record whose subscription has not ended: any status but canceled or incomplete_expired (an
 * incomplete one may still be paid, an unpaid or paused one resumed), or none seen yet (a
 * subscription checkout always makes one, and its events may come later).
 */
const notEnded = sql`(status IS NULL OR status NOT IN (${list(ENDED_STATUSES)}))`;

/** The subscription a customer's record shows (NULL: none, or no record). */
const shownSubscription = (customerId: string) =>
  sql`(SELECT subscription_id FROM subscriptions WHERE customer_id = ${customerId})`;

/** Why a subscription's state is kept but not shown (see `heldStateProbe`). */
export type HeldStateBecause = "customer_on_another_subscription";

/** What `heldStateProbe` reads, before the batch writes anything. */
export interface StateProbe {
  /** Set when the state is held: its customer's record shows another subscription that has not ended. */
  held: HeldStateBecause | null;
  customer_id: string;
  /** The subscription of the state. */
  subscription_id: string;
  /** The subscription the customer's record shows. */
  shown_subscription_id: string | null;
}

/**
 * Whether a state is held, for the receipt and the log only (first in the batch, read in its
 * transaction; no write depends on it): the customer's record shows another subscription that has
 * not ended, and the state is not older than the one kept of its own subscription.
 */
export function heldStateProbe(state: SubscriptionState, stateAt: number): SQL {
  const { customerId, subscriptionId } = state;
  const stale = sql`EXISTS (SELECT 1 FROM subscription_states
    WHERE customer_id = ${customerId} AND subscription_id = ${subscriptionId}
      AND NOT ${replaces(stateAt, state.status, sql.raw("state_at"), sql.raw("status"))})`;
  return sql`SELECT CASE WHEN ${showsAnother(state)} AND NOT ${stale} THEN 'customer_on_another_subscription' END AS held,
    ${customerId} AS customer_id, ${subscriptionId} AS subscription_id,
    ${shownSubscription(customerId)} AS shown_subscription_id`;
}

/** The customer's record shows another subscription than `state`'s, one that has not ended: `state` is held. */
const showsAnother = (state: SubscriptionState) =>
  sql`EXISTS (SELECT 1 FROM subscriptions WHERE customer_id = ${state.customerId}
    AND subscription_id <> ${state.subscriptionId} AND ${notEnded})`;

/**
 * Stores a subscription's state, then what follows from it, for one batch:
 * - the state kept as its subscription's latest (`subscription_states`, under the precedence
 *   above), marked held (`held_at`) when the record shows another subscription that has not ended;
 * - the customer's record (created, not yet linked to a user, when the customer is new): a state
 *   of the subscription it shows replaces that one's under the same precedence; a state of another
 *   replaces it only when the shown one has ended (or there is none), and is newer;
 * - `showHeldSubscription`: the held subscription shown once the shown one has ended;
 * - the shown subscription's invoices not older than its state (`applyInvoiceOutcomes`);
 * - `releaseHeldCheckouts`: a checkout held because its user was on the subscription that ended.
 * `eventId`: the event the state comes from; null for Stripe's answer to our own call (a cancellation).
 */
export function writeSubscriptionState(
  state: SubscriptionState,
  stateAt: number,
  now: Date,
  eventId: string | null,
): SQL[] {
  const at = now.toISOString();
  const keep = sql`
    INSERT INTO subscription_states (customer_id, subscription_id, status, price_id, plan, current_period_end,
      cancel_at_period_end, state_at, held_at, updated_at)
    SELECT ${state.customerId}, ${state.subscriptionId}, ${state.status}, ${state.priceId}, ${state.plan},
      ${state.currentPeriodEnd}, ${state.cancelAtPeriodEnd ? 1 : 0}, ${stateAt},
      CASE WHEN ${showsAnother(state)} THEN ${at} END, ${at}
    WHERE ${eventIsNew(eventId)}
    ON CONFLICT (customer_id, subscription_id) DO UPDATE SET
      status = excluded.status, price_id = excluded.price_id, plan = excluded.plan,
      current_period_end = excluded.current_period_end, cancel_at_period_end = excluded.cancel_at_period_end,
      state_at = excluded.state_at, held_at = COALESCE(subscription_states.held_at, excluded.held_at),
      updated_at = excluded.updated_at
    WHERE ${replaces(sql.raw("excluded.state_at"), sql.raw("excluded.status"), sql.raw("subscription_states.state_at"), sql.raw("subscription_states.status"))}`;
  const upsert = sql`
    INSERT INTO subscriptions (customer_id, subscription_id, status, price_id, plan, current_period_end,
      cancel_at_period_end, state_at, updated_at)
    SELECT ${state.customerId}, ${state.subscriptionId}, ${state.status}, ${state.priceId}, ${state.plan},
      ${state.currentPeriodEnd}, ${state.cancelAtPeriodEnd ? 1 : 0}, ${stateAt}, ${at}
    WHERE ${eventIsNew(eventId)}
    ON CONFLICT (customer_id) DO UPDATE SET
      subscription_id = excluded.subscription_id, status = excluded.status, price_id = excluded.price_id,
      plan = excluded.plan, current_period_end = excluded.current_period_end,
      cancel_at_period_end = excluded.cancel_at_period_end, state_at = excluded.state_at,
      updated_at = excluded.updated_at
    WHERE CASE WHEN subscriptions.subscription_id = excluded.subscription_id
      THEN ${replaces(sql.raw("excluded.state_at"), sql.raw("excluded.status"), sql.raw("subscriptions.state_at"), sql.raw("subscriptions.status"))}
      ELSE (subscriptions.subscription_id IS NULL OR subscriptions.status IN (${list(ENDED_STATUSES)}))
        AND excluded.state_at >= subscriptions.state_at END`;
  const shown = { customerId: state.customerId, subscriptionId: shownSubscription(state.customerId) };
  return [
    keep,
    upsert,
    ...showHeldSubscription(state.customerId, now, eventId),
    applyInvoiceOutcomes(shown, now, eventId),
    ...releaseHeldCheckouts(state.customerId, now, eventId),
  ];
}

/**
 * Once the subscription a customer's record shows has ended, shows the latest (by `state_at`, the
 * event's `created`) of the customer's other subscriptions that has not ended, whatever its age:
 * the subscription that replaced it (a plan change: the new one created, the old one deleted, in
 * either arrival order), or one bought besides it. A held subscription that ended in the meantime
 * is never shown over it. Marks the one shown released (`released_at`) when it was held. Two
 * statements, for one batch.
 */
function showHeldSubscription(customerId: string, now: Date, eventId: string | null): SQL[] {
  const at = now.toISOString();
  return [
    sql`
      UPDATE subscriptions SET subscription_id = held.subscription_id, status = held.status,
        price_id = held.price_id, plan = held.plan, current_period_end = held.current_period_end,
        cancel_at_period_end = held.cancel_at_period_end, state_at = held.state_at, updated_at = ${at}
      FROM (SELECT subscription_id, status, price_id, plan, current_period_end, cancel_at_period_end, state_at
          FROM subscription_states
          WHERE customer_id = ${customerId} AND status NOT IN (${list(ENDED_STATUSES)})
            AND subscription_id IS NOT ${shownSubscription(customerId)}
          ORDER BY state_at DESC, subscription_id DESC LIMIT 1) AS held
      WHERE subscriptions.customer_id = ${customerId} AND subscriptions.status IN (${list(ENDED_STATUSES)})
        AND ${eventIsNew(eventId)}`,
    sql`
      UPDATE subscription_states SET released_at = ${at}
      WHERE customer_id = ${customerId} AND subscription_id = ${shownSubscription(customerId)}
        AND held_at IS NOT NULL AND released_at IS NULL AND ${eventIsNew(eventId)}`,
  ];
}

/** What a paid or failed invoice does to its subscription's status, from which statuses. */
const INVOICE_OUTCOMES = {
  paid: { from: ["incomplete", "past_due", "unpaid"], to: "active" },
  payment_failed: { from: ["active", "trialing"], to: "past_due" },
} as const;

/** The subscription an invoice is for (or, as SQL, the one a customer's record shows). */
interface InvoiceOf {
  customerId: string;
  subscriptionId: string | SQL;
}

/**
 * Keeps what an invoice event says (`invoice_outcomes`), then applies its subscription's invoices
 * (`applyInvoiceOutcomes`): at once when the subscription is stored, else when it is written.
 * Two statements, for one batch.
 */
export function writeInvoiceOutcome(
  invoice: InvoiceOf & { subscriptionId: string },
  outcome: keyof typeof INVOICE_OUTCOMES,
  created: number,
  now: Date,
  eventId: string,
): SQL[] {
  const keep = sql`
    INSERT INTO invoice_outcomes (event_id, customer_id, subscription_id, outcome, created, received_at)
    SELECT ${eventId}, ${invoice.customerId}, ${invoice.subscriptionId}, ${outcome}, ${created}, ${now.toISOString()}
    WHERE ${eventIsNew(eventId)}
    ON CONFLICT (event_id) DO NOTHING`;
  return [keep, applyInvoiceOutcomes(invoice, now, eventId)];
}

/**
 * Moves a stored subscription's status as its kept invoices not older than its state say, in one
 * statement, with the result of applying them one by one in order of `created` (within one
 * second, a payment after a failure: a failed payment is retried, not the other way round),
 * whatever order they and the subscription's events arrived in. Applied one by one, a paid
 * invoice moves incomplete, past_due or unpaid to active, a failed one moves active or trialing
 * to past_due, and nothing else moves (an ended subscription never comes back). So the result
 * of a run of them depends only on the last one and on whether one of the other kind came before
 * it: the status becomes the last one's `to` when the stored status is one the last one moves,
 * or when one of the other kind moved it first (any status either kind moves); `state_at`
 * becomes the `created` of the invoice that made that last change (the first of the last run of
 * its kind). Otherwise nothing is written: a renewal that changes nothing never outranks the
 * subscription events around it.
 */
export function applyInvoiceOutcomes(subscription: InvoiceOf, now: Date, eventId: string | null): SQL {
  const { customerId, subscriptionId } = subscription;
  const { paid, payment_failed: failed } = INVOICE_OUTCOMES;
  return sql`
    WITH outcomes AS (
        SELECT outcome, created, created * 2 + (outcome = 'paid') AS ord FROM invoice_outcomes
        WHERE customer_id = ${customerId} AND subscription_id = ${subscriptionId}
          AND created >= (SELECT state_at FROM subscriptions
            WHERE customer_id = ${customerId} AND subscription_id = ${subscriptionId})),
      latest AS (SELECT outcome, ord FROM outcomes ORDER BY ord DESC LIMIT 1),
      other AS (SELECT MAX(outcomes.ord) AS ord FROM outcomes, latest WHERE outcomes.outcome <> latest.outcome),
      replay AS (
        SELECT latest.outcome, other.ord IS NOT NULL AS after_other,
          (SELECT MIN(created) FROM outcomes
            WHERE outcome = latest.outcome AND ord > COALESCE(other.ord, -1)) AS changed_at
        FROM latest, other)
    UPDATE subscriptions SET
      status = CASE (SELECT outcome FROM replay) WHEN 'paid' THEN ${paid.to} ELSE ${failed.to} END,
      state_at = (SELECT changed_at FROM replay), updated_at = ${now.toISOString()}
    WHERE customer_id = ${customerId} AND subscription_id = ${subscriptionId} AND ${eventIsNew(eventId)}
      AND (((SELECT outcome FROM replay) = 'paid' AND status IN (${list(paid.from)}))
        OR ((SELECT outcome FROM replay) = 'payment_failed' AND status IN (${list(failed.from)}))
        OR ((SELECT after_other FROM replay) AND status IN (${list([...paid.from, ...failed.from])})))`;
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
 * Links a customer to a user, as of a subscription checkout at `linkedAt` (Unix seconds).
 *
 * A subscription that has not ended never loses its user: a checkout naming a user linked to
 * another customer whose subscription has not ended, or a customer linked to another user whose
 * subscription has not ended, is **held** (paid or not, whichever came first): it links nothing,
 * is written to `held_checkouts` for the operator (one row per event, kept on a resend) and is not
 * applied, so its event id is not recorded and Stripe's "resend", once the conflict is gone,
 * applies it (and marks the hold released). Re-linking would leave that subscription billing with
 * no user able to see or cancel it, and anyone can name a user in a Payment Link. One held because
 * its user was on another subscription is also released when that subscription ends
 * (`releaseHeldCheckouts`).
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
        UPDATE held_checkouts SET released_at = ${now.toISOString()}, released_by = ${eventId}
        WHERE event_id = ${eventId} AND released_at IS NULL AND ${linking}`,
    ],
    // Nothing above changes what holds a checkout: a held one is still held after them.
    applied: sql`${user} IS NOT NULL AND ${heldBecause} IS NULL`,
  };
}

/**
 * Releases the checkout held because its user was on this customer's subscription, once that
 * subscription has ended (and no held one of the customer was shown instead): the checkout is
 * applied as a resend of it would be then, and its event recorded. Only a checkout held for that
 * reason (`user_on_another_subscription`: one held because its customer is another user's waits
 * for the operator), no older than the user's link to this customer (an older one would not take
 * the user from a newer link: `linked_at`), whose own customer is neither linked after it nor
 * linked to another user whose subscription has not ended; of several, the newest. Four
 * statements, for one batch: the hold marked released by this write (`released_by`), then, for the
 * checkout so marked, the user's link here dropped, the checkout's customer linked to the user,
 * the checkout's event recorded as applied.
 */
function releaseHeldCheckouts(customerId: string, now: Date, eventId: string | null): SQL[] {
  const at = now.toISOString();
  // Names the hold this write releases, for the statements after the one that marks it.
  const releasedBy = eventId ?? `stripe_answer:${crypto.randomUUID()}`;
  const isNew = eventIsNew(eventId);
  const releasedHere = sql`FROM held_checkouts released WHERE released_by = ${releasedBy} AND ${isNew}`;
  return [
    sql`
      UPDATE held_checkouts SET released_at = ${at}, released_by = ${releasedBy}
      WHERE ${isNew} AND event_id = (
        SELECT held.event_id FROM held_checkouts held JOIN subscriptions ended ON ended.user_id = held.user_id
        WHERE ended.customer_id = ${customerId} AND ended.status IN (${list(ENDED_STATUSES)})
          AND held.released_at IS NULL AND held.reason = 'user_on_another_subscription'
          AND held.customer_id <> ${customerId} AND held.checkout_at >= COALESCE(ended.linked_at, 0)
          AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE customer_id = held.customer_id
            AND (linked_at > held.checkout_at OR (user_id <> held.user_id AND ${notEnded})))
        ORDER BY held.checkout_at DESC, held.event_id DESC LIMIT 1)`,
    sql`
      UPDATE subscriptions SET user_id = NULL, updated_at = ${at}
      WHERE customer_id = ${customerId} AND user_id = (SELECT user_id ${releasedHere})`,
    sql`
      INSERT INTO subscriptions (customer_id, user_id, linked_at, updated_at)
      SELECT customer_id, user_id, checkout_at, ${at} ${releasedHere}
        AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = released.user_id)
      ON CONFLICT (customer_id) DO UPDATE SET
        user_id = excluded.user_id, linked_at = excluded.linked_at, updated_at = excluded.updated_at`,
    sql`
      INSERT INTO payment_events (id, type, received_at)
      SELECT event_id, 'checkout.session.completed', ${at} ${releasedHere}
      ON CONFLICT (id) DO NOTHING`,
  ];
}

type ShownColumns = Pick<
  RawRow<typeof subscriptions>,
  "customer_id" | "subscription_id" | "status" | "price_id" | "plan" | "current_period_end" | "cancel_at_period_end"
>;

/** The stored record's columns a caller sees, each null when there is no record (read by a LEFT JOIN). */
export type SubscriptionRecord = { [K in keyof ShownColumns]: ShownColumns[K] | null };

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
