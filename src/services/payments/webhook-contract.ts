// What a sender of webhook events must know: the event types the service acts on and, locally, the
// secret it verifies signatures with. Imported by the Worker and by scripts/send-stripe-event.ts
// (run by Node directly), so it imports nothing.

/** The event types the service acts on; any other is acknowledged and ignored. */
export const HANDLED_EVENT_TYPES = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed",
] as const;

/**
 * The signing secret `wrangler dev` uses when STRIPE_WEBHOOK_SECRET is unset, so a signed event can
 * be sent offline (`npm run stripe:event`). Public: it stands in only under `wrangler dev` from this
 * machine, and is refused as the secret anywhere else (lib/secrets.ts).
 */
export const DEVELOPMENT_STRIPE_WEBHOOK_SECRET = "whsec_development_only_not_for_deployment";
