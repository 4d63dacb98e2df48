import { defineRoute, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { MeSchema, SubscriptionSchema } from "../../schemas/subscriptions";
import { CancelSubscriptionBody, StripeEventBody, WebhookHeaders, WebhookReceiptSchema } from "./payments.schemas";

const tags = ["Payments"];
const notConfigured = errorResponse(
  "Payments are not configured on this server (`code` unavailable; `details.setting` names the missing secret)",
);

export const webhook = defineRoute({
  operationId: "receivePaymentWebhook",
  method: "post",
  path: "/payments/webhook",
  tags,
  access: "signed",
  summary: "Stripe webhook (signed)",
  description:
    "Receives Stripe events. Needs no credential: the `Stripe-Signature` header is verified over the raw body with the endpoint's signing secret, and a missing, malformed, non-matching or more than 300-second-old signature is a 400 (`details.reason`). Each event id takes effect once (a redelivery answers 200 with `duplicate: true` and changes nothing), and a state older than the one stored never replaces it; an invoice event that arrives before its subscription's is kept and applied when the subscription arrives, so the state does not depend on arrival order. Acted on: `checkout.session.completed` in `subscription` mode (links the customer to the user named by `client_reference_id` or `metadata.user_id`, a user id or the identity provider's id; a checkout naming no known user is answered `handled: false` and not recorded, so a resend applies it once the user exists; a checkout that would take a subscription that has not ended from its user, because the user is on another customer's or the customer is another user's, links nothing and is held for the operator, answered `handled: false` and not recorded, so a resend applies it once that is settled; one held because its user was on another subscription is also applied when that subscription ends), `customer.subscription.created|updated|deleted` (a customer shows one subscription: while it has not ended, a state of another subscription of the customer is kept but not shown, answered `held`, and shown once that one ends), `invoice.paid`, `invoice.payment_failed`; other types are acknowledged with 200.",
  request: { headers: WebhookHeaders, body: jsonBody(StripeEventBody) },
  responses: {
    200: jsonContent(WebhookReceiptSchema, "Received (applied now, before, or not a handled type)"),
    503: notConfigured,
  },
});

export const cancel = defineRoute({
  operationId: "cancelSubscription",
  method: "post",
  path: "/payments/cancel-subscription",
  tags,
  access: "user",
  summary: "Cancel the caller's subscription",
  description:
    "Cancels the caller's subscription through Stripe: at the end of the paid period by default, or at once with `{\"at_period_end\": false}`. The body is optional. Answers the subscription's new state (also stored). 400 when the caller has no active subscription (whether payments are configured or not: the 503 is for a caller with one); 500 `upstream_failed` when Stripe fails, without Stripe's message.",
  request: { body: jsonBody(CancelSubscriptionBody, false) },
  responses: {
    200: jsonContent(SubscriptionSchema, "The subscription's new state"),
    500: errorResponse(
      "Stripe failed or could not be reached (`code` upstream_failed), or an unexpected failure (`code` internal); X-Request-Id identifies it",
    ),
    503: notConfigured,
  },
});

export const me = defineRoute({
  operationId: "getMe",
  entityTag: "read",
  method: "get",
  path: "/api/v1/me",
  tags: ["Account"],
  access: "user",
  summary: "The caller's account and plan",
  description:
    'Who the credential belongs to: id, email, name, `plan` ("free" unless a subscription is active, trialing or past_due) and the subscription\'s state (null when there has never been one). An app session whose user no longer exists is a 401, like one its user ended by signing out.',
  responses: { 200: jsonContent(MeSchema, "The caller") },
});
