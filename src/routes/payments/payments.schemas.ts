import { z } from "@hono/zod-openapi";

/**
 * A Stripe event as delivered to the webhook. Only its envelope is described: the handler
 * verifies the signature over the raw body and reads the object of each handled type itself.
 */
export const StripeEventBody = z
  .looseObject({
    id: z.string().min(1).openapi({ example: "evt_1QxZb4LkdIwHu7ixT5mN8pQr" }),
    object: z.string().optional().openapi({ example: "event" }),
    type: z.string().min(1).openapi({ example: "customer.subscription.updated" }),
    created: z.number().int().openapi({ description: "Unix seconds", example: 1795436263 }),
    data: z.looseObject({
      object: z.looseObject({}).openapi({
        description: "The object the event is about (a subscription, an invoice, a checkout session, ...)",
        example: { id: "sub_1QxZa2LkdIwHu7ixQ8b3cV4n", object: "subscription", status: "active" },
      }),
    }),
  })
  .openapi("StripeEvent", {
    example: {
      id: "evt_1QxZb4LkdIwHu7ixT5mN8pQr",
      object: "event",
      type: "customer.subscription.updated",
      created: 1795436263,
      data: {
        object: {
          id: "sub_1QxZa2LkdIwHu7ixQ8b3cV4n",
          object: "subscription",
          customer: "cus_R8fKq2LmZ3xYt1",
          status: "active",
          cancel_at_period_end: false,
          items: {
            data: [{ current_period_end: 1798028263, price: { id: "price_1QxZ9sLkdIwHu7ixk2Jm0aBc" } }],
          },
        },
      },
    },
  });

export const WebhookHeaders = z.object({
  "stripe-signature": z
    .string()
    .optional()
    .openapi({
      description:
        "`Stripe-Signature` (header names are case-insensitive): Stripe's signature of the raw body, `t=<unix seconds>,v1=<hex HMAC-SHA256>`",
      examples: ["t=1795436263,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"],
    }),
});

export const WebhookReceiptSchema = z
  .object({
    received: z.literal(true).openapi({ example: true }),
    event_id: z.string().openapi({ example: "evt_1QxZb4LkdIwHu7ixT5mN8pQr" }),
    event_type: z.string().openapi({ example: "customer.subscription.updated" }),
    handled: z.boolean().openapi({
      description:
        "The event was applied, now or before. false: a type the service does not act on, or an event it acknowledged without applying (see `ignored`); such an event's id is not recorded, so a resend can apply it later",
      example: true,
    }),
    duplicate: z.boolean().openapi({
      description: "The event had already been applied: this delivery changed nothing",
      example: false,
    }),
    ignored: z
      .enum([
        "unhandled_type",
        "not_a_subscription_checkout",
        "no_customer_or_user",
        "unknown_user",
        "user_on_another_subscription",
        "customer_of_another_user",
      ])
      .optional()
      .openapi({
        description:
          "Why nothing was applied, when `handled` is false: a type not acted on; a checkout not in `subscription` mode; one without customer or user; one naming no known user (by `users.id` or the identity provider's id); or a checkout held for the operator because it would take a subscription that has not ended from its user: the user it names is linked to another customer whose subscription has not ended (`user_on_another_subscription`), or its customer is linked to another user and its subscription has not ended (`customer_of_another_user`)",
        example: "unknown_user",
      }),
    held: z.enum(["customer_on_another_subscription"]).optional().openapi({
      description:
        "Set when a subscription event was taken in (`handled` true, its id recorded) but its state is not shown: the customer's record shows another of its subscriptions that has not ended. The state is kept (and logged for the operator) and shown once that one ends, so no subscription that has not ended is hidden from its user",
      example: "customer_on_another_subscription",
    }),
  })
  .openapi("WebhookReceipt");

export const CancelSubscriptionBody = z
  .strictObject({
    at_period_end: z.boolean().optional().openapi({
      description: "true (default): the subscription ends with its paid period; false: it ends now",
      example: true,
    }),
  })
  .openapi("CancelSubscriptionRequest", { example: { at_period_end: true } });
