import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { bearerChallenge, insufficientScopeChallenge } from "./auth/authorization-header";
import { serverTimingValue } from "./db/round-trips";
import { checkBookmarkHeader, D1_BOOKMARK_HEADER, sessionConstraint, sessionDatabase } from "./db/sessions";
import { type AppEnv, createContext, type RequestContext } from "./lib/context";
import { CORS_ANSWER_HEADERS, CORS_OPTIONS } from "./lib/cors";
import { connectsFromLoopback } from "./lib/environment";
import { type ApiError, codeForStatus, type ErrorBody, type Refusal } from "./lib/errors";
import { failureAnswer, logFailure, refusalIn } from "./lib/failures";
import { log } from "./lib/log";
import { findAllowedMethods } from "./lib/method-not-allowed";
import { RATE_LIMIT_HEADER, refusedItem, writeQuotaCount } from "./lib/rate-limit-fields";
import { MCP_PATH, refuseForeignOrigin } from "./mcp/origins";
import { validationHook } from "./openapi/validation";

export type App = OpenAPIHono<AppEnv>;

export interface AppOptions {
  /**
   * Registers the API explorer (routes/documentation/explorer.ts). Given by the development entry
   * only, so a production build does not bundle the explorer's assets.
   */
  registerExplorer?: (app: App) => void;
}

/**
 * An app in the order a request meets it: the middleware every request goes through, the given
 * routers, what `register` adds (the contract and its explorer in the full app), and the one error
 * envelope for every refusal and failure. The full app is app.ts's; lazy-app.ts assembles one per
 * path prefix from the routers serving it.
 */
export function assembleApp(routers: readonly App[], register?: (app: App) => void): App {
  // Not strict: `/api/v1/blocks/` is `/api/v1/blocks`, as clients that join paths expect.
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
  useMiddleware(app);
  // Each route carries its full path: every router is mounted at the root.
  for (const router of routers) app.route("/", router);
  register?.(app);
  answerErrors(app);
  return app;
}

/**
 * The request context, the MCP server's Origin check, CORS, then the bookmark check. Access is not
 * decided here: each route declares its own (see openapi/define-route.ts). The Origin check is here,
 * before CORS, as a preflight never reaches a route.
 */
function useMiddleware(app: App): void {
  app.use("*", requestContext);
  app.use(MCP_PATH, refuseForeignOrigin);
  app.use("*", answerPreflight);
  app.use("*", refuseMalformedBookmark);
}

const preflight = cors(CORS_OPTIONS);

/**
 * A CORS preflight is answered by Hono's middleware, here and for every path; the headers of every
 * other answer to a request with an `Origin` are set by `requestContext` once the answer is made.
 * Hono's middleware would set them before the route runs, on a placeholder response Hono then copies
 * into the route's own, headers and all: three responses made for each one sent, for two headers
 * that never vary.
 */
const answerPreflight: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") return preflight(c, next);
  await next();
};

/** `answer` asked once, when first needed. */
function once<T>(answer: () => T): () => T {
  let answered: { value: T } | undefined;
  return () => {
    answered ??= { value: answer() };
    return answered.value;
  };
}

/** A caller's X-Request-Id is echoed when it looks like an id; anything else is replaced. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * The request context (actor, metered D1, bindings, clock, request id), and the headers every
 * response carries: the request id, nosniff, CORS (to a request with an Origin), the D1 bookmark and
 * what the request cost.
 */
const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
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
    local: once(() => connectsFromLoopback(c.req.raw.headers)),
  });
  c.set("ctx", ctx);
  await next();
  const headers = answerHeaders(c);
  headers.set("X-Request-Id", requestId);
  // CORS headers answer a browser's cross-origin request, which always carries Origin: a client
  // that sends none (curl, an SDK, an agent) is spared their 380 bytes. The answer then differs by
  // Origin, which `Vary` tells caches (Fetch standard, "CORS protocol and HTTP caches").
  if (c.req.header("Origin") !== undefined && !c.get("originRefused"))
    for (const [name, value] of CORS_ANSWER_HEADERS) headers.set(name, value);
  headers.append("Vary", "Origin");
  const bookmark = session.getBookmark();
  if (bookmark) headers.set(D1_BOOKMARK_HEADER, bookmark);
  // One field line for both metrics (a list, RFC 9110 §5.3): what readers see is the same.
  const authSource = c.get("authSource");
  const timing = serverTimingValue(ctx.meter);
  headers.append("Server-Timing", authSource ? `${timing}, auth;desc="${authSource}"` : timing);
  // A credential that turned out dead (401) has no quota to report.
  const rateLimit = c.get("rateLimit");
  if (rateLimit && c.res.status !== 401) writeQuotaCount(headers, rateLimit);
  // The route's access middleware replaces the context with one that knows the caller.
  if (c.env.REQUEST_LOG !== "off") logRequest(c, c.get("ctx") ?? ctx, Date.now() - started);
};

/**
 * The headers of the request's answer, to add to, with nosniff set. An answer made as a response
 * from elsewhere (a `fetch`'s) has immutable headers, which the first header set finds out: it is
 * answered through a copy of itself.
 */
function answerHeaders(c: Context<AppEnv>): Headers {
  try {
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  }
  return c.res.headers;
}

/**
 * The one line each request leaves (Workers Logs): what was asked (method and route template,
 * never the path's ids or the query), how it ended, how long it took (to the response's headers:
 * a stream's body may run on), its D1 round trips and the kind of credential. Never a key, a body
 * or an email.
 */
function logRequest(c: Context<AppEnv>, ctx: RequestContext, durationMs: number): void {
  const status = c.res.status;
  log(ctx, status >= 500 ? "error" : "info", "request", {
    method: c.req.method,
    route: routePath(c, -1),
    status,
    duration_ms: durationMs,
    d1_round_trips: ctx.meter.count,
    credential: ctx.actor ? ctx.actor.via : null,
  });
}

/**
 * A malformed bookmark is refused before any route runs (so before any query), after the
 * context and CORS middleware, so its 400 carries their headers like any other error.
 */
const refuseMalformedBookmark: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkBookmarkHeader(c.req.header(D1_BOOKMARK_HEADER));
  await next();
};

/** No route for the path is a 404; a path with routes for other methods is a 405 naming them. */
function answerErrors(app: App): void {
  app.notFound((c) => {
    const allowed = findAllowedMethods(app.routes, c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return answerBody(
        c,
        { error: `Method ${c.req.method} not allowed`, code: "method_not_allowed", details: { allowed } },
        405,
      );
    }
    return answerBody(
      c,
      { error: "Route not found", code: "not_found", details: { method: c.req.method, path: c.req.path } },
      404,
    );
  });
  app.onError(answerError);
}

/** The error envelope `{error, code, details?, request_id}`: every refusal and failure is answered by it. */
function answerBody(c: Context<AppEnv>, refusal: Refusal, status: ContentfulStatusCode): Response {
  return c.json<ErrorBody>({ ...refusal, request_id: c.get("ctx")?.requestId ?? "" }, status);
}

/** Whatever a route throws becomes the error envelope. */
const answerError: ErrorHandler<AppEnv> = (thrown, c) => {
  const refusal = refusalIn(thrown);
  if (refusal) return answerRefusal(c, refusal);
  if (thrown instanceof HTTPException && thrown.status < 500) {
    // Hono's own refusals, such as malformed JSON in a request body.
    const { status } = thrown;
    const message = thrown.message || "Invalid request";
    const refusal: Refusal = { error: message, code: codeForStatus(status, message) };
    if (message !== MALFORMED_JSON) return answerBody(c, refusal, status);
    return whyNotJson(c).then((reason) =>
      answerBody(c, reason ? { ...refusal, details: { reason } } : refusal, status),
    );
  }
  const failure = failureAnswer(thrown);
  if (failure.log) logFailure(c.get("ctx"), { method: c.req.method, path: c.req.path, ...failure.log });
  return answerBody(c, failure.body, failure.status);
};

/** What Hono's validator says of a JSON body it could not parse. */
const MALFORMED_JSON = "Malformed JSON in request body";

/**
 * Why a JSON body did not parse, in the parser's words (`Expected ',' or '}' after property value
 * in JSON at position 15 (line 1 column 16)`), so a caller can find the mistake. The body's text is
 * in Hono's cache: only a refused body is parsed a second time.
 */
async function whyNotJson(c: Context<AppEnv>): Promise<string | undefined> {
  try {
    JSON.parse(await c.req.text());
    return undefined;
  } catch (error) {
    return error instanceof SyntaxError ? error.message.slice(0, 200) : undefined;
  }
}

/** A refusal the code decided on, with the headers its status calls for. */
function answerRefusal(c: Context<AppEnv>, error: ApiError): Response {
  if (error.status === 401) c.header("WWW-Authenticate", bearerChallenge(c.req.header("Authorization")));
  const requiredScope = error.status === 403 ? error.details?.required_scope : undefined;
  if (typeof requiredScope === "string") {
    // RFC 6750 §3: a token that does not enable access carries the challenge, naming the scope it lacks.
    c.header("WWW-Authenticate", insufficientScopeChallenge(requiredScope));
  }
  const retryAfter = error.code === "rate_limited" ? error.details?.retry_after_seconds : undefined;
  if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
  const policy = error.code === "rate_limited" ? error.details?.policy : undefined;
  if (typeof retryAfter === "number" && typeof policy === "string") {
    c.header(RATE_LIMIT_HEADER, refusedItem(policy, retryAfter), { append: true });
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return answerBody(c, error.body, error.status);
}
