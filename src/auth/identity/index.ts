import type { RequestContext } from "../../lib/context";
import { allowsLocalShortcuts } from "../../lib/environment";
import { clerkProvider } from "./clerk";
import { developmentProvider } from "./development";
import { type IdentityProvider, providerNotConfigured } from "./provider";

export type { ConfirmedIdentity, IdentityProvider } from "./provider";

const PROVIDERS: Record<string, IdentityProvider> = {
  clerk: clerkProvider,
  development: developmentProvider,
};

/**
 * The provider `AUTH_PROVIDER` names; unset, `development` for local work and
 * `clerk` anywhere else. The development provider lets anyone sign in as anyone,
 * so it answers only the test suite and `wrangler dev` on a connection from this machine
 * (lib/environment.ts): never a deployment, whatever its configuration says.
 */
export function identityProviderFor(ctx: Pick<RequestContext, "env" | "local">): IdentityProvider {
  const local = allowsLocalShortcuts(ctx);
  const name = ctx.env.AUTH_PROVIDER || (local ? "development" : "clerk");
  const provider = PROVIDERS[name];
  if (!provider) {
    throw providerNotConfigured(`Sign-in is misconfigured: AUTH_PROVIDER '${name}' is not one of clerk, development`);
  }
  if (provider === developmentProvider && !local) {
    throw providerNotConfigured(
      'Sign-in is misconfigured: the development provider serves only local development (set AUTH_PROVIDER = "clerk")',
    );
  }
  return provider;
}
