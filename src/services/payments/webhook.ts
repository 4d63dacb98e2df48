import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext } from "../../lib/context";
import { badRequest, validationDetails } from "../../lib/errors";
import { verifiedEvent } from "./stripe";
import { EventEnvelope, type Read, readCheckoutSession, readInvoice, readSubscription } from "./stripe-objects";
import { linkCustomer, writeInvoiceOutcome, writeSubscriptionState } from "./subscription-state";

/** The event types the service acts on; any other is acknowledged and ignored. */
export const HANDLED_EVENT_TYPES = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
] as const;
type HandledEventType = (typeof HANDLED_EVENT_TYPES)[number];
const isHandled = (type: string): type is HandledEventType => (HANDLED_EVENT_TYPES as readonly string[]).includes(type);

export interface WebhookReceipt {
  received: true;
  event_id: string;
  event_type: string;
  /** The service acts on this type of event. */
  handled: boolean;
  /** The event had been applied before: this delivery changed nothing. */
  duplicate: boolean;
}

function read<T>(result: Read<T>, type: string): T {
  if (!result.ok) {
    throw badRequest(
      `The ${type} event's object is not what Stripe sends`,
      validationDetails(result.error, "data.object"),
    );
  }
  return result.value;
}

/** The conditional statements an event makes (none when it concerns nobody the service knows). */
function statementsFor(event: EventEnvelope, type: HandledEventType, now: Date): SQL[] {
  const object = event.data.object;
  switch (type) {
    case "checkout.session.completed": {
      const { customerId, userId } = read(readCheckoutSession(object), type);
      return customerId && userId ? linkCustomer({ customerId, userId }, event.created, now, event.id) : [];
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const state = read(readSubscription(object, type === "customer.subscription.deleted"), type);
      return [writeSubscriptionState(state, event.created, now, event.id)];
    }
    case "invoice.paid":
    case "invoice.payment_failed": {
      const { customerId, subscriptionId } = read(readInvoice(object), type);
      if (!customerId || !subscriptionId) return [];
      const outcome = type === "invoice.paid" ? "paid" : "payment_failed";
      return [writeInvoiceOutcome({ customerId, subscriptionId }, outcome, event.created, now, event.id)];
    }
  }
}

/**
 * Verifies a webhook delivery and applies its event once: the state change (conditional on
 * the event's id not being recorded yet, and on its own precedence rules) and the record of the
 * id are one D1 batch, so a redelivery, concurrent or later, changes nothing.
 */
export async function receiveWebhook(
  ctx: RequestContext,
  rawBody: string,
  signature: string | undefined,
): Promise<WebhookReceipt> {
  const verified = await verifiedEvent(ctx, rawBody, signature);
  const parsed = EventEnvelope.safeParse(verified);
  if (!parsed.success) throw badRequest("The webhook body is not a Stripe event", validationDetails(parsed.error));
  const event = parsed.data;
  const receipt = { received: true as const, event_id: event.id, event_type: event.type };
  if (!isHandled(event.type)) return { ...receipt, handled: false, duplicate: false };

  const now = ctx.now();
  const statements = statementsFor(event, event.type, now);
  const results = await batchAll<unknown[]>(ctx.db, [
    ...statements,
    sql`INSERT INTO payment_events (id, type, received_at) VALUES (${event.id}, ${event.type}, ${now.toISOString()})
      ON CONFLICT (id) DO NOTHING RETURNING id`,
  ]);
  return { ...receipt, handled: true, duplicate: (results.at(-1) ?? []).length === 0 };
}
