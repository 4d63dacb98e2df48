import { and, eq, isNull } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { verify } from "hono/jwt";
import { apiKeys } from "../db/schema";
import type { AppEnv, AuthUser } from "../lib/context";
import { unauthorized } from "../lib/errors";
import { API_KEY_PREFIX, hashApiKey, isApiKeyFormat } from "./api-key-format";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Accepts `Authorization: Bearer sr_...` (an API key, looked up by its SHA-256
 * hash: one D1 round trip) or `Authorization: Bearer <JWT>` (an app session,
 * HS256 with SESSION_SECRET: no D1 round trip). Anything else is a 401.
 */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = BEARER.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!token) throw unauthorized("Missing bearer credential in the Authorization header");
  c.set(
    "user",
    token.startsWith(API_KEY_PREFIX) ? await userFromApiKey(c.var.db, token) : await userFromSession(c.env, token),
  );
  await next();
});

async function userFromApiKey(db: AppEnv["Variables"]["db"], token: string): Promise<AuthUser> {
  if (!isApiKeyFormat(token)) throw unauthorized("Invalid API key");
  const key = await db
    .select({ userId: apiKeys.userId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, await hashApiKey(token)), isNull(apiKeys.revokedAt)))
    .get();
  if (!key) throw unauthorized("Invalid API key");
  return { id: key.userId, via: "api_key" };
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
