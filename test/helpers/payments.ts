import { env } from "cloudflare:test";
import Stripe from "stripe";
import { vi } from "vitest";
import { type ApiResponse, api, type TestUser } from "./api";

export const WEBHOOK = "/payments/webhook";
export const CANCEL = "/payments/cancel-subscription";
export const ME = "/api/v1/me";

/** The signing secret the tests' Worker has (vitest.config.ts). */
export const WEBHOOK_SECRET = env.STRIPE_WEBHOOK_SECRET;

export const nowSeconds = () => Math.floor(Date.now() / 1000);
export const unique = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export interface SignOptions {
  secret?: string;
  /** The signature's `t`, Unix seconds (default now). */
  timestamp?: number;
}

/** A `Stripe-Signature` header for `payload`, as Stripe computes it. */
export const signatureFor = (payload: string, options: SignOptions = {}) =>
  Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp ?? nowSeconds(),
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });

export interface WebhookReceipt {
  received: true;
  event_id: string;
  event_type: string;
  handled: boolean;
  duplicate: boolean;
  ignored?: string;
  held?: string;
}

/** Delivers `event` as Stripe does: the JSON text, signed (a header of `null` sends none). */
export async function deliver(
  event: StripeTestEvent,
  options: SignOptions & { header?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<WebhookReceipt>> {
  const payload = JSON.stringify(event, null, 2);
  const header = options.header === undefined ? await signatureFor(payload, options) : options.header;
  return api<WebhookReceipt>(WEBHOOK, {
    method: "POST",
    body: options.body ?? payload,
    headers: { ...options.headers, ...(header === null ? {} : { "Stripe-Signature": header }) },
  });
}

/** Delivers `event` and expects it applied. */
export async function deliverOk(event: StripeTestEvent): Promise<WebhookReceipt> {
  const res = await deliver(event);
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface StripeTestEvent {
  id: string;
  object: "event";
  type: string;
  created: number;
  api_version: string;
  livemode: false;
  data: { object: Record<string, unknown> };
}

export const event = (type: string, created: number, object: Record<string, unknown>): StripeTestEvent => ({
  id: unique("evt"),
  object: "event",
  type,
  created,
  api_version: "2026-10-28.endive",
  livemode: false,
  data: { object },
});

export interface SubscriptionFields {
  id: string;
  customer: string;
  status: string;
  priceId?: string;
  lookupKey?: string | null;
  nickname?: string | null;
  periodEnd?: number;
  cancelAtPeriodEnd?: boolean;
  /** `basil` (2025-03-31 and later): period end on the items; `legacy`: on the subscription. */
  shape?: "basil" | "legacy";
}

/** A Stripe subscription object in the shape of a recent or an older API version. */
export function subscriptionObject(fields: SubscriptionFields): Record<string, unknown> {
  const periodEnd = fields.periodEnd ?? nowSeconds() + 30 * 86400;
  const price = {
    id: fields.priceId ?? "price_pro_monthly",
    object: "price",
    lookup_key: fields.lookupKey === undefined ? "pro_monthly" : fields.lookupKey,
    nickname: fields.nickname ?? null,
  };
  const legacy = fields.shape === "legacy";
  return {
    id: fields.id,
    object: "subscription",
    customer: fields.customer,
    status: fields.status,
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    ...(legacy ? { current_period_end: periodEnd } : {}),
    items: {
      object: "list",
      data: [
        { id: unique("si"), object: "subscription_item", price, ...(legacy ? {} : { current_period_end: periodEnd }) },
      ],
    },
  };
}

export const subscriptionEvent = (
  type: "created" | "updated" | "deleted",
  created: number,
  fields: SubscriptionFields,
): StripeTestEvent => event(`customer.subscription.${type}`, created, subscriptionObject(fields));

export interface CheckoutFields {
  customer: string | null;
  userId?: string;
  metadataUserId?: string;
  subscription?: string;
  /** Default `subscription`; `payment` and `setup` sessions never link. */
  mode?: string;
  /** Default `paid` (what a completed subscription checkout says once its first invoice is paid). */
  paymentStatus?: string;
}

export const checkoutEvent = (created: number, fields: CheckoutFields): StripeTestEvent =>
  event("checkout.session.completed", created, {
    id: unique("cs_test"),
    object: "checkout.session",
    mode: fields.mode ?? "subscription",
    payment_status: fields.paymentStatus ?? "paid",
    customer: fields.customer,
    client_reference_id: fields.userId ?? null,
    metadata: fields.metadataUserId ? { user_id: fields.metadataUserId } : {},
    subscription: fields.subscription ?? null,
  });

export const invoiceEvent = (
  type: "paid" | "payment_failed",
  created: number,
  fields: { customer: string; subscription: string; shape?: "basil" | "legacy" },
): StripeTestEvent =>
  event(`invoice.${type}`, created, {
    id: unique("in"),
    object: "invoice",
    customer: fields.customer,
    ...(fields.shape === "legacy"
      ? { subscription: fields.subscription }
      : { parent: { type: "subscription_details", subscription_details: { subscription: fields.subscription } } }),
  });

export interface StoredSubscription {
  customer_id: string;
  user_id: string | null;
  subscription_id: string | null;
  status: string | null;
  price_id: string | null;
  plan: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  state_at: number;
  linked_at: number | null;
}

export const storedSubscription = (customerId: string) =>
  env.DB.prepare(
    `SELECT customer_id, user_id, subscription_id, status, price_id, plan, current_period_end, cancel_at_period_end,
       state_at, linked_at FROM subscriptions WHERE customer_id = ?`,
  )
    .bind(customerId)
    .first<StoredSubscription>();

export const subscriptionOfUser = (userId: string) =>
  env.DB.prepare("SELECT customer_id, subscription_id, status FROM subscriptions WHERE user_id = ?")
    .bind(userId)
    .first<{ customer_id: string; subscription_id: string | null; status: string | null }>();

export const recordedEvent = (eventId: string) =>
  env.DB.prepare("SELECT id, type FROM payment_events WHERE id = ?")
    .bind(eventId)
    .first<{ id: string; type: string }>();

/** The record of a checkout held for the operator, or null. */
export const heldCheckout = (eventId: string) =>
  env.DB.prepare(
    `SELECT event_id, customer_id, user_id, reason, user_customer_id, customer_user_id, checkout_at, held_at, released_at,
       released_by FROM held_checkouts WHERE event_id = ?`,
  )
    .bind(eventId)
    .first<{
      event_id: string;
      customer_id: string;
      user_id: string;
      reason: string;
      user_customer_id: string | null;
      customer_user_id: string | null;
      checkout_at: number;
      held_at: string;
      released_at: string | null;
      released_by: string | null;
    }>();

/** The latest state kept of a subscription (shown or held), or null. */
export const keptSubscriptionState = (customerId: string, subscriptionId: string) =>
  env.DB.prepare(
    `SELECT customer_id, subscription_id, status, state_at, held_at, released_at
       FROM subscription_states WHERE customer_id = ? AND subscription_id = ?`,
  )
    .bind(customerId, subscriptionId)
    .first<{
      customer_id: string;
      subscription_id: string;
      status: string;
      state_at: number;
      held_at: string | null;
      released_at: string | null;
    }>();

/** A user with a subscription linked by checkout, as Stripe's events would leave it. */
export async function subscribe(
  user: TestUser,
  fields: Partial<SubscriptionFields> = {},
): Promise<{ customer: string; subscription: string; periodEnd: number }> {
  const customer = fields.customer ?? unique("cus");
  const subscription = fields.id ?? unique("sub");
  const periodEnd = fields.periodEnd ?? nowSeconds() + 30 * 86400;
  const created = nowSeconds() - 60;
  await deliverOk(checkoutEvent(created, { customer, userId: user.id, subscription }));
  await deliverOk(
    subscriptionEvent("created", created, {
      status: "active",
      ...fields,
      id: subscription,
      customer,
      periodEnd,
    }),
  );
  return { customer, subscription, periodEnd };
}

/** Runs `work` with console.warn and console.error silenced; returns its result and the lines logged there. */
export async function capturingConsole<T>(work: () => Promise<T>): Promise<{ result: T; logged: string }> {
  const spies = [
    vi.spyOn(console, "warn").mockImplementation(() => undefined),
    vi.spyOn(console, "error").mockImplementation(() => undefined),
  ];
  try {
    const result = await work();
    // Read before mockRestore, which forgets the calls.
    const logged = spies.flatMap((spy) => spy.mock.calls.map((call) => String(call[0]))).join("\n");
    return { result, logged };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Delivers `event` with `requestId` as X-Request-Id, logging silenced: the answer, and the JSON line logged about the event ({} if none). */
export async function deliverLogged(event: StripeTestEvent, requestId: string) {
  const { result, logged } = await capturingConsole(() => deliver(event, { headers: { "X-Request-Id": requestId } }));
  const line = logged.split("\n").find((text) => text.includes(event.id));
  return { res: result, line: JSON.parse(line ?? "{}") as Record<string, unknown> };
}
