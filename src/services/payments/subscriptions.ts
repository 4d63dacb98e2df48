import { sql } from "drizzle-orm";
import type { UserContext } from "../../lib/context";
import { badRequest, notFound } from "../../lib/errors";
import { CANCELLABLE_STATUSES, type Me, type Subscription } from "../../schemas/subscriptions";
import { answeredAt, callStripe, requireStripeKey } from "./stripe";
import { readSubscription } from "./stripe-objects";
import {
  planOf,
  presentState,
  presentSubscription,
  type SubscriptionRecord,
  writeSubscriptionState,
} from "./subscription-state";

/**
 * The caller's account and plan, in one query. A session whose subject has no users row (the
 * user was deleted after the token was issued) is a 404: there is no account to describe.
 */
export async function readMe(ctx: UserContext): Promise<Me> {
  const row = await ctx.db.get<
    ({ id: string; email: string; name: string | null } & SubscriptionRecord) | undefined
  >(sql`
    SELECT u.id, u.email, u.name, s.customer_id, s.subscription_id, s.status, s.price_id, s.plan,
      s.current_period_end, s.cancel_at_period_end
    FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id
    WHERE u.id = ${ctx.actor.userId}`);
  if (!row) throw notFound("No account for this credential", { user_id: ctx.actor.userId });
  const subscription = presentSubscription(row);
  return { id: row.id, email: row.email, name: row.name, plan: planOf(subscription), subscription };
}

/**
 * Cancels the caller's subscription through Stripe: at the end of the paid period (default), or
 * at once. Stripe's answer is the new state, stored under the usual precedence with the instant
 * Stripe answered, so a newer webhook state is never overwritten by it, nor it by an older one.
 */
export async function cancelSubscription(ctx: UserContext, atPeriodEnd: boolean): Promise<Subscription> {
  requireStripeKey(ctx);
  const record = await ctx.db.get<{ subscription_id: string | null; status: string | null } | undefined>(
    sql`SELECT subscription_id, status FROM subscriptions WHERE user_id = ${ctx.actor.userId}`,
  );
  const subscriptionId = record?.subscription_id;
  if (!subscriptionId || !(CANCELLABLE_STATUSES as readonly (string | null)[]).includes(record.status)) {
    throw badRequest("No active subscription to cancel", {
      status: record?.status ?? null,
      cancellable_statuses: CANCELLABLE_STATUSES,
    });
  }
  const answer = await callStripe(ctx, (stripe) =>
    atPeriodEnd
      ? stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
      : stripe.subscriptions.cancel(subscriptionId),
  );
  const read = readSubscription(answer);
  if (!read.ok) throw new Error(`Stripe answered a cancellation with an unreadable subscription`);
  await ctx.db.run(writeSubscriptionState(read.value, answeredAt(answer, ctx.now()), ctx.now(), null));
  return presentState(read.value);
}
