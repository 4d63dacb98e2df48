import { OpenAPIHono } from "@hono/zod-openapi";
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
import { aiRouter } from "./routes/ai/ai.index";
import { apiKeysRouter } from "./routes/api-keys/api-keys.index";
import { authRouter } from "./routes/auth/auth.index";
import { backlinksRouter } from "./routes/backlinks/backlinks.index";
import { blocksRouter } from "./routes/blocks/blocks.index";
import { commentsRouter } from "./routes/comments/comments.index";
import { databaseViewsRouter } from "./routes/database-views/database-views.index";
import { databasesRouter } from "./routes/databases/databases.index";
import { registerDocumentation } from "./routes/documentation/documentation.index";
import { meRouter } from "./routes/me/me.index";
import { mediaRouter } from "./routes/media/media.index";
import { mentionsRouter } from "./routes/mentions/mentions.index";
import { notesImportRouter } from "./routes/notes-import/notes-import.index";
import { notificationsRouter } from "./routes/notifications/notifications.index";
import { pagesRouter } from "./routes/pages/pages.index";
import { paymentsRouter } from "./routes/payments/payments.index";
import { pushSubscriptionsRouter } from "./routes/push-subscriptions/push-subscriptions.index";
import { remindersRouter } from "./routes/reminders/reminders.index";
import { settingsRouter } from "./routes/settings/settings.index";
import { syncedBlocksRouter } from "./routes/synced-blocks/synced-blocks.index";
import { systemRouter } from "./routes/system/system.index";
import { tasksRouter } from "./routes/tasks/tasks.index";
import { transcriptionRouter } from "./routes/transcription/transcription.index";

/** The table a D1 error (or the query error wrapping it) says does not exist. */
function missingTableOf(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const table = /no such table: ([\w.]+)/.exec(current.message)?.[1];
    if (table) return table;
  }
  return undefined;
}

/** A caller's X-Request-Id is echoed when it looks like an id; anything else is replaced. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The code for a status of Hono's own refusals (malformed JSON, a wrong Content-Type, ...). */
function codeForHonoStatus(status: number, message: string): ErrorCode {
  if (status === 400) return /json/i.test(message) ? "malformed_json" : "validation_failed";
  const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((candidate) => ERROR_CODES[candidate].status === status);
  return code ?? "validation_failed";
}

export function createApp() {
  // Not strict: `/api/v1/blocks/` is `/api/v1/blocks`, as clients that join paths expect.
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

  // The request context (actor, metered D1, bindings, clock, request id) and the
  // headers every response carries. Access is not decided here: each route
  // declares its own (see openapi/define-route.ts).
  app.use("*", async (c, next) => {
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
  });
  app.use("*", cors(CORS_OPTIONS));
  // A malformed bookmark is refused before any route runs (so before any query), after the
  // context and CORS middleware, so its 400 carries their headers like any other error.
  app.use("*", async (c, next) => {
    checkBookmarkHeader(c.req.header(D1_BOOKMARK_HEADER));
    await next();
  });

  app.route("/", systemRouter);
  app.route("/", authRouter);
  app.route("/", apiKeysRouter);
  app.route("/", blocksRouter);
  app.route("/", pagesRouter);
  app.route("/", databasesRouter);
  app.route("/", databaseViewsRouter);
  app.route("/", mentionsRouter);
  app.route("/", backlinksRouter);
  app.route("/", commentsRouter);
  app.route("/", paymentsRouter);
  app.route("/", transcriptionRouter);
  app.route("/", notesImportRouter);
  app.route("/", meRouter);
  app.route("/", syncedBlocksRouter);
  app.route("/", mediaRouter);
  app.route("/", aiRouter);
  app.route("/", pushSubscriptionsRouter);
  app.route("/", remindersRouter);
  app.route("/", notificationsRouter);
  app.route("/", settingsRouter);
  app.route("/", tasksRouter);
  registerDocumentation(app);

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

  app.onError((thrown, c) => {
    // A refusal raised beneath the query builder (auth/key-liveness.ts) arrives wrapped as the
    // failed query's cause.
    const error = thrown.cause instanceof ApiError ? thrown.cause : thrown;
    if (error instanceof ApiError) {
      if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="workspace-api"');
      const retryAfter = error.code === "rate_limited" ? error.details?.retry_after_seconds : undefined;
      if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
      const policy = error.code === "rate_limited" ? error.details?.policy : undefined;
      if (typeof retryAfter === "number" && typeof policy === "string") {
        c.header(RATE_LIMIT_HEADER, refusedItem(policy, retryAfter), { append: true });
      }
      return c.json(error.body, error.status);
    }
    if (error instanceof HTTPException && error.status < 500) {
      // Hono's own refusals, such as malformed JSON in a request body.
      const message = error.message || "Invalid request";
      return c.json<ErrorBody>({ error: message, code: codeForHonoStatus(error.status, message) }, error.status);
    }
    const requestId = c.get("ctx")?.requestId;
    if (error instanceof Error && /UNIQUE constraint failed/.test(error.message)) {
      // A uniqueness the database enforces and a check before the write missed (a race, or old data).
      return c.json<ErrorBody>({ error: "Conflicts with an existing record", code: "conflict" }, 409);
    }
    const missingTable = missingTableOf(error);
    if (missingTable) {
      // A feature whose migration has not been applied to this database (`wrangler d1 migrations apply`).
      console.error(
        JSON.stringify({ level: "error", request_id: requestId, path: c.req.path, missing_table: missingTable }),
      );
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
      console.error(JSON.stringify({ level: "error", request_id: requestId, path: c.req.path, error: error.message }));
      return c.json<ErrorBody>({ error: error.message, code: "upstream_failed" }, 500);
    }
    console.error(
      JSON.stringify({
        level: "error",
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
    );
    return c.json<ErrorBody>({ error: "Internal server error", code: "internal" }, 500);
  });

  return app;
}
