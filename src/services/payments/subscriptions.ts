import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { users } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import { badRequest, unauthorized } from "../../lib/errors";
import { OutboundError } from "../../lib/outbound";
import { CANCELLABLE_STATUSES, type Me, type Subscription } from "../../schemas/subscriptions";
import { answeredAt, callStripe, logStripe, requireStripeKey, UnreadableStripeAnswer } from "./stripe";
import { readSubscription, type SubscriptionState } from "./stripe-objects";
import {
  planOf,
  presentState,
  presentSubscription,
  type SubscriptionRecord,
  writeSubscriptionState,
} from "./subscription-state";

/**
 * The caller's account and plan, in one query. A session whose subject has no users row (the
 * user was deleted after the token was issued) is refused before this reads anything, in the same
 * batch (auth/credential-liveness.ts); without an account to describe, this would be a 404.
 */
export async function readMe(ctx: UserContext): Promise<Me> {
  const row = await ctx.db.get<
    (Pick<RawRow<typeof users>, "id" | "email" | "name"> & SubscriptionRecord) | undefined
  >(sql`
    SELECT u.id, u.email, u.name, s.customer_id, s.subscription_id, s.status, s.price_id, s.plan,
      s.current_period_end, s.cancel_at_period_end
    FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id
    WHERE u.id = ${ctx.actor.userId}`);
  // A credential whose user is gone: refused as the credential check refuses one (a key read before
  // its user was deleted in between; sessions are refused by that check itself).
  if (!row) throw unauthorized("No account for this credential");
  const subscription = presentSubscription(row);
  return { id: row.id, email: row.email, name: row.name, plan: planOf(subscription), subscription };
}

/** The caller's stored record, as the cancellation reads it. */
type CancellableRecord = SubscriptionRecord & { customer_id: string; subscription_id: string; status: string };

/**
 * What a cancellation Stripe confirmed but did not describe leaves: the stored record marked
 * canceled (at once) or ending with its period (`cancel_at_period_end`).
 */
function stateAfterCancelling(record: CancellableRecord, atPeriodEnd: boolean): SubscriptionState {
  return {
    customerId: record.customer_id,
    subscriptionId: record.subscription_id,
    status: atPeriodEnd ? record.status : "canceled",
    priceId: record.price_id,
    plan: record.plan,
    currentPeriodEnd: record.current_period_end,
    cancelAtPeriodEnd: atPeriodEnd || record.cancel_at_period_end === 1,
  };
}

/**
 * A cancellation at once that failed may have been applied all the same: the DELETE carries no
 * idempotency key, so when its answer is lost, the package's retry finds the subscription
 * cancelled and gets a 4xx. The subscription is read back; canceled there, that answer is the
 * result. Anything else (still live, unreadable, the read-back failing) is the original failure.
 */
async function canceledAfterAll(ctx: UserContext, subscriptionId: string, failure: OutboundError) {
  let current: Stripe.Response<Stripe.Subscription>;
  try {
    current = await callStripe(ctx, (stripe) => stripe.subscriptions.retrieve(subscriptionId));
  } catch (error) {
    if (error instanceof OutboundError || error instanceof UnreadableStripeAnswer) throw failure;
    throw error;
  }
  const read = readSubscription(current);
  if (!read.ok || read.value.subscriptionId !== subscriptionId || read.value.status !== "canceled") throw failure;
  logStripe(ctx, "warn", {
    message: "cancellation at once failed, but the subscription read back is canceled: answered from it",
    failure: failure.failure,
    status: failure.status,
  });
  return current;
}

/**
 * Cancels the caller's subscription through Stripe: at the end of the paid period (default), or
 * at once. Nothing to cancel is a 400 before the configuration is checked (503). Stripe's answer
 * is the new state, stored under the usual precedence with the instant Stripe answered, so a
 * newer webhook state is never overwritten by it, nor it by an older one. A success whose answer
 * cannot be read is logged and answered from what is known (the stored record, cancelled as
 * asked), stored the same way.
 */
export async function cancelSubscription(ctx: UserContext, atPeriodEnd: boolean): Promise<Subscription> {
  const record = await ctx.db.get<SubscriptionRecord | undefined>(
    sql`SELECT customer_id, subscription_id, status, price_id, plan, current_period_end, cancel_at_period_end
      FROM subscriptions WHERE user_id = ${ctx.actor.userId}`,
  );
  if (!isCancellable(record)) {
    throw badRequest("No active subscription to cancel", {
      status: record?.status ?? null,
      cancellable_statuses: CANCELLABLE_STATUSES,
    });
  }
  // Asked only once there is something to cancel: nothing to cancel is the 400, configured or not.
  requireStripeKey(ctx);
  const subscriptionId = record.subscription_id;
  const known = stateAfterCancelling(record, atPeriodEnd);
  const store = async (state: SubscriptionState, stateAt: number) => {
    await batchAll(ctx.db, writeSubscriptionState(state, stateAt, ctx.now(), null));
    return presentState(state);
  };

  let answer: Stripe.Response<Stripe.Subscription>;
  try {
    answer = await callStripe(ctx, (stripe) =>
      atPeriodEnd
        ? stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
        : stripe.subscriptions.cancel(subscriptionId),
    );
  } catch (error) {
    // Done at Stripe, result unreadable (logged by callStripe): what is known.
    if (error instanceof UnreadableStripeAnswer) return store(known, error.answeredAt);
    if (atPeriodEnd || !(error instanceof OutboundError) || error.failure === "aborted") throw error;
    answer = await canceledAfterAll(ctx, subscriptionId, error);
  }
  const read = readSubscription(answer);
  if (!read.ok) {
    // Stripe did it; only its description is unusable. Logged without Stripe's body.
    logStripe(ctx, "error", {
      failure: "unreadable_answer",
      stripe_request_id: answer.lastResponse?.requestId,
      issues: read.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.code}`).slice(0, 10),
    });
    return store(known, answeredAt(answer, ctx.now()));
  }
  return store(read.value, answeredAt(answer, ctx.now()));
}

function isCancellable(record: SubscriptionRecord | undefined): record is CancellableRecord {
  return (
    !!record?.customer_id &&
    !!record.subscription_id &&
    (CANCELLABLE_STATUSES as readonly (string | null)[]).includes(record.status)
  );
}
