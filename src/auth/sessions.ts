import { sign, verify } from "hono/jwt";
import type { RequestContext } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { requiredSecret } from "../lib/secrets";

// App sessions: HS256 JWTs signed with SESSION_SECRET, the user id in `sub`.
// They are what `/auth/complete` hands out and what `/api/v1` accepts besides API
// keys; checking one costs no D1 round trip. A session cannot be revoked before it
// expires (nothing about it is stored), so its lifetime is the exposure of a stolen one.

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
