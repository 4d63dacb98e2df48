// npm run stripe:event -- <type> [name=value ...]
// Sends the local server one Stripe webhook event, built here and signed as Stripe signs it
// (`stripe.webhooks.generateTestHeaderString`), with no Stripe account and no network: the offline
// counterpart of `stripe trigger`. The secret is STRIPE_WEBHOOK_SECRET from the environment or
// .dev.vars, else the development secret `wrangler dev` uses when none is set. Posts to
// $API_ORIGIN/payments/webhook (default http://127.0.0.1:8787), prints the answer, and exits 1
// unless it is a 2xx.
//
//   checkout.session.completed     user=<id of GET /api/v1/me>  customer=  subscription=
//   customer.subscription.created  customer=  subscription=  status=active  plan=pro_monthly  days=30
//   customer.subscription.updated  (the same)
//   customer.subscription.deleted  (the same; status=canceled)
//   invoice.paid                   customer=  subscription=
//   invoice.payment_failed         customer=  subscription=
//
// customer and subscription default to cus_local and sub_local, so the events of one
// subscription's life follow each other without naming them.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Stripe from "stripe";
import { DEVELOPMENT_STRIPE_WEBHOOK_SECRET, HANDLED_EVENT_TYPES } from "../src/services/payments/webhook-contract.ts";

// The version of src/services/payments/stripe.ts (STRIPE_API_VERSION); events carry their endpoint's.
const API_VERSION = "2026-10-28.endive";
type EventType = (typeof HANDLED_EVENT_TYPES)[number];

const usage = () => {
  console.error(`Usage: npm run stripe:event -- <type> [name=value ...]\n  types: ${HANDLED_EVENT_TYPES.join(", ")}`);
  process.exit(1);
};

const [type, ...pairs] = process.argv.slice(2);
if (!HANDLED_EVENT_TYPES.includes(type as EventType)) usage();
const options = new Map<string, string>();
for (const pair of pairs) {
  const at = pair.indexOf("=");
  if (at <= 0) usage();
  options.set(pair.slice(0, at), pair.slice(at + 1));
}
const option = (name: string, fallback: string) => options.get(name) || fallback;

/** STRIPE_WEBHOOK_SECRET as `wrangler dev` gets it: the environment, then .dev.vars, then its development default. */
function webhookSecret(): string {
  if (process.env.STRIPE_WEBHOOK_SECRET) return process.env.STRIPE_WEBHOOK_SECRET;
  try {
    const devVars = readFileSync(join(resolve(import.meta.dirname, ".."), ".dev.vars"), "utf8");
    const line = /^\s*STRIPE_WEBHOOK_SECRET\s*=\s*"?([^"\n]*)"?\s*$/m.exec(devVars);
    if (line?.[1]) return line[1];
  } catch {
    // no .dev.vars
  }
  return DEVELOPMENT_STRIPE_WEBHOOK_SECRET;
}

const id = (prefix: string) => `${prefix}_local_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
const now = Math.floor(Date.now() / 1000);
const customer = option("customer", "cus_local");
const subscription = option("subscription", "sub_local");

function object(eventType: EventType): Record<string, unknown> {
  if (eventType === "checkout.session.completed") {
    const user = options.get("user");
    if (!user) {
      console.error("checkout.session.completed needs user=<id> (the id of GET /api/v1/me)");
      process.exit(1);
    }
    return {
      id: id("cs"),
      object: "checkout.session",
      mode: "subscription",
      payment_status: "paid",
      customer,
      client_reference_id: user,
      metadata: {},
      subscription,
    };
  }
  if (eventType.startsWith("invoice.")) {
    return {
      id: id("in"),
      object: "invoice",
      customer,
      parent: { type: "subscription_details", subscription_details: { subscription } },
    };
  }
  const plan = option("plan", "pro_monthly");
  const periodEnd = now + Number(option("days", "30")) * 86400;
  return {
    id: subscription,
    object: "subscription",
    customer,
    status: option("status", eventType === "customer.subscription.deleted" ? "canceled" : "active"),
    cancel_at_period_end: false,
    items: {
      object: "list",
      data: [
        {
          id: id("si"),
          object: "subscription_item",
          price: { id: `price_${plan}`, object: "price", lookup_key: plan, nickname: null },
          current_period_end: periodEnd,
        },
      ],
    },
  };
}

const payload = JSON.stringify({
  id: id("evt"),
  object: "event",
  type,
  created: now,
  api_version: API_VERSION,
  livemode: false,
  data: { object: object(type as EventType) },
});
const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret(), timestamp: now });
const url = `${process.env.API_ORIGIN ?? "http://127.0.0.1:8787"}/payments/webhook`;
const res = await fetch(url, {
  method: "POST",
  headers: { "Content-Type": "application/json", "Stripe-Signature": signature },
  body: payload,
});
console.log(`${type}: ${res.status} ${await res.text()}`);
if (!res.ok) process.exit(1);
