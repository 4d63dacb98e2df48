import { z } from "@hono/zod-openapi";

/** The plan of a caller without a live subscription. */
export const FREE_PLAN = "free";

/** Statuses in which a subscription grants its plan (past_due: while Stripe retries the payment). */
export const LIVE_STATUSES = ["active", "trialing", "past_due"] as const;
/** Statuses a subscription never leaves: an invoice event never brings it back. */
export const ENDED_STATUSES = ["canceled", "incomplete_expired"] as const;
/** Statuses in which the caller may cancel (an incomplete subscription has nothing to cancel yet). */
export const CANCELLABLE_STATUSES = ["active", "trialing", "past_due", "unpaid", "paused"] as const;

export const isLive = (status: string | null): boolean =>
  status !== null && (LIVE_STATUSES as readonly string[]).includes(status);

/** A caller's subscription as the payment provider last reported it. */
export const SubscriptionSchema = z
  .object({
    customer_id: z.string().openapi({ description: "The Stripe customer", example: "cus_R8fKq2LmZ3xYt1" }),
    subscription_id: z.string().openapi({ example: "sub_1QxZa2LkdIwHu7ixQ8b3cV4n" }),
    status: z.string().openapi({
      description:
        "Stripe's status: active, trialing, past_due, unpaid, paused, incomplete, incomplete_expired or canceled",
      example: "active",
    }),
    plan: z.string().nullable().openapi({
      description: "The price's lookup key, else its nickname, else its id",
      example: "pro_monthly",
    }),
    price_id: z.string().nullable().openapi({ example: "price_1QxZ9sLkdIwHu7ixk2Jm0aBc" }),
    current_period_end: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "End of the paid period", example: "2026-12-23T09:30:00.000Z" }),
    cancel_at_period_end: z.boolean().openapi({
      description: "True: the subscription ends at `current_period_end` and is not renewed",
      example: false,
    }),
  })
  .openapi("Subscription");
export type Subscription = z.infer<typeof SubscriptionSchema>;

const SUBSCRIPTION_EXAMPLE: Subscription = {
  customer_id: "cus_R8fKq2LmZ3xYt1",
  subscription_id: "sub_1QxZa2LkdIwHu7ixQ8b3cV4n",
  status: "active",
  plan: "pro_monthly",
  price_id: "price_1QxZ9sLkdIwHu7ixk2Jm0aBc",
  current_period_end: "2026-12-23T09:30:00.000Z",
  cancel_at_period_end: false,
};

/** Who the caller is, and what they pay for. */
export const MeSchema = z
  .object({
    id: z.string().openapi({ example: "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d" }),
    email: z.string().openapi({ example: "ada@example.com" }),
    name: z.string().nullable().openapi({ example: "Ada Lovelace" }),
    plan: z.string().openapi({
      description: '"free" without a live (active, trialing or past_due) subscription; else the subscription\'s plan',
      example: "pro_monthly",
    }),
    // A union, not `.nullable()`: on a component that renders as allOf [Subscription, null], which no null matches.
    subscription: z.union([SubscriptionSchema, z.null()]).openapi({
      description: "The caller's subscription, live or ended; null when there has never been one",
    }),
  })
  .openapi("Me", {
    example: {
      id: "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d",
      email: "ada@example.com",
      name: "Ada Lovelace",
      plan: "pro_monthly",
      subscription: SUBSCRIPTION_EXAMPLE,
    },
  });
export type Me = z.infer<typeof MeSchema>;
