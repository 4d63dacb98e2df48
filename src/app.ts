import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { serverTimingValue } from "./db/round-trips";
import { checkBookmarkHeader, D1_BOOKMARK_HEADER, sessionConstraint, sessionDatabase } from "./db/sessions";
import { type AppEnv, createContext } from "./lib/context";
import { CORS_OPTIONS } from "./lib/cors";
import { connectsFromLoopback } from "./lib/environment";
import { ApiError, ERROR_CODES, type ErrorBody, type ErrorCode } from "./lib/errors";
import { findAllowedMethods } from "./lib/method-not-allowed";
import { OutboundError } from "./lib/outbound";
import { RATE_LIMIT_HEADER, refusedItem, writeQuotaCount } from "./lib/rate-limit-fields";
import { validationHook } from "./openapi/validation";
import { accountsRouter } from "./routes/accounts/accounts.index";
import { aiRouter } from "./routes/ai/ai.index";
import { apiKeysRouter } from "./routes/api-keys/api-keys.index";
import { blocksRouter } from "./routes/blocks/blocks.index";
import { changesRouter } from "./routes/changes/changes.index";
import { commentsRouter } from "./routes/comments/comments.index";
import { databaseViewsRouter } from "./routes/database-views/database-views.index";
import { databasesRouter } from "./routes/databases/databases.index";
import { registerDocumentation } from "./routes/documentation/documentation.index";
import { mediaRouter } from "./routes/media/media.index";
import { mentionsRouter } from "./routes/mentions/mentions.index";
import { notesImportRouter } from "./routes/notes-import/notes-import.index";
import { pagesRouter } from "./routes/pages/pages.index";
import { paymentsRouter } from "./routes/payments/payments.index";
import { pushSubscriptionsRouter } from "./routes/push-subscriptions/push-subscriptions.index";
import { quickTasksRouter } from "./routes/quick-tasks/quick-tasks.index";
import { remindersRouter } from "./routes/reminders/reminders.index";
import { settingsRouter } from "./routes/settings/settings.index";
import { syncedBlocksRouter } from "./routes/synced-blocks/synced-blocks.index";
import { systemRouter } from "./routes/system/system.index";
import { transcriptionRouter } from "./routes/transcription/transcription.index";

type App = OpenAPIHono<AppEnv>;

/**
 * The Worker's app, in the order a request meets it: the middleware every request goes through,
 * the resources' routers, the contract and its explorer, and the one error envelope for every
 * refusal and failure.
 */
export function createApp(): App {
  // Not strict: `/api/v1/blocks/` is `/api/v1/blocks`, as clients that join paths expect.
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
  useMiddleware(app);
  mountRouters(app);
  registerDocumentation(app);
  answerErrors(app);
  return app;
}

/**
 * The request context, CORS, then the bookmark check. Access is not decided here: each route
 * declares its own (see openapi/define-route.ts).
 */
function useMiddleware(app: App): void {
  app.use("*", requestContext);
  app.use("*", cors(CORS_OPTIONS));
  app.use("*", refuseMalformedBookmark);
}

/** A caller's X-Request-Id is echoed when it looks like an id; anything else is replaced. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * The request context (actor, metered D1, bindings, clock, request id), and the headers every
 * response carries: the request id, nosniff, the D1 bookmark and what the request cost.
 */
const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  // All of the request's D1 work goes through one session (db/sessions.ts), from the
  // client's bookmark when it sent one; its latest bookmark goes back in X-D1-Bookmark.
  const session = c.env.DB.withSession(sessionConstraint(c.req.method, c.req.header(D1_BOOKMARK_HEADER)));
  const ctx = createContext({
    env: c.env,
    d1: sessionDatabase(session),
    requestId,
    waitUntil: (promise) => {
      try {
        c.executionCtx.waitUntil(promise);
      } catch {
        // No execution context (an app called directly): let the work run on its own.
        promise.catch(() => undefined);
      }
    },
    signal: c.req.raw.signal,
    // From the connection as the platform reports it, never from the Host header (lib/environment.ts).
    local: connectsFromLoopback(c.req.raw.headers),
  });
  c.set("ctx", ctx);
  await next();
  c.res.headers.set("X-Request-Id", requestId);
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  const bookmark = session.getBookmark();
  if (bookmark) c.res.headers.set(D1_BOOKMARK_HEADER, bookmark);
  c.res.headers.append("Server-Timing", serverTimingValue(ctx.meter));
  const authSource = c.get("authSource");
  if (authSource) c.res.headers.append("Server-Timing", `auth;desc="${authSource}"`);
  // A credential that turned out dead (401) has no quota to report.
  const rateLimit = c.get("rateLimit");
  if (rateLimit && c.res.status !== 401) writeQuotaCount(c.res.headers, rateLimit);
};

/**
 * A malformed bookmark is refused before any route runs (so before any query), after the
 * context and CORS middleware, so its 400 carries their headers like any other error.
 */
const refuseMalformedBookmark: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkBookmarkHeader(c.req.header(D1_BOOKMARK_HEADER));
  await next();
};

/** Every resource's router, mounted at the root (each route carries its full path). */
const ROUTERS = [
  systemRouter,
  accountsRouter,
  apiKeysRouter,
  blocksRouter,
  pagesRouter,
  databasesRouter,
  databaseViewsRouter,
  mentionsRouter,
  commentsRouter,
  paymentsRouter,
  transcriptionRouter,
  notesImportRouter,
  syncedBlocksRouter,
  mediaRouter,
  aiRouter,
  pushSubscriptionsRouter,
  remindersRouter,
  settingsRouter,
  quickTasksRouter,
  changesRouter,
];

function mountRouters(app: App): void {
  for (const router of ROUTERS) app.route("/", router);
}

/** No route for the path is a 404; a path with routes for other methods is a 405 naming them. */
function answerErrors(app: App): void {
  app.notFound((c) => {
    const allowed = findAllowedMethods(app.routes, c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return c.json<ErrorBody>(
        { error: `Method ${c.req.method} not allowed`, code: "method_not_allowed", details: { allowed } },
        405,
      );
    }
    return c.json<ErrorBody>(
      { error: "Route not found", code: "not_found", details: { method: c.req.method, path: c.req.path } },
      404,
    );
  });
  app.onError(answerError);
}

/** Whatever a route throws becomes the error envelope `{error, code, details?}`. */
const answerError: ErrorHandler<AppEnv> = (thrown, c) => {
  // A refusal raised beneath the query builder (auth/key-liveness.ts) arrives wrapped as the
  // failed query's cause.
  const error = thrown.cause instanceof ApiError ? thrown.cause : thrown;
  if (error instanceof ApiError) return answerRefusal(c, error);
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own refusals, such as malformed JSON in a request body.
    const message = error.message || "Invalid request";
    return c.json<ErrorBody>({ error: message, code: codeForHonoStatus(error.status, message) }, error.status);
  }
  return answerFailure(c, error);
};

/** A refusal the code decided on, with the headers its status calls for. */
function answerRefusal(c: Context<AppEnv>, error: ApiError): Response {
  if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="workspace-api"');
  const retryAfter = error.code === "rate_limited" ? error.details?.retry_after_seconds : undefined;
  if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
  const policy = error.code === "rate_limited" ? error.details?.policy : undefined;
  if (typeof retryAfter === "number" && typeof policy === "string") {
    c.header(RATE_LIMIT_HEADER, refusedItem(policy, retryAfter), { append: true });
  }
  return c.json(error.body, error.status);
}

/** The code for a status of Hono's own refusals (malformed JSON, a wrong Content-Type, ...). */
function codeForHonoStatus(status: number, message: string): ErrorCode {
  if (status === 400) return /json/i.test(message) ? "malformed_json" : "validation_failed";
  const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((candidate) => ERROR_CODES[candidate].status === status);
  return code ?? "validation_failed";
}

/** What no code refused: a conflict the database caught, a missing migration, a third party, or a bug. */
function answerFailure(c: Context<AppEnv>, error: Error): Response {
  if (/UNIQUE constraint failed/.test(error.message)) {
    // A uniqueness the database enforces and a check before the write missed (a race, or old data).
    return c.json<ErrorBody>({ error: "Conflicts with an existing record", code: "conflict" }, 409);
  }
  const missingTable = missingTableOf(error);
  if (missingTable) {
    // A feature whose migration has not been applied to this database (`wrangler d1 migrations apply`).
    logError(c, { path: c.req.path, missing_table: missingTable });
    return c.json<ErrorBody>(
      {
        error: "This feature is not available yet: its database migration has not been applied",
        code: "unavailable",
        details: { table: missingTable },
      },
      503,
    );
  }
  if (error instanceof OutboundError) {
    // Its message names the service and what happened, never a URL, key or third-party body.
    logError(c, { path: c.req.path, error: error.message });
    return c.json<ErrorBody>({ error: error.message, code: "upstream_failed" }, 500);
  }
  logError(c, { method: c.req.method, path: c.req.path, error: error.stack ?? error.message });
  return c.json<ErrorBody>({ error: "Internal server error", code: "internal" }, 500);
}

/** The table a D1 error (or the query error wrapping it) says does not exist. */
function missingTableOf(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const table = /no such table: ([\w.]+)/.exec(current.message)?.[1];
    if (table) return table;
  }
  return undefined;
}

/** One JSON line with the request id, for the operator. */
function logError(c: Context<AppEnv>, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level: "error", request_id: c.get("ctx")?.requestId, ...fields }));
}
