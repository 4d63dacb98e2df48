import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { webhookDeliveries } from "../../db/schema";
import type { RequestContext, UserContext } from "../../lib/context";
import { conflict, notFound } from "../../lib/errors";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import { enqueueWebhookDeliveries } from "../../lib/webhook-queue";
import type { ChangeEventType } from "../../schemas/changes";
import type { WebhookDelivery, WebhookDeliveryStatus } from "../../schemas/webhooks";
import { webhookNotFound } from "./endpoints";

// The outbox of webhook deliveries (migrations/0022_webhooks.sql, its trigger in 0023: one row per
// event and endpoint, written with the event): listed and re-sent by the endpoint's user; enqueued by the request that
// wrote the events (db/write-context.ts) or, when it did not get to, by the Cron Trigger here.

export type { WebhookDelivery };

export type DeliveryRecord = RawRow<
  typeof webhookDeliveries,
  { status: WebhookDeliveryStatus; event_type: ChangeEventType; last_error: WebhookDelivery["last_error"] }
>;

/** A delivery marked enqueued that is not sent this long after it was due is enqueued again. */
export const OVERDUE_AFTER_MS = 5 * 60_000;
/** Deliveries the Cron Trigger enqueues in one run at most (it runs every minute). */
const OWED_PER_RUN = 1000;

export const presentDelivery = (record: DeliveryRecord): WebhookDelivery => ({
  id: record.id,
  webhook_id: record.endpoint_id,
  event_id: record.event_id,
  event_type: record.event_type,
  status: record.status,
  attempts: record.attempts,
  response_status: record.response_status,
  response_duration_ms: record.response_duration_ms,
  last_error: record.last_error,
  created_at: record.created_at,
  last_attempt_at: record.last_attempt_at,
  next_attempt_at: record.next_attempt_at,
});

const ownEndpoint = (ctx: UserContext, webhookId: string) =>
  sql`SELECT w.enabled FROM webhook_endpoints w WHERE w.id = ${webhookId} AND w.user_id = ${ctx.actor.userId}`;

/** One page of a webhook's deliveries, newest first; 404 when the webhook is not the caller's. */
export async function listDeliveries(
  ctx: UserContext,
  webhookId: string,
  window: PageWindow,
): Promise<ResultPage<WebhookDelivery>> {
  const listing: Listing = {
    name: "webhooks.deliveries",
    filters: { webhook_id: webhookId },
    keys: [{ expression: sql`d.id`, direction: "desc" }],
  };
  const [page, count] = await listingQueries(
    ctx,
    listing,
    { select: sql`SELECT d.*`, from: sql`FROM webhook_deliveries d`, where: sql`d.endpoint_id = ${webhookId}` },
    window,
  );
  const [endpoints, rows, counts] = await batchAll<[{ enabled: number }, DeliveryRecord, { total: number }]>(ctx.db, [
    ownEndpoint(ctx, webhookId),
    page,
    count,
  ]);
  if (endpoints.length === 0) throw webhookNotFound(webhookId);
  return readPage(ctx, listing, rows, counts, window, presentDelivery);
}

/**
 * Sends a delivery again now, whatever became of it: pending from now on, enqueued before the
 * answer. One attempt beyond its three days of retries: failing again, it is failed again. A
 * disabled webhook's is a 409 (re-enable it first).
 */
export async function retryDelivery(ctx: UserContext, webhookId: string, deliveryId: number): Promise<WebhookDelivery> {
  const now = ctx.now().toISOString();
  const [rows, endpoints, found] = await batchAll<[DeliveryRecord, { enabled: number }, { id: number }]>(ctx.db, [
    sql`UPDATE webhook_deliveries AS d SET status = 'pending', next_attempt_at = ${now}, enqueued_at = ${now}
      WHERE d.id = ${deliveryId} AND d.endpoint_id = ${webhookId}
        AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.user_id = ${ctx.actor.userId}
          AND w.enabled = 1)
      RETURNING *`,
    ownEndpoint(ctx, webhookId),
    sql`SELECT d.id FROM webhook_deliveries d WHERE d.id = ${deliveryId} AND d.endpoint_id = ${webhookId}`,
  ]);
  const record = rows[0];
  if (!record) {
    const endpoint = endpoints[0];
    if (!endpoint) throw webhookNotFound(webhookId);
    if (found.length === 0) throw notFound("Delivery not found", { webhook_id: webhookId, delivery_id: deliveryId });
    throw conflict("This webhook is disabled: enable it (PATCH with enabled true) before retrying its deliveries", {
      webhook_id: webhookId,
      enabled: false,
    });
  }
  await enqueueWebhookDeliveries(ctx.env, ctx, [record.id]);
  return presentDelivery(record);
}

/**
 * The Cron Trigger's part of the outbox: every pending delivery of an enabled endpoint that is due
 * and was never enqueued (its event was written outside a request) or was enqueued and not sent
 * within OVERDUE_AFTER_MS (the request, or the consumer's retry, did not get to send its message),
 * oldest first. Marked enqueued in the statement that picks them; returns how many.
 */
export async function enqueueOwedDeliveries(ctx: RequestContext, limit = OWED_PER_RUN): Promise<number> {
  const now = ctx.now();
  const at = now.toISOString();
  const overdue = new Date(now.getTime() - OVERDUE_AFTER_MS).toISOString();
  const [rows] = await batchAll<[{ id: number }]>(ctx.db, [
    sql`UPDATE webhook_deliveries SET enqueued_at = ${at} WHERE id IN (
        SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled = 1
        WHERE d.status = 'pending' AND d.next_attempt_at <= ${at}
          AND (d.enqueued_at IS NULL OR d.enqueued_at <= ${overdue})
          AND (d.lease_until IS NULL OR d.lease_until <= ${at})
        ORDER BY d.id LIMIT ${limit})
      RETURNING id`,
  ]);
  const ids = rows.map((row) => row.id).sort((a, b) => a - b);
  await enqueueWebhookDeliveries(ctx.env, ctx, ids);
  return ids.length;
}

/** Removes the deliveries of events the change log's sweep removed (30 days); returns how many. */
export async function sweepSweptDeliveries(ctx: RequestContext, limit = 5000): Promise<number> {
  const [removed] = await batchAll<[{ id: number }]>(ctx.db, [
    sql`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE event_id <= (SELECT swept_through FROM change_log_horizon WHERE id = 1)
        ORDER BY event_id LIMIT ${limit})
      RETURNING id`,
  ]);
  return removed.length;
}
