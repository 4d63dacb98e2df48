import { representationDigest } from "../../lib/entity-tags";
import type { Handler } from "../../openapi/define-route";
import { answerTagged } from "../../openapi/entity-tags";
import { cancelSubscription, readMe } from "../../services/payments/subscriptions";
import { receiveWebhook } from "../../services/payments/webhook";
import type * as routes from "./payments.routes";

/** The signature covers the body as sent: it is read raw (the text the JSON validator already read, unchanged). */
export const webhook: Handler<typeof routes.webhook> = async (c) =>
  c.json(await receiveWebhook(c.get("ctx"), await c.req.text(), c.req.header("Stripe-Signature")), 200);

export const cancel: Handler<typeof routes.cancel> = async (c) => {
  const { at_period_end: atPeriodEnd = true } = c.req.valid("json");
  return c.json(await cancelSubscription(c.get("ctx"), atPeriodEnd), 200);
};

export const me: Handler<typeof routes.me> = async (c) => {
  const account = await readMe(c.get("ctx"));
  const validator = { kind: "me", id: c.get("ctx").actor.userId, parts: [await representationDigest(account)] };
  return answerTagged(c, account, 200, validator);
};
