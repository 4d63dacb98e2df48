import type { RequestContext } from "../../lib/context";
import { ApiError, badRequest } from "../../lib/errors";

/** Who an identity provider says signed in. */
export interface ConfirmedIdentity {
  /** Qualified by provider, stable for the person: `clerk:user_2abc`, `development:ada@example.com`. */
  externalId: string;
  email: string;
  name: string | null;
}

/**
 * An identity provider behind `/auth/complete`: given the session id its
 * front end produced, it confirms the session and says who it belongs to.
 * An unknown, expired or ended session is `invalidSession()` (400); a provider
 * that cannot be reached fails with an OutboundError (500, nothing of the
 * provider's answer in the body).
 */
export interface IdentityProvider {
  readonly name: string;
  confirm(ctx: RequestContext, sessionId: string): Promise<ConfirmedIdentity>;
}

export const invalidSession = (reason: string) =>
  badRequest("Invalid session: the identity provider does not confirm this session id", { sessionId: reason });

export const providerNotConfigured = (message: string) => new ApiError("unavailable", message);
