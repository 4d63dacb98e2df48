import { sign, verify } from "hono/jwt";
import type { RequestContext } from "../lib/context";
import { allowsLocalShortcuts } from "../lib/environment";
import { ApiError, unauthorized } from "../lib/errors";

// App sessions: HS256 JWTs signed with SESSION_SECRET, the user id in `sub`.
// They are what `/auth/complete` hands out and what `/api/v1` accepts besides API
// keys; checking one costs no D1 round trip. A session cannot be revoked before it
// expires (nothing about it is stored), so its lifetime is the exposure of a stolen one.

/** Default session lifetime: 7 days. `SESSION_TTL_SECONDS` overrides it (60 s to 90 days). */
export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
const MIN_SESSION_TTL_SECONDS = 60;
const MAX_SESSION_TTL_SECONDS = 90 * 24 * 60 * 60;

/**
 * Used only by `wrangler dev` on this machine (ENVIRONMENT `development`, a loopback
 * address) when no SESSION_SECRET is set, so that `npm ci && npm run dev` works with no
 * setup. Anywhere else a missing secret refuses sessions instead: this value is public.
 */
const DEVELOPMENT_ONLY_SECRET = "development-only-session-secret-not-for-deployment";
/** The placeholder of .dev.vars.example: refused where it would protect real sessions. */
const EXAMPLE_SECRET = "change-me-to-a-long-random-string";
/** Shortest secret accepted outside local work: 32 characters of a random string. */
export const MIN_SESSION_SECRET_LENGTH = 32;

const notConfigured = (problem: string) =>
  new ApiError(
    "unavailable",
    `App sessions are not configured on this server: ${problem} (wrangler secret put SESSION_SECRET)`,
  );

type SessionScope = Pick<RequestContext, "env" | "local">;

/** The signing secret, or a 503 naming the problem: never a weak default outside local work. */
export function sessionSecret(ctx: SessionScope): string {
  const configured = ctx.env.SESSION_SECRET;
  const local = allowsLocalShortcuts(ctx);
  if (!configured) {
    if (local && ctx.env.ENVIRONMENT === "development") return DEVELOPMENT_ONLY_SECRET;
    throw notConfigured("set the SESSION_SECRET secret");
  }
  if (!local && (configured.length < MIN_SESSION_SECRET_LENGTH || configured === EXAMPLE_SECRET)) {
    throw notConfigured(`SESSION_SECRET must be a random string of at least ${MIN_SESSION_SECRET_LENGTH} characters`);
  }
  return configured;
}

export function sessionLifetimeSeconds(env: Env): number {
  const configured = Number(env.SESSION_TTL_SECONDS);
  if (!Number.isInteger(configured) || configured <= 0) return DEFAULT_SESSION_TTL_SECONDS;
  return Math.min(MAX_SESSION_TTL_SECONDS, Math.max(MIN_SESSION_TTL_SECONDS, configured));
}

export interface IssuedSession {
  token: string;
  /** ISO-8601. */
  expiresAt: string;
}

export async function issueSessionToken(ctx: SessionScope, userId: string, now: Date): Promise<IssuedSession> {
  const secret = sessionSecret(ctx);
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expires = issuedAt + sessionLifetimeSeconds(ctx.env);
  const token = await sign({ sub: userId, iat: issuedAt, exp: expires }, secret, "HS256");
  return { token, expiresAt: new Date(expires * 1000).toISOString() };
}

/** The user id a valid, unexpired session token names; 401 otherwise (a token without `exp` too). */
export async function verifySessionToken(ctx: SessionScope, token: string): Promise<string> {
  const secret = sessionSecret(ctx);
  try {
    const payload = await verify(token, secret, "HS256");
    if (typeof payload.sub !== "string" || payload.sub === "") throw new Error("no subject");
    // The verifier checks `exp` only when present; a session that never ends is not one we issue.
    if (typeof payload.exp !== "number") throw new Error("no expiry");
    return payload.sub;
  } catch {
    throw unauthorized("Invalid or expired session token");
  }
}
