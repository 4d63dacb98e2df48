import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { namingTheWriter } from "../db/write-context";
import { type AppEnv, actingAs, type RequestContext, type UserContext, withD1 } from "../lib/context";
import type { QuotaCount } from "../lib/rate-limit-fields";
import { enqueueWebhookDeliveries } from "../lib/webhook-queue";
import { countCredential, credentialRefused } from "./credential-limit";
import { guardLiveness, type Liveness } from "./credential-liveness";
import { authenticate } from "./credentials";
import { noteKeyUsed } from "./key-usage";
import { requireScope, requireSession } from "./policies";
import type { ApiKeyScope } from "./scopes";

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
  Variables: { ctx: UserContext; authSource: string; rateLimit: QuotaCount };
}

function requireActor(kind: "user" | "session", scope: ApiKeyScope): MiddlewareHandler<AuthenticatedAppEnv> {
  return createMiddleware<AuthenticatedAppEnv>(async (c, next) => {
    const base: RequestContext = c.get("ctx");
    const { actor, unconfirmed } = await authenticate(base, c.req.header("Authorization"), (source) =>
      c.set("authSource", source),
    );
    // Counted before any other refusal, so every answer to a credential reports its quota (a 429
    // here is not checked for a revoked key or an ended session: a flood past its limit costs no D1 round trip).
    const limit = await countCredential(c.env, actor, base.now());
    if (limit) {
      c.set("rateLimit", limit);
      if (!limit.admitted) throw credentialRefused(limit);
    }
    // Every write batch names the actor to the change-log triggers (db/write-context.ts); a session
    // or a remembered key: the request's first D1 call proves it is still live (auth/credential-liveness.ts).
    let liveness: Liveness | undefined;
    const ctx = withD1(base, (d1) => {
      const named = namingTheWriter(d1, {
        actorId: actor.userId,
        requestId: base.requestId,
        now: base.now,
        // After the answer: the batch already marked them enqueued, and the Cron Trigger sends what this does not.
        onDeliveries: (ids) => base.waitUntil(enqueueWebhookDeliveries(base.env, base, ids)),
      });
      if (!unconfirmed) return named;
      const guarded = guardLiveness(named, unconfirmed);
      liveness = guarded.liveness;
      return guarded.d1;
    });
    const confirmCaller = async () => {
      if (liveness && !liveness.confirmed && !liveness.refused) await liveness.confirm();
      if (liveness?.refused) throw liveness.refusal();
    };
    const userCtx = { ...actingAs(ctx, actor), confirmCaller };
    try {
      if (kind === "session") requireSession(actor);
      requireScope(actor, scope);
    } catch (refusal) {
      // A dead key (or session) is a 401, not a 403 that would describe it.
      await confirmCaller();
      throw refusal;
    }
    c.set("ctx", userCtx);
    await next();
    // A request that made no D1 call (or failed before its first) checks the credential on its own,
    // and a refusal the work swallowed still answers 401.
    await confirmCaller();
    if (actor.apiKeyId !== null) noteKeyUsed(userCtx, actor.apiKeyId);
  });
}

const passThrough: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next();
};

/** The middleware that enforces an access kind, for a route that needs `scope` of an API key. */
export function accessMiddleware(access: Access, scope: ApiKeyScope): MiddlewareHandler {
  if (access === "user" || access === "session") return requireActor(access, scope) as MiddlewareHandler;
  return passThrough as MiddlewareHandler;
}
