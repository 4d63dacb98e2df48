// The production bundle leaves Stripe's API resources other than subscriptions out (wrangler.toml
// [alias], src/bundle/stripe-resources.ts); the tests run the whole package, so the guard is the
// type of the client callStripe hands a call: a call to another resource does not compile
// (`npm run check`), where it would pass here and fail in production.
import type Stripe from "stripe";
import { describe, expectTypeOf, it } from "vitest";
import type { callStripe } from "../../src/services/payments/stripe";

type Client = Parameters<Parameters<typeof callStripe>[1]>[0];

describe("the Stripe client a call gets", () => {
  it("has subscriptions, whose module the bundle keeps, and no other resource", () => {
    expectTypeOf<Client["subscriptions"]>().toEqualTypeOf<Stripe["subscriptions"]>();
    expectTypeOf<Client>().not.toHaveProperty("customers");
    expectTypeOf<Client>().not.toHaveProperty("checkout");
  });
});
