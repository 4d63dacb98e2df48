import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { expect, vi } from "vitest";
import worker from "../../src/index";
import type { WebhookDeliveryMessage } from "../../src/lib/webhook-queue";
import type { WebhookWithSecret } from "../../src/schemas/webhooks";
import { api, type TestUser } from "./api";
import { type FakedThirdParties, fakeThirdParties } from "./third-party";

export const WEBHOOKS = "/api/v1/webhooks";
/** The queue of wrangler.toml's WEBHOOK_QUEUE. */
const QUEUE = "workspace-api-webhooks";

/** A receiver URL of its own for one test: https to a public name, faked at the fetch boundary. */
export const receiverUrl = (): string => `https://hooks.example.com/${crypto.randomUUID()}`;

export async function createWebhook(user: TestUser, body: Record<string, unknown>): Promise<WebhookWithSecret> {
  const res = await api<WebhookWithSecret>(WEBHOOKS, { method: "POST", auth: user, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A request a receiver got, with its body read. */
export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A fake receiver for the webhooks of a test: every outbound request to one of `urls` is answered by
 * `answer` (200 by default) and recorded with its body; anything else is a network failure.
 */
export function fakeReceiver(answer: (request: Request) => Response = () => new Response("ok")): {
  received: (url: string) => Received[];
  faked: FakedThirdParties;
} {
  const received: Received[] = [];
  const faked = fakeThirdParties(async (request) => {
    received.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    return answer(request);
  });
  return { received: (url) => received.filter((request) => request.url === url), faked };
}

/** Verifies a received delivery with the `standardwebhooks` package; returns the payload it verified. */
export const verified = (secret: string, request: Received): unknown =>
  new Webhook(secret).verify(request.body, request.headers);

export interface DeliveryRow {
  id: number;
  endpoint_id: string;
  event_id: number;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  enqueued_at: string | null;
  lease_until: string | null;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
}

export const deliveriesOf = async (webhookId: string): Promise<DeliveryRow[]> =>
  (
    await env.DB.prepare("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id")
      .bind(webhookId)
      .all<DeliveryRow>()
  ).results;

/**
 * Runs the queue consumer on a batch naming `deliveryIds`, as the queue does, and waits until no
 * delivery of the webhook is held by a send in progress (the local queue may be sending some too).
 */
export async function consume(webhookId: string, deliveryIds: readonly number[]): Promise<void> {
  const batch = createMessageBatch<WebhookDeliveryMessage>(
    QUEUE,
    deliveryIds.map((id, index) => ({
      id: `m${id}-${crypto.randomUUID()}`,
      timestamp: Date.now() + index,
      attempts: 1,
      body: { delivery_id: id },
    })),
  );
  const execution = createExecutionContext();
  await worker.queue?.(batch, env, execution);
  const result = await getQueueResult(batch, execution);
  expect(result.ackAll).toBe(true);
  await vi.waitFor(
    async () => {
      const held = (await deliveriesOf(webhookId)).filter(
        (row) => row.lease_until !== null && row.lease_until > new Date().toISOString(),
      );
      expect(held).toEqual([]);
    },
    { timeout: 15_000 },
  );
}

/** Runs the consumer on every pending delivery of the webhook that is due. */
export async function consumeDue(webhookId: string): Promise<void> {
  const now = new Date().toISOString();
  const due = (await deliveriesOf(webhookId)).filter(
    (row) => row.status === "pending" && row.next_attempt_at !== null && row.next_attempt_at <= now,
  );
  await consume(
    webhookId,
    due.map((row) => row.id),
  );
}

/** Makes the webhook's pending deliveries due now (a test's clock jump past their backoff). */
export const makeDue = (webhookId: string): Promise<unknown> =>
  env.DB.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status = 'pending'")
    .bind(new Date(Date.now() - 1000).toISOString(), webhookId)
    .run();
