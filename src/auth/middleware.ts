import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { verify } from "hono/jwt";
import { apiKeys } from "../db/schema";
import type { AppEnv, AuthUser } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { cachedKeyOwner, rememberKeyOwner } from "./api-key-cache";
import { API_KEY_PREFIX, hashApiKey, isApiKeyFormat } from "./api-key-format";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Accepts `Authorization: Bearer sr_...` (an API key, looked up by its SHA-256
 * hash: one D1 round trip, or none when this isolate remembers it) or
 * `Authorization: Bearer <JWT>` (an app session, HS256 with SESSION_SECRET: no
 * D1 round trip). Anything else is a 401.
 */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = BEARER.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token) throw unauthorized("Missing bearer credential in the Authorization header");
  if (token.startsWith(API_KEY_PREFIX)) {
    c.set("user", await userFromApiKey(c, token));
  } else {
    c.set("user", await userFromSession(c.env, token));
    c.set("authSource", "session token");
  }
  await next();
});

async function userFromApiKey(c: Context<AppEnv>, token: string): Promise<AuthUser> {
  if (!isApiKeyFormat(token)) throw unauthorized("Invalid API key");
  const keyHash = await hashApiKey(token);
  let userId = cachedKeyOwner(keyHash);
  if (userId === undefined) {
    const key = await c.var.db
      .select({ userId: apiKeys.userId })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
      .get();
    userId = key?.userId ?? null;
    rememberKeyOwner(keyHash, userId);
    c.set("authSource", "api key from D1");
  } else {
    c.set("authSource", "api key from cache");
  }
  if (userId === null) throw unauthorized("Invalid API key");
  return { id: userId, via: "api_key" };
}

async function userFromSession(env: Env, token: string): Promise<AuthUser> {
  if (!env.SESSION_SECRET) throw unauthorized("Invalid credential");
  try {
    const payload = await verify(token, env.SESSION_SECRET, "HS256");
    if (typeof payload.sub !== "string" || payload.sub === "") throw new Error("no subject");
    return { id: payload.sub, via: "session" };
  } catch {
    throw unauthorized("Invalid or expired session token");
  }
}
