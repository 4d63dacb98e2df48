import { sign, verify } from "hono/jwt";
import type { RequestContext } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { requiredSecret } from "../lib/secrets";

// App sessions: HS256 JWTs signed with SESSION_SECRET, the user id in `sub`, the issue time in
// `iat` (seconds) and `iat_ms` (milliseconds), this service as `iss` and app sessions as `aud`.
// They are what `/auth/complete` hands out and what `/api/v1` accepts besides API keys. Nothing
// about a session is stored: a token is live while it has not expired, its user exists and the
// user has not signed out since it was issued (`users.sessions_valid_from`, set by
// `POST /auth/sign-out`). That is checked by the request's first D1 call, or by a query of its
// own when it makes none (auth/credential-liveness.ts), so ending a user's sessions takes effect
// at once everywhere.

/**
 * Who issues a session token and what it is for (RFC 7519 `iss` and `aud`), both checked on every
 * token (RFC 8725 §3.9, §3.10): a JWT this service did not issue as an app session (one signed
 * with the same secret by another system, if an operator shared it) is not one.
 */
export const SESSION_ISSUER = "workspace-api";
export const SESSION_AUDIENCE = "workspace-api:app-session";

/** Default session lifetime: 7 days. `SESSION_TTL_SECONDS` overrides it (60 s to 90 days). */
export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
const MIN_SESSION_TTL_SECONDS = 60;
const MAX_SESSION_TTL_SECONDS = 90 * 24 * 60 * 60;

type SessionScope = Pick<RequestContext, "env" | "local">;

/** The signing secret, or a 503 naming the problem: never a weak default outside local work (lib/secrets.ts). */
export const sessionSecret = (ctx: SessionScope): string =>
  requiredSecret(ctx, {
    name: "SESSION_SECRET",
    protects: "App sessions",
    // Public: `wrangler dev` on this machine only, so `npm ci && npm run dev` needs no setup.
    developmentDefault: "development-only-session-secret-not-for-deployment",
    defaultFor: "wrangler dev",
    placeholders: ["change-me-to-a-long-random-string"],
  });

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

/**
 * A session for `userId`, issued at `now` or at `validFrom` (the user's `sessions_valid_from`)
 * if that is later: a sign-in within the millisecond of a sign-out, or on an isolate whose clock
 * is behind, still gets a session that the sign-out does not end.
 */
export async function issueSessionToken(
  ctx: SessionScope,
  userId: string,
  now: Date,
  validFrom: string | null = null,
): Promise<IssuedSession> {
  const secret = sessionSecret(ctx);
  const issuedAtMs = Math.max(now.getTime(), validFrom === null ? 0 : Date.parse(validFrom));
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expires = issuedAt + sessionLifetimeSeconds(ctx.env);
  const token = await sign(
    { iss: SESSION_ISSUER, aud: SESSION_AUDIENCE, sub: userId, iat: issuedAt, iat_ms: issuedAtMs, exp: expires },
    secret,
    "HS256",
  );
  return { token, expiresAt: new Date(expires * 1000).toISOString() };
}

export interface VerifiedSession {
  userId: string;
  /** When it was issued, ISO-8601 with milliseconds: what a sign-out's `sessions_valid_from` is compared with. */
  issuedAt: string;
}

/**
 * The user a valid, unexpired session token names, and when it was issued; 401 otherwise (a
 * token without `exp`, or not issued by this service as an app session, too). Whether its user
 * still has it is the request's first D1 call's to say.
 */
export async function verifySessionToken(ctx: SessionScope, token: string): Promise<VerifiedSession> {
  const secret = sessionSecret(ctx);
  try {
    const payload = await verify(token, secret, { alg: "HS256", iss: SESSION_ISSUER, aud: SESSION_AUDIENCE });
    if (typeof payload.sub !== "string" || payload.sub === "") throw new Error("no subject");
    // The verifier checks `exp` only when present; a session that never ends is not one we issue.
    if (typeof payload.exp !== "number") throw new Error("no expiry");
    return { userId: payload.sub, issuedAt: new Date(issuedAtMs(payload)).toISOString() };
  } catch {
    throw unauthorized("Invalid or expired session token");
  }
}

/**
 * `iat_ms` (every token this service issues carries it); without it, the start of the `iat`
 * second; without either, the epoch. Never later than the token was issued, so a sign-out after
 * it ends it.
 */
function issuedAtMs(payload: Record<string, unknown>): number {
  const { iat_ms: millis, iat } = payload;
  if (typeof millis === "number" && Number.isSafeInteger(millis) && millis >= 0) return millis;
  if (typeof iat === "number" && Number.isSafeInteger(iat) && iat >= 0) return iat * 1000;
  return 0;
}
