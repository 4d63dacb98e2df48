import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { notifications, pushDeliveries, pushSubscriptions } from "../../db/schema";
import type { RequestContext } from "../../lib/context";
import { describeError, log } from "../../lib/log";
import { pushTopic, sendPush } from "../push/web-push";

// Web Push deliveries owed by fired reminders (rows of push_deliveries). A sender claims a
// pending delivery by moving its next attempt past a lease in one conditional statement, so
// two senders (an alarm and the cron retry) never send it at once; a sender that dies
// mid-send leaves it to be retried when the lease runs out. The push service gets a Topic
// per (reminder, firing), so a message sent twice replaces itself there instead of showing twice.

/** How long a claimed delivery is left to its sender before it may be tried again. */
export const PUSH_LEASE_MS = 60_000;
/** Waits before attempt 2, 3, ...; after the last, the delivery is marked failed (kept, and counted on its notification). */
export const PUSH_BACKOFF_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;
export const PUSH_MAX_ATTEMPTS = PUSH_BACKOFF_MS.length + 1;
/** Deliveries one call claims at most. */
const CLAIM_LIMIT = 100;
/** A reminder's push is worth showing for a day; after that the push service may drop it. */
const PUSH_TTL_SECONDS = 24 * 60 * 60;

/** A claimed delivery as the claim returns it: the delivery, its subscription's keys, its notification. */
type ClaimedDelivery = Pick<RawRow<typeof pushDeliveries>, "notification_id" | "subscription_id" | "attempts"> &
  Pick<RawRow<typeof pushSubscriptions>, "endpoint" | "p256dh" | "auth"> &
  Pick<RawRow<typeof notifications>, "reminder_id" | "occurrence" | "target_block_id" | "title" | "body">;

/**
 * Sends the pending deliveries that are due: those of `notificationIds` (just fired), or, when
 * none are named, any user's (the cron retry). Returns how many were sent, gone, retried, failed.
 */
export async function sendOwedPushes(
  ctx: RequestContext,
  options: { notificationIds?: string[]; now: number },
): Promise<{ sent: number; gone: number; retried: number; failed: number }> {
  const tally = { sent: 0, gone: 0, retried: 0, failed: 0 };
  const { notificationIds, now } = options;
  if (notificationIds && notificationIds.length === 0) return tally;
  const which: SQL = notificationIds
    ? sql`AND notification_id IN (${sql.join(
        notificationIds.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;
  const [claimed] = await batchAll<[ClaimedDelivery]>(ctx.db, [
    sql`UPDATE push_deliveries SET attempts = attempts + 1, next_attempt_at = ${now + PUSH_LEASE_MS},
        updated_at = ${new Date(now).toISOString()}
      WHERE rowid IN (SELECT rowid FROM push_deliveries WHERE state = 'pending' AND next_attempt_at <= ${now} ${which}
        ORDER BY next_attempt_at LIMIT ${CLAIM_LIMIT})
      RETURNING notification_id, subscription_id, attempts,
        (SELECT endpoint FROM push_subscriptions s WHERE s.id = push_deliveries.subscription_id) AS endpoint,
        (SELECT p256dh FROM push_subscriptions s WHERE s.id = push_deliveries.subscription_id) AS p256dh,
        (SELECT auth FROM push_subscriptions s WHERE s.id = push_deliveries.subscription_id) AS auth,
        (SELECT reminder_id FROM notifications n WHERE n.id = push_deliveries.notification_id) AS reminder_id,
        (SELECT occurrence FROM notifications n WHERE n.id = push_deliveries.notification_id) AS occurrence,
        (SELECT target_block_id FROM notifications n WHERE n.id = push_deliveries.notification_id) AS target_block_id,
        (SELECT title FROM notifications n WHERE n.id = push_deliveries.notification_id) AS title,
        (SELECT body FROM notifications n WHERE n.id = push_deliveries.notification_id) AS body`,
  ]);
  if (claimed.length === 0) return tally;
  const results = await Promise.all(
    claimed.map(async (delivery) => {
      try {
        return await sendPush(
          ctx,
          { endpoint: delivery.endpoint, p256dh: delivery.p256dh, auth: delivery.auth },
          {
            payload: {
              type: "reminder",
              notification_id: delivery.notification_id,
              reminder_id: delivery.reminder_id,
              target_block_id: delivery.target_block_id,
              occurrence: delivery.occurrence,
              title: delivery.title,
              body: delivery.body,
            },
            topic: await pushTopic(delivery.reminder_id ?? delivery.notification_id, delivery.occurrence),
            ttlSeconds: PUSH_TTL_SECONDS,
            urgency: "high",
          },
        );
      } catch (error) {
        // Not a push service failure (e.g. push not configured on this server): retried like one, and logged.
        log(ctx, "warn", "Web Push not sent", { error: describeError(error) });
        return { outcome: "retry" as const, status: null };
      }
    }),
  );
  const timestamp = new Date(now).toISOString();
  const writes: SQL[] = claimed.map((delivery, index) => {
    const result = results[index] ?? { outcome: "retry" as const, status: null };
    const key = sql`notification_id = ${delivery.notification_id} AND subscription_id = ${delivery.subscription_id}`;
    if (result.outcome === "sent") {
      tally.sent++;
      return sql`UPDATE push_deliveries SET state = 'sent', last_status = ${result.status}, updated_at = ${timestamp} WHERE ${key}`;
    }
    if (result.outcome === "gone") {
      // The browser unsubscribed (404/410): the subscription goes, with what it was still owed.
      tally.gone++;
      return sql`DELETE FROM push_subscriptions WHERE id = ${delivery.subscription_id}`;
    }
    if (delivery.attempts >= PUSH_MAX_ATTEMPTS) {
      tally.failed++;
      log(ctx, "warn", "Web Push delivery failed after its last attempt", {
        notification_id: delivery.notification_id,
        subscription_id: delivery.subscription_id,
        status: result.status,
      });
      return sql`UPDATE push_deliveries SET state = 'failed', last_status = ${result.status}, updated_at = ${timestamp} WHERE ${key}`;
    }
    tally.retried++;
    const wait = PUSH_BACKOFF_MS[Math.min(delivery.attempts, PUSH_BACKOFF_MS.length) - 1] ?? PUSH_BACKOFF_MS[0];
    return sql`UPDATE push_deliveries SET next_attempt_at = ${now + wait}, last_status = ${result.status},
      updated_at = ${timestamp} WHERE ${key} AND state = 'pending'`;
  });
  await batchAll<unknown[]>(ctx.db, writes);
  return tally;
}

/** Rounds of claims one cron tick makes at most: up to 1,000 owed deliveries a minute. */
const RETRY_ROUNDS = 10;

/** The Cron Trigger's retry of owed deliveries (any user's), round after round while rounds come back full. */
export async function retryOwedPushes(ctx: RequestContext, now: number) {
  const total = { sent: 0, gone: 0, retried: 0, failed: 0 };
  for (let round = 0; round < RETRY_ROUNDS; round++) {
    const tally = await sendOwedPushes(ctx, { now });
    total.sent += tally.sent;
    total.gone += tally.gone;
    total.retried += tally.retried;
    total.failed += tally.failed;
    if (tally.sent + tally.gone + tally.retried + tally.failed < CLAIM_LIMIT) break;
  }
  return total;
}
