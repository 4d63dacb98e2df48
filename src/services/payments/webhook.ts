import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext } from "../../lib/context";
import { badRequest, validationDetails } from "../../lib/errors";
import { log } from "../../lib/log";
import { verifiedEvent } from "./stripe";
import { EventEnvelope, type Read, readCheckoutSession, readInvoice, readSubscription } from "./stripe-objects";
import {
  type HeldBecause,
  type HeldStateBecause,
  heldStateProbe,
  type LinkProbe,
  linkCustomer,
  type StateProbe,
  writeInvoiceOutcome,
  writeSubscriptionState,
} from "./subscription-state";
import { HANDLED_EVENT_TYPES } from "./webhook-contract";

type HandledEventType = (typeof HANDLED_EVENT_TYPES)[number];
const isHandled = (type: string): type is HandledEventType => (HANDLED_EVENT_TYPES as readonly string[]).includes(type);

/** Why an event of a handled type was acknowledged without being applied (nor recorded). */
export type IgnoredBecause =
  /** A `payment` or `setup` session: nothing to link. */
  | "not_a_subscription_checkout"
  /** A session without customer, or naming no user (`client_reference_id`, `metadata.user_id`). */
  | "no_customer_or_user"
  /** The session names a user the service does not have (yet). */
  | "unknown_user"
  /** Held for the operator: it would take a subscription that has not ended from its user (see `linkCustomer`). */
  | HeldBecause;

const isHeld = (ignored: IgnoredBecause): ignored is HeldBecause =>
  ignored === "user_on_another_subscription" || ignored === "customer_of_another_user";

export interface WebhookReceipt {
  received: true;
  event_id: string;
  event_type: string;
  /** The event was applied now or before (false: a type the service does not act on, or an event it ignored). */
  handled: boolean;
  /** The event had been applied before: this delivery changed nothing. */
  duplicate: boolean;
  /** Why, when `handled` is false. */
  ignored?: "unhandled_type" | IgnoredBecause;
  /** A subscription's state taken in (`handled`) but not shown, held while another is (see `writeSubscriptionState`). */
  held?: HeldStateBecause;
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

/**
 * What an event does, as one batch: an optional probe first (read in the same transaction, for
 * the receipt and the log only: why a checkout not applied was not, whether a state is held), the
 * conditional statements, then the record of the event id, made only when `applied` holds after
 * the statements (always, unless said).
 */
type Plan = { ignored: IgnoredBecause } | { statements: SQL[]; probe?: SQL; applied?: SQL };

/** The conditional statements an event makes. */
function planFor(event: EventEnvelope, type: HandledEventType, now: Date): Plan {
  const object = event.data.object;
  switch (type) {
    case "checkout.session.completed": {
      const session = read(readCheckoutSession(object), type);
      if (session.mode !== "subscription") return { ignored: "not_a_subscription_checkout" };
      if (!session.customerId || !session.userRef) return { ignored: "no_customer_or_user" };
      const link = { customerId: session.customerId, userRef: session.userRef };
      return linkCustomer(link, event.created, now, event.id);
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const state = read(readSubscription(object, type === "customer.subscription.deleted"), type);
      return {
        probe: heldStateProbe(state, event.created),
        statements: writeSubscriptionState(state, event.created, now, event.id),
      };
    }
    case "invoice.paid":
    case "invoice.payment_failed": {
      const { customerId, subscriptionId } = read(readInvoice(object), type);
      if (!customerId || !subscriptionId) return { statements: [] };
      const outcome = type === "invoice.paid" ? "paid" : "payment_failed";
      return { statements: writeInvoiceOutcome({ customerId, subscriptionId }, outcome, event.created, now, event.id) };
    }
  }
}

/** One JSON line for the operator about an event, with our request id. */
function warnOperator(ctx: RequestContext, event: EventEnvelope, message: string, fields: Record<string, unknown>) {
  log(ctx, "warn", message, { event_id: event.id, event_type: event.type, ...fields });
}

/**
 * An event acknowledged (200) but not applied, which a resend may apply later; a held checkout
 * also names its customer and user (its row in `held_checkouts` has the rest).
 */
function warnIgnored(
  ctx: RequestContext,
  event: EventEnvelope,
  ignored: IgnoredBecause,
  held?: { customer_id: string; user_id: string | null },
) {
  const message = held
    ? "Stripe checkout held for the operator (held_checkouts): it would take a subscription that has not ended from its user; not recorded: a resend once that is settled applies it, and the end of the user's subscription releases it when that was in the way"
    : "Stripe event acknowledged but not applied (not recorded: a resend can apply it)";
  warnOperator(ctx, event, message, { ignored, ...held });
}

/** A subscription's state taken in but held (its row in `subscription_states` has the rest). */
function warnHeldState(ctx: RequestContext, event: EventEnvelope, probe: StateProbe) {
  warnOperator(
    ctx,
    event,
    "Stripe subscription state held for the operator (subscription_states): its customer's record shows another subscription that has not ended; shown once that one ends",
    {
      held: probe.held,
      customer_id: probe.customer_id,
      subscription_id: probe.subscription_id,
      shown_subscription_id: probe.shown_subscription_id,
    },
  );
}

/**
 * Verifies a webhook delivery and applies its event once: the state change (conditional on
 * the event's id not being recorded yet, and on its own precedence rules) and the record of the
 * id are one D1 batch, so a redelivery, concurrent or later, changes nothing. An event that
 * changes nothing because of what is missing (a checkout naming no known user, ...) is not
 * recorded: a resend once it is there applies it. A subscription's state held while its customer's
 * record shows another subscription is recorded (it is kept, and shown once that one ends) and
 * answered with `held`.
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
  if (!isHandled(event.type)) return { ...receipt, handled: false, duplicate: false, ignored: "unhandled_type" };

  const now = ctx.now();
  const plan = planFor(event, event.type, now);
  if ("ignored" in plan) {
    if (plan.ignored !== "not_a_subscription_checkout") warnIgnored(ctx, event, plan.ignored);
    return { ...receipt, handled: false, duplicate: false, ignored: plan.ignored };
  }
  const results = await batchAll<unknown[]>(ctx.db, [
    ...(plan.probe ? [plan.probe] : []),
    ...plan.statements,
    sql`INSERT INTO payment_events (id, type, received_at)
      SELECT ${event.id}, ${event.type}, ${now.toISOString()} WHERE ${plan.applied ?? sql`1`}
      ON CONFLICT (id) DO NOTHING RETURNING id`,
  ]);
  const probe = plan.probe ? (results[0]?.[0] as LinkProbe | StateProbe | undefined) : undefined;
  if ((results.at(-1) ?? []).length > 0) {
    if (!probe || !("held" in probe) || !probe.held) return { ...receipt, handled: true, duplicate: false };
    warnHeldState(ctx, event, probe);
    return { ...receipt, handled: true, duplicate: false, held: probe.held };
  }
  if (!probe || !("ignored" in probe) || !probe.ignored || probe.recorded) {
    return { ...receipt, handled: true, duplicate: true };
  }
  const { ignored, customer_id, user_id } = probe;
  warnIgnored(ctx, event, ignored, isHeld(ignored) ? { customer_id, user_id } : undefined);
  return { ...receipt, handled: false, duplicate: false, ignored };
}

/**
 * How long an applied event's id (and an invoice's outcome) is kept: past Stripe's automatic
 * retries (three days) and the 30 days within which an event can be resent from its dashboard.
 */
export const APPLIED_EVENT_RETENTION_DAYS = 35;

/**
 * Forgets applied event ids and invoice outcomes past their retention, a bounded number of each
 * per run (the Cron Trigger); answers how many rows went.
 */
export async function pruneAppliedEvents(ctx: RequestContext, limit = 1000): Promise<number> {
  const cutoff = new Date(ctx.now().getTime() - APPLIED_EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  const removed = await batchAll<[{ id: string }, { event_id: string }]>(ctx.db, [
    sql`DELETE FROM payment_events WHERE id IN (
      SELECT id FROM payment_events WHERE received_at < ${cutoff} LIMIT ${limit}
    ) RETURNING id`,
    sql`DELETE FROM invoice_outcomes WHERE event_id IN (
      SELECT event_id FROM invoice_outcomes WHERE received_at < ${cutoff} LIMIT ${limit}
    ) RETURNING event_id`,
  ]);
  return removed[0].length + removed[1].length;
}
