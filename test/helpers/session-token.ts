import { env } from "cloudflare:test";
import { sign } from "hono/jwt";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../../src/auth/sessions";

/**
 * An app-session token as the service issues them (HS256, its `iss` and `aud`) with the claims
 * given (which may override those two), signed with SESSION_SECRET unless another secret is given.
 */
export const signSessionToken = (claims: Record<string, unknown>, secret: string = env.SESSION_SECRET ?? "") =>
  sign({ iss: SESSION_ISSUER, aud: SESSION_AUDIENCE, ...claims }, secret, "HS256");
