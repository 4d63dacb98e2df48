import { log, type Traced } from "./log";

// The queue that carries webhook deliveries (WEBHOOK_QUEUE in wrangler.toml; this Worker consumes
// it: services/webhooks/sending.ts). A message names one delivery of the outbox in D1
// (`webhook_deliveries`), the source of truth: a message lost or never sent is enqueued again by
// the Cron Trigger once the delivery is overdue, and a message for a delivery already handled is
// dropped by the consumer's claim.

export interface WebhookDeliveryMessage {
  delivery_id: number;
}

/** Queues' largest delay of a message, in seconds (12 hours). */
export const MAX_QUEUE_DELAY_SECONDS = 43_200;
/** Messages one `sendBatch` takes at most. */
const SEND_BATCH_SIZE = 100;

/**
 * Sends a message for each delivery (after `delaySeconds`, at most 12 hours). A failure is logged,
 * never thrown: the Cron Trigger enqueues overdue deliveries again.
 */
export async function enqueueWebhookDeliveries(
  env: Pick<Env, "WEBHOOK_QUEUE">,
  traced: Traced,
  deliveryIds: readonly number[],
  delaySeconds = 0,
): Promise<void> {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
  try {
    for (let start = 0; start < deliveryIds.length; start += SEND_BATCH_SIZE) {
      const messages = deliveryIds.slice(start, start + SEND_BATCH_SIZE).map((id) => ({
        body: { delivery_id: id } satisfies WebhookDeliveryMessage,
        contentType: "json" as const,
        ...(delay > 0 ? { delaySeconds: delay } : {}),
      }));
      await env.WEBHOOK_QUEUE.sendBatch(messages);
    }
  } catch (error) {
    log(traced, "warn", "webhook deliveries not enqueued (the Cron Trigger will)", {
      deliveries: deliveryIds.length,
      error: error instanceof Error ? error.name : "unknown",
    });
  }
}
