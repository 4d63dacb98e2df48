import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext } from "../../lib/context";
import { log } from "../../lib/log";
import { callThirdParty, OutboundError } from "../../lib/outbound";
import { enqueueWebhookDeliveries, type WebhookDeliveryMessage } from "../../lib/webhook-queue";
import type { WebhookDelivery } from "../../schemas/webhooks";
import { type ChangeEventRecord, presentChangeEvent } from "../change-log/events";
import { webhookUrlProblem } from "./endpoints";
import { signatureHeader } from "./signature";

// The queue consumer: sends deliveries as Standard Webhooks messages (https://www.standardwebhooks.com/)
// and records what became of each. A delivery is claimed before it is sent (a lease, in the claiming
// statement), so two messages for one delivery never send it twice at once; a message for a delivery
// already handled, not yet due, or of a disabled endpoint claims nothing and is dropped.
//
// Retries: a failed attempt is tried again after the next step of RETRY_DELAYS_SECONDS (Standard
// Webhooks' example schedule, then every 12 hours, Queues' longest delay), as a new delayed message;
// its due time is recorded, and the Cron Trigger enqueues it again if that message is lost. Once an
// attempt fails three days or more after the delivery was made, it is failed for good. An endpoint
// whose deliveries have failed for three days without one success is disabled.
//
// Order: the deliveries of one batch are sent in id order (the events' commit order), one endpoint's
// one after the other. Queues does not keep order between batches, and a retried delivery comes after
// later ones: receivers order by the event's `id` (monotonic) and drop duplicates by `webhook-id`.

/** Delays after the 1st, 2nd, ... failed attempt; the last repeats. */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 43_200] as const;
/** How long a delivery is retried, and how long an endpoint may fail before it is disabled. */
export const FAILING_SPAN_MS = 3 * 86_400_000;
/** How long a receiver may take to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long a claim holds: longer than a batch's sends take (10 deliveries of 10 s at most). */
const LEASE_MS = 5 * 60_000;
/** A message may arrive this much before its delivery's due time (clocks differ) and still send it. */
const EARLY_TOLERANCE_MS = 2000;

export const DISABLED_FOR_FAILURES = "Deliveries failed for 3 days without a success";

export const retryDelaySeconds = (attempts: number): number =>
  RETRY_DELAYS_SECONDS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_SECONDS.length) - 1] ?? 43_200;

/** A claimed delivery with what sending it needs. */
interface ClaimedDelivery {
  id: number;
  endpoint_id: string;
  event_id: number;
  attempts: number;
  created_at: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** The event (null when the log no longer keeps it). */
  event: string | null;
}

type Outcome =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status: number | null; durationMs: number | null; error: NonNullable<WebhookDelivery["last_error"]> };

/** The Standard Webhooks payload: `{type, timestamp, data}`, `data` the change log's event. */
export function deliveryBody(record: ChangeEventRecord): string {
  return JSON.stringify({ type: record.type, timestamp: record.occurred_at, data: presentChangeEvent(record) });
}

/** The secrets that sign now: the current one, and the one a rotation replaced while its grace lasts. */
const signingSecrets = (delivery: ClaimedDelivery, now: Date): string[] =>
  delivery.previous_secret !== null &&
  delivery.previous_secret_expires_at !== null &&
  delivery.previous_secret_expires_at > now.toISOString()
    ? [delivery.secret, delivery.previous_secret]
    : [delivery.secret];

async function send(ctx: RequestContext, delivery: ClaimedDelivery): Promise<Outcome> {
  if (delivery.event === null || webhookUrlProblem(ctx, delivery.url) !== null) {
    return { ok: false, status: null, durationMs: null, error: "gone" };
  }
  const body = deliveryBody(JSON.parse(delivery.event) as ChangeEventRecord);
  const now = ctx.now();
  const id = String(delivery.event_id);
  const timestamp = Math.floor(now.getTime() / 1000);
  const started = Date.now();
  try {
    const response = await callThirdParty(ctx, "webhook", delivery.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader(signingSecrets(delivery, now), id, timestamp, body),
        "user-agent": "workspace-api-webhooks",
      },
      body,
      // A redirect is not followed: the receiver is the URL its user gave, nothing it points to.
      redirect: "manual",
      timeoutMs: DELIVERY_TIMEOUT_MS,
    });
    // The receiver's body is never read: only its status counts.
    await response.body?.cancel().catch(() => undefined);
    const durationMs = Date.now() - started;
    const status = response.status;
    if (status >= 200 && status < 300) return { ok: true, status, durationMs };
    return { ok: false, status, durationMs, error: status >= 300 && status < 400 ? "redirect" : "status" };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return {
      ok: false,
      status: null,
      durationMs: Date.now() - started,
      error: error.failure === "timeout" ? "timeout" : "network",
    };
  }
}

/** Records an attempt's outcome (while the claim is still this one's); returns the delay of its next attempt, if any. */
async function record(
  ctx: RequestContext,
  delivery: ClaimedDelivery,
  lease: string,
  outcome: Outcome,
): Promise<number | null> {
  const now = ctx.now();
  const at = now.toISOString();
  const release = sql`lease_id = NULL, lease_until = NULL, response_status = ${outcome.status},
    response_duration_ms = ${outcome.durationMs}`;
  const mine = sql`id = ${delivery.id} AND lease_id = ${lease}`;
  if (outcome.ok) {
    await batchAll(ctx.db, [
      sql`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, last_error = NULL, ${release}
        WHERE ${mine}`,
      sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${delivery.endpoint_id} AND failing_since IS NOT NULL`,
    ]);
    return null;
  }
  const givesUp = outcome.error === "gone" || now.getTime() - Date.parse(delivery.created_at) >= FAILING_SPAN_MS;
  const delay = retryDelaySeconds(delivery.attempts);
  const next = givesUp ? null : new Date(now.getTime() + delay * 1000).toISOString();
  const cutoff = new Date(now.getTime() - FAILING_SPAN_MS).toISOString();
  await batchAll(ctx.db, [
    sql`UPDATE webhook_deliveries SET status = ${givesUp ? "failed" : "pending"}, next_attempt_at = ${next},
        enqueued_at = ${next}, last_error = ${outcome.error}, ${release}
      WHERE ${mine}`,
    sql`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${at}) WHERE id = ${delivery.endpoint_id}`,
    sql`UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ${DISABLED_FOR_FAILURES}, disabled_at = ${at},
        version = version + 1, updated_at = ${at}
      WHERE id = ${delivery.endpoint_id} AND enabled = 1 AND failing_since <= ${cutoff}`,
  ]);
  return givesUp ? null : delay;
}

/**
 * Claims the deliveries the messages name (one D1 batch: the claims and what sending them needs),
 * sends them, one endpoint's in id order and the endpoints side by side, and records each outcome.
 */
export async function sendDeliveries(ctx: RequestContext, messages: readonly WebhookDeliveryMessage[]): Promise<void> {
  const ids = [...new Set(messages.map((message) => message.delivery_id))].sort((a, b) => a - b);
  if (ids.length === 0) return;
  const now = ctx.now();
  const at = now.toISOString();
  const due = new Date(now.getTime() + EARLY_TOLERANCE_MS).toISOString();
  const lease = crypto.randomUUID();
  const until = new Date(now.getTime() + LEASE_MS).toISOString();
  const idList = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const [, claimed] = await batchAll<[unknown, ClaimedDelivery]>(ctx.db, [
    sql`UPDATE webhook_deliveries AS d SET lease_id = ${lease}, lease_until = ${until}, attempts = attempts + 1,
        last_attempt_at = ${at}
      WHERE d.id IN (${idList}) AND d.status = 'pending' AND d.next_attempt_at <= ${due}
        AND (d.lease_until IS NULL OR d.lease_until <= ${at})
        AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.enabled = 1)`,
    sql`SELECT d.id, d.endpoint_id, d.event_id, d.attempts, d.created_at, w.url, w.secret, w.previous_secret,
        w.previous_secret_expires_at,
        (SELECT json_object('id', e.id, 'type', e.type, 'object_id', e.object_id, 'owner_id', e.owner_id,
          'actor_id', e.actor_id, 'request_id', e.request_id, 'occurred_at', e.occurred_at,
          'changed_fields', e.changed_fields, 'data', e.data)
          FROM change_events e WHERE e.id = d.event_id) AS event
      FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.lease_id = ${lease} ORDER BY d.id`,
  ]);
  const byEndpoint = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) {
    byEndpoint.set(delivery.endpoint_id, [...(byEndpoint.get(delivery.endpoint_id) ?? []), delivery]);
  }
  const retries = new Map<number, number[]>();
  await Promise.all(
    [...byEndpoint.values()].map(async (deliveries) => {
      for (const delivery of deliveries) {
        const outcome = await send(ctx, delivery);
        const delay = await record(ctx, delivery, lease, outcome);
        log(ctx, outcome.ok ? "info" : "warn", "webhook delivery", {
          delivery_id: delivery.id,
          webhook_id: delivery.endpoint_id,
          attempt: delivery.attempts,
          status: outcome.status,
          ...(outcome.ok ? {} : { failure: outcome.error, retry_in_seconds: delay }),
        });
        if (delay !== null) retries.set(delay, [...(retries.get(delay) ?? []), delivery.id]);
      }
    }),
  );
  for (const [delay, retried] of retries) await enqueueWebhookDeliveries(ctx.env, ctx, retried, delay);
}
