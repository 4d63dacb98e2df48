import { and, eq, isNull } from "drizzle-orm";
import { verify } from "hono/jwt";
import { apiKeys } from "../db/schema";
import type { Actor, RequestContext } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { cachedKey, rememberKey } from "./api-key-cache";
import { API_KEY_PREFIX, hashApiKey, isApiKeyFormat } from "./api-key-format";

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BARE_API_KEY = /^\s*(sr_\S+)\s*$/;

/**
 * The credential of an `Authorization` header: `Bearer <token>`, or a bare
 * `sr_...` key (what a person pastes into the explorer's API-key field).
 * `Bearer sr_...` stays the documented form.
 */
export function credentialOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return BEARER.exec(header)?.[1] ?? BARE_API_KEY.exec(header)?.[1];
}

/** How a credential was checked, for `Server-Timing` (reported for refused credentials too). */
export type CredentialSource = "api key from D1" | "api key from cache" | "session token";

/**
 * Who the `Authorization` header says the caller is: an API key (looked up by
 * its SHA-256 hash: one D1 round trip, or none when this isolate remembers it)
 * or an app-session JWT (HS256 with SESSION_SECRET: no round trip). 401 otherwise.
 */
export async function authenticate(
  ctx: RequestContext,
  header: string | undefined,
  noteSource: (source: CredentialSource) => void,
): Promise<Actor> {
  const token = credentialOf(header);
  if (!token) throw unauthorized("Missing bearer credential in the Authorization header");
  if (token.startsWith(API_KEY_PREFIX)) return actorFromApiKey(ctx, token, noteSource);
  noteSource("session token");
  return actorFromSession(ctx.env, token);
}

async function actorFromApiKey(
  ctx: RequestContext,
  token: string,
  noteSource: (source: CredentialSource) => void,
): Promise<Actor> {
  if (!isApiKeyFormat(token)) throw unauthorized("Invalid API key");
  const keyHash = await hashApiKey(token);
  let key = cachedKey(keyHash);
  noteSource(key === undefined ? "api key from D1" : "api key from cache");
  if (key === undefined) {
    const row = await ctx.db
      .select({ userId: apiKeys.userId, keyId: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
      .get();
    key = row ?? null;
    rememberKey(keyHash, key);
  }
  if (key === null) throw unauthorized("Invalid API key");
  return { userId: key.userId, via: "api_key", apiKeyId: key.keyId };
}

async function actorFromSession(env: Env, token: string): Promise<Actor> {
  if (!env.SESSION_SECRET) throw unauthorized("Invalid credential");
  try {
    const payload = await verify(token, env.SESSION_SECRET, "HS256");
    if (typeof payload.sub !== "string" || payload.sub === "") throw new Error("no subject");
    return { userId: payload.sub, via: "session", apiKeyId: null };
  } catch {
    throw unauthorized("Invalid or expired session token");
  }
}
