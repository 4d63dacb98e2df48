// The webhook signing secret `wrangler dev` uses when STRIPE_WEBHOOK_SECRET is unset, so a signed
// event can be sent offline (`npm run stripe:event`). Imported by the Worker and by
// scripts/send-stripe-event.ts (run by Node directly), so it imports nothing.

/** Public: stands in only under `wrangler dev` from this machine; refused as the secret anywhere else (lib/secrets.ts). */
export const DEVELOPMENT_STRIPE_WEBHOOK_SECRET = "whsec_development_only_not_for_deployment";
