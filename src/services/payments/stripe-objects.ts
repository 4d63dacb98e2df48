/**
 * What the service reads of Stripe's objects, in the shapes of every API version a webhook
 * endpoint may be pinned to: events are rendered in the endpoint's version, not the library's.
 * Since 2025-03-31 (basil), `current_period_end` lives on the subscription's items and an
 * invoice names its subscription under `parent.subscription_details`; both shapes are read.
 */
import { z } from "zod";
import { ENDED_STATUSES } from "../../schemas/subscriptions";

const id = z.string().min(1).max(255);
/** An id, or the expanded object that carries it. */
const ref = z.union([id, z.looseObject({ id })]).transform((value) => (typeof value === "string" ? value : value.id));
/** The last second of year 9999: the latest instant an ISO-8601 date (and `toISOString`) can carry. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
/** Unix seconds, bounded so that every accepted value is a date: an absurd one is a 400, never a 500. */
const unixSeconds = z.number().int().nonnegative().max(MAX_UNIX_SECONDS);
const text = z.string().max(1000);

const Price = z.looseObject({ id, lookup_key: text.nullish(), nickname: text.nullish() });

const SubscriptionObject = z.looseObject({
  id,
  customer: ref,
  status: z.string().min(1).max(64),
  cancel_at_period_end: z.boolean().nullish(),
  /** Before 2025-03-31.basil. */
  current_period_end: unixSeconds.nullish(),
  items: z
    .looseObject({
      data: z.array(
        z.looseObject({
          price: Price.nullish(),
          /** Since 2025-03-31.basil. */
          current_period_end: unixSeconds.nullish(),
        }),
      ),
    })
    .nullish(),
});

const InvoiceObject = z.looseObject({
  customer: ref.nullish(),
  /** Before 2025-03-31.basil. */
  subscription: ref.nullish(),
  /** Since 2025-03-31.basil. */
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: ref.nullish() }).nullish() }).nullish(),
});

const CheckoutSessionObject = z.looseObject({
  /** `subscription`, `payment` or `setup`: only the first makes a subscription. */
  mode: z.string().max(64).nullish(),
  customer: ref.nullish(),
  client_reference_id: text.nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** A webhook event as the service reads it, whatever its type. */
export const EventEnvelope = z.looseObject({
  id,
  type: z.string().min(1).max(255),
  created: unixSeconds,
  data: z.looseObject({ object: z.unknown() }),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** A Stripe object read, or why it could not be. */
export type Read<T> = { ok: true; value: T } | { ok: false; error: z.ZodError };

/** A subscription's state as stored per customer. */
export interface SubscriptionState {
  customerId: string;
  subscriptionId: string;
  status: string;
  priceId: string | null;
  plan: string | null;
  /** ISO-8601. */
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

const isoFromUnix = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? null : new Date(seconds * 1000).toISOString();

/** Reads a Stripe subscription (from an event or an API answer); a `deleted` one is canceled whatever it says. */
export function readSubscription(object: unknown, deleted = false): Read<SubscriptionState> {
  const parsed = SubscriptionObject.safeParse(object);
  if (!parsed.success) return { ok: false, error: parsed.error };
  const subscription = parsed.data;
  const item = subscription.items?.data[0];
  const price = item?.price ?? null;
  const status =
    deleted && !(ENDED_STATUSES as readonly string[]).includes(subscription.status) ? "canceled" : subscription.status;
  return {
    ok: true,
    value: {
      customerId: subscription.customer,
      subscriptionId: subscription.id,
      status,
      priceId: price?.id ?? null,
      plan: price ? price.lookup_key || price.nickname || price.id : null,
      currentPeriodEnd: isoFromUnix(subscription.current_period_end ?? item?.current_period_end),
      cancelAtPeriodEnd: subscription.cancel_at_period_end ?? false,
    },
  };
}

/** The customer and subscription an invoice belongs to (either may be absent: a one-off invoice). */
export function readInvoice(object: unknown): Read<{ customerId: string | null; subscriptionId: string | null }> {
  const parsed = InvoiceObject.safeParse(object);
  if (!parsed.success) return { ok: false, error: parsed.error };
  const invoice = parsed.data;
  return {
    ok: true,
    value: {
      customerId: invoice.customer ?? null,
      subscriptionId: invoice.subscription ?? invoice.parent?.subscription_details?.subscription ?? null,
    },
  };
}

/** What the service reads of a completed Checkout Session. */
export interface CheckoutSession {
  /** Only a `subscription` session links its customer to a user. */
  mode: string | null;
  customerId: string | null;
  /**
   * The user it was for, as the server that created the session named them: its
   * `client_reference_id`, else its `metadata.user_id` (a `users.id` or a `users.external_id`).
   */
  userRef: string | null;
}

/** Reads a completed Checkout Session. */
export function readCheckoutSession(object: unknown): Read<CheckoutSession> {
  const parsed = CheckoutSessionObject.safeParse(object);
  if (!parsed.success) return { ok: false, error: parsed.error };
  const session = parsed.data;
  return {
    ok: true,
    value: {
      mode: session.mode ?? null,
      customerId: session.customer ?? null,
      userRef: session.client_reference_id || session.metadata?.user_id || null,
    },
  };
}
