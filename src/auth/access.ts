import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { type AppEnv, actingAs, type UserContext } from "../lib/context";
import { authenticate } from "./credentials";
import { requireSession } from "./policies";

/**
 * Who may call a route, declared with the route itself (see openapi/define-route.ts):
 * - `open`: anyone, no credential;
 * - `user`: an API key or an app session (`Authorization: Bearer ...`);
 * - `session`: an app session only (API-key management): an API key gets a 403;
 * - `signed`: anyone, but the handler verifies a signature over the request
 *   (a payment provider's webhook) before acting on it.
 */
export const ACCESS_KINDS = ["open", "user", "session", "signed"] as const;
export type Access = (typeof ACCESS_KINDS)[number];

/** The contract's `security` for each access kind; open and signed routes declare none (`[]`). */
export const SECURITY: Record<Access, Record<string, string[]>[]> = {
  open: [],
  signed: [],
  user: [{ apiKeyAuth: [] }, { bearerAuth: [] }],
  session: [{ bearerAuth: [] }],
};

/** The Hono environment an authenticating middleware gives the handlers after it. */
export interface AuthenticatedAppEnv {
  Bindings: Env;
  Variables: { ctx: UserContext; authSource: string };
}

function requireActor(kind: "user" | "session"): MiddlewareHandler<AuthenticatedAppEnv> {
  return createMiddleware<AuthenticatedAppEnv>(async (c, next) => {
    const actor = await authenticate(c.var.ctx, c.req.header("Authorization"), (source) => c.set("authSource", source));
    if (kind === "session") requireSession(actor);
    c.set("ctx", actingAs(c.var.ctx, actor));
    await next();
  });
}

const passThrough: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next();
};

/** The middleware that enforces each access kind. */
export const ACCESS_MIDDLEWARE = {
  open: passThrough,
  signed: passThrough,
  user: requireActor("user"),
  session: requireActor("session"),
} as const;
