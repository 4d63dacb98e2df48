import { ALL_SCOPES, type ApiKeyScope } from "../auth/scopes";
import { createDatabase, type Database } from "../db/client";
import { meterD1, type RoundTripMeter } from "../db/round-trips";
import type { QuotaCount } from "./rate-limit-fields";

/** How an actor proved who they are; `system` is work started by the service itself (Cron, alarms). */
export type AuthMethod = "api_key" | "session" | "system";

/** Who a piece of work acts for. */
export interface Actor {
  userId: string;
  via: AuthMethod;
  /** The API key's id when `via` is `api_key`, else null. */
  apiKeyId: string | null;
  /** What the credential may do: an API key's scopes; sessions and the service itself may do all. */
  scopes: readonly ApiKeyScope[];
}

/**
 * Everything a service needs to do its work, built once per request by the
 * platform middleware, or by a Cron handler, Durable Object or queue consumer
 * with `backgroundContext`. Services take this instead of loose (db, userId) pairs.
 */
export interface RequestContext {
  /** Null on open routes and before authentication. */
  actor: Actor | null;
  /** D1, metered: every round trip is counted for `Server-Timing`. */
  db: Database;
  /**
   * The D1 handle under `db`, unmetered: a request's D1 session (db/sessions.ts: reads from
   * the nearest replica that has what the client saw), or the binding itself for background
   * work. Services query through `db`; wrappers of the handle (`withD1`) build on this.
   */
  d1: D1Database;
  meter: RoundTripMeter;
  env: Env;
  /** Work that may finish after the response (never needed for correctness). */
  waitUntil(promise: Promise<unknown>): void;
  /** The clock; services read time here so a test or a replayed job can fix it. */
  now(): Date;
  /** Echoed in `X-Request-Id` and in every log line about this work. */
  requestId: string;
  /** Aborts when the client goes away (never, for background work): outbound calls follow it. */
  signal: AbortSignal;
  /**
   * Resolves once the caller's credential is known to be live (an app session or a
   * remembered API key is otherwise checked by the request's first D1 call:
   * auth/credential-liveness.ts); a 401 if it
   * is not. Work with effects outside D1 (third parties, R2, Durable Objects) awaits it
   * first; the outbound helper does so itself.
   */
  confirmCaller(): Promise<void>;
  /**
   * Whether the request's connection comes from this machine (`wrangler dev`), as the platform
   * reports it (`connectsFromLoopback` in lib/environment.ts); never decided from the Host header.
   * Asked, not precomputed: few requests need it, and reading the connection costs each one.
   */
  local(): boolean;
}

/** A context acting for an authenticated user: what user-facing services take. */
export interface UserContext extends RequestContext {
  actor: Actor;
}

/** Hono environment of every route: bindings plus the request context on `c.get("ctx")`. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    ctx: RequestContext;
    /** How the caller was authenticated, for the Server-Timing header. */
    authSource: string;
    /** The credential's count against its quota, for the RateLimit fields (auth/credential-limit.ts). */
    rateLimit: QuotaCount;
    /** Set when the request's Origin may not call what it asks (mcp/origins.ts): its answer grants no CORS. */
    originRefused?: boolean;
  };
}

export interface ContextInput {
  env: Env;
  /** What the context's queries go through: by default the binding (`env.DB`); a request passes its session. */
  d1?: D1Database;
  actor?: Actor | null;
  requestId?: string;
  waitUntil?: (promise: Promise<unknown>) => void;
  signal?: AbortSignal;
  now?: () => Date;
  local?: () => boolean;
}

/** Builds a context; without a request it is background work: no client to abort, its own request id. */
export function createContext(input: ContextInput): RequestContext {
  const meter: RoundTripMeter = { count: 0, milliseconds: 0 };
  const d1 = input.d1 ?? input.env.DB;
  return {
    actor: input.actor ?? null,
    db: createDatabase(meterD1(d1, meter)),
    d1,
    meter,
    env: input.env,
    waitUntil: input.waitUntil ?? ((promise) => void promise.catch(() => undefined)),
    now: input.now ?? (() => new Date()),
    requestId: input.requestId ?? crypto.randomUUID(),
    signal: input.signal ?? new AbortController().signal,
    confirmCaller: async () => undefined,
    local: input.local ?? (() => false),
  };
}

/**
 * The context of work with no request: a Cron Trigger, a Durable Object alarm,
 * a queue consumer. It has its own request id for its log lines, and no client
 * to abort it. It counts as local work under the development configuration:
 * background work only acts on records requests made, and what only local work
 * may make (a push subscription to the development VAPID key, an http loopback
 * endpoint) was refused to every request whose connection did not come from this machine.
 */
export function backgroundContext(
  env: Env,
  execution: { waitUntil(promise: Promise<unknown>): void },
  options: { requestId?: string; now?: () => Date } = {},
): RequestContext {
  return createContext({
    env,
    waitUntil: (promise) => execution.waitUntil(promise),
    requestId: options.requestId,
    now: options.now,
    local: () => env.ENVIRONMENT === "development" || env.ENVIRONMENT === "test",
  });
}

/** Background work acting for one user, under the same visibility rules as that user's own requests. */
export const backgroundUserContext = (
  env: Env,
  execution: { waitUntil(promise: Promise<unknown>): void },
  userId: string,
  options: { requestId?: string; now?: () => Date } = {},
): UserContext =>
  actingAs(backgroundContext(env, execution, options), {
    userId,
    via: "system",
    apiKeyId: null,
    scopes: ALL_SCOPES,
  });

/**
 * The same context with its D1 handle (the request's session, or the binding) wrapped, under
 * the round-trip meter's count: how a request's queries get a condition of the caller's
 * credential (auth/credential-liveness.ts).
 */
export const withD1 = (ctx: RequestContext, wrap: (d1: D1Database) => D1Database): RequestContext => ({
  ...ctx,
  db: createDatabase(wrap(meterD1(ctx.d1, ctx.meter))),
});

/** The same work acting for `actor`. */
export const actingAs = (ctx: RequestContext, actor: Actor): UserContext => ({ ...ctx, actor });
