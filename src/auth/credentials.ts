import { and, eq, gt, isNull, or } from "drizzle-orm";
import { apiKeys } from "../db/schema";
import type { Actor, RequestContext } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { cachedKey, rememberKey } from "./api-key-cache";
import { API_KEY_PREFIX, hashApiKey, isApiKeyFormat } from "./api-key-format";
import { credentialOf } from "./authorization-header";
import { type LiveCredential, liveKey, liveSession } from "./credential-liveness";
import { ALL_SCOPES, parseScopes } from "./scopes";
import { verifySessionToken } from "./sessions";

/** How a credential was checked, for `Server-Timing` (reported for refused credentials too). */
export type CredentialSource = "api key from D1" | "api key from cache" | "session token";

export interface Authenticated {
  actor: Actor;
  /**
   * What the request's own queries must still find live (auth/credential-liveness.ts): an app
   * session (its user may have ended it), or an API key remembered by this isolate and not read
   * from D1 for this request. Undefined for a key D1 has just confirmed.
   */
  unconfirmed: LiveCredential | undefined;
}

/**
 * Who the `Authorization` header says the caller is: an API key (looked up by
 * its SHA-256 hash: one D1 round trip, or none and no hash when this isolate remembers it)
 * or an app-session JWT (HS256 with SESSION_SECRET: no round trip; whether its
 * user has signed out since is left to the request's queries). 401 otherwise.
 */
export async function authenticate(
  ctx: RequestContext,
  header: string | undefined,
  noteSource: (source: CredentialSource) => void,
): Promise<Authenticated> {
  const token = credentialOf(header);
  if (!token) throw unauthorized("Missing bearer credential in the Authorization header");
  if (token.startsWith(API_KEY_PREFIX)) return actorFromApiKey(ctx, token, noteSource);
  noteSource("session token");
  const { userId, issuedAt } = await verifySessionToken(ctx, token);
  return {
    actor: { userId, via: "session", apiKeyId: null, scopes: ALL_SCOPES },
    unconfirmed: liveSession(userId, issuedAt),
  };
}

async function actorFromApiKey(
  ctx: RequestContext,
  token: string,
  noteSource: (source: CredentialSource) => void,
): Promise<Authenticated> {
  if (!isApiKeyFormat(token)) throw unauthorized("Invalid API key");
  let key = cachedKey(token);
  const keyFromCache = key !== undefined;
  noteSource(keyFromCache ? "api key from cache" : "api key from D1");
  if (key === undefined) {
    const keyHash = await hashApiKey(token);
    const row = await ctx.db
      .select({ userId: apiKeys.userId, keyId: apiKeys.id, scopes: apiKeys.scopes })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.keyHash, keyHash),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, ctx.now().toISOString())),
        ),
      )
      .get();
    key = row ? { userId: row.userId, keyId: row.keyId, scopes: parseScopes(row.scopes) } : null;
    // A dead key is remembered as unknown: it never comes back to life.
    rememberKey(token, key);
  }
  if (key === null) throw unauthorized("Invalid API key");
  return {
    actor: { userId: key.userId, via: "api_key", apiKeyId: key.keyId, scopes: key.scopes },
    unconfirmed: keyFromCache ? liveKey(key.keyId, ctx.now) : undefined,
  };
}
