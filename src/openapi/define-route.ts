import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type Access, type AuthenticatedAppEnv, accessMiddleware, SECURITY } from "../auth/access";
import { insufficientScopeChallenge } from "../auth/authorization-header";
import { type ApiKeyScope, scopeForMethod } from "../auth/scopes";
import type { AppEnv } from "../lib/context";
import { ErrorSchema, payloadTooLarge, type Refusal, tooManyRequests } from "../lib/errors";
import { POLICY_NAMES } from "../lib/rate-limit-fields";
import { ACCEPT_PATCH_HEADER, checkedBodyMediaTypes, isJsonMediaType, refuseUnreadMediaType } from "./body-media-type";
import {
  declareEntityTags,
  declareNoEntityTag,
  declareNoEntityTagOnRead,
  type EntityTagRole,
  noEntityTagOnRead,
  noEntityTagToMatch,
} from "./entity-tags";
import { EVERY_REQUEST_HEADERS, EVERY_RESPONSE_HEADERS, QUOTA_HEADERS, REFUSAL_HEADERS } from "./headers";
import { idempotencyKeyHeader, idempotencyKeys, withIdempotencyResponses } from "./idempotency";
import { checkedLocation, locationHeader, locationOfCreated } from "./location";
import { signedBodyHook, validationHook } from "./validation";

/** Request bodies above this are refused with 413 unless a route sets its own `bodyLimit`. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** An error response of the contract; `example`, when given, is a body it may carry. */
export const errorResponse = (description: string, example?: Refusal) => ({
  description,
  content: {
    "application/json": {
      schema: ErrorSchema,
      ...(example ? { example: { ...example, request_id: ERROR_EXAMPLE_REQUEST_ID } } : {}),
    },
  },
});

const ERROR_EXAMPLE_REQUEST_ID = "0d4c2c6e-6f1a-4b7e-9c3d-2a5b8e1f4c70";

/**
 * A 429 with its `Retry-After` and RateLimit item, for a route that refuses beyond a limit of its own
 * (a `rateLimit` declares it itself, and every authenticated route has one for its credential's quota).
 */
export const rateLimitedResponse = (description: string) => ({
  ...errorResponse(description),
  headers: REFUSAL_HEADERS,
});

/** Error responses a route can declare besides the ones its access kind and shape already give it. */
export const ERROR_RESPONSES = {
  403: errorResponse(
    "Refused (`code` forbidden): the caller may see this but not do this, or the API key lacks the scope this operation needs",
  ),
  404: errorResponse("Something the request names is not found, or not visible to the caller (`code` not_found)"),
  409: errorResponse("Conflicts with the current state: a taken id or name, or a concurrent change (`code` conflict)"),
} as const;

/** Bindings of the Workers Rate Limiting API (`[[ratelimits]]` in wrangler.toml). */
type RateLimitBinding = { [K in keyof Env]: Env[K] extends RateLimit ? K : never }[keyof Env];

export interface RateLimitSpec {
  /** The binding that counts; its limit and period are set in wrangler.toml. */
  binding: RateLimitBinding;
  /** Whose requests count together: the client's address, or the authenticated user. */
  per: "client" | "user";
  /** Sent as `Retry-After` with a 429: the binding's period, in seconds. */
  retryAfterSeconds: number;
  /**
   * The counter's name. By default each route counts on its own (`post /api/v1/...`); the same work
   * reached another way (the MCP tool that mirrors a route) names one counter for both, so that the
   * other way is no second allowance.
   */
  counter?: string;
}

type RouteSpec = Omit<RouteConfig, "security" | "middleware" | "description"> & {
  /** Who may call it: sets the contract's `security`, its error responses and the enforcing middleware. */
  access: Access;
  /**
   * The API-key scope it needs (`user` and `session` routes): by default `read` for
   * GET and HEAD and `write` for the rest; a POST that only reads declares `read`.
   */
  scope?: ApiKeyScope;
  /** Every operation explains itself in the contract. */
  description: string;
  /** Largest accepted request body, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Requests beyond a rate are refused with 429 before any work (open routes that cost money). */
  rateLimit?: RateLimitSpec;
  /**
   * Where the resource a 201 created is read (RFC 9110 §15.3.2, §10.2.2), sent as `Location`: an
   * absolute path whose `{field}` is the 201 answer's field (`{task.id}` one inside it) and
   * `{path.name}` the request's path parameter. Required of a route that answers 201, and only of one.
   */
  location?: string;
  /**
   * The success response carries a credential (a new API key, a webhook's signing secret, a session
   * token): an `Idempotency-Key` retry never gets it again, as it is never stored (see
   * openapi/idempotency.ts), and every answer is sent with `Cache-Control: no-store` (RFC 9111
   * §5.2.2.5), so no cache keeps it either.
   */
  secretResponse?: true;
  /**
   * The success response carries a capability that outlives it (a signed media link): sent with
   * `Cache-Control: no-store` like a secret, but kept for an `Idempotency-Key` retry, which is the
   * same caller asking again. `secretResponse` implies it.
   */
  noStore?: true;
  /**
   * Validators and preconditions of a single resource (RFC 9110): declares ETag, If-Match, If-None-Match, 304, 412.
   * A write without it (or a `create`) has no tag to match: a listed `If-Match` is a 412 before it runs.
   */
  entityTag?: EntityTagRole;
  /**
   * `false`: this write takes no `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header), for a
   * protocol that carries its own request ids and retry rules in the body: JSON-RPC over MCP
   * (routes/mcp), whose one POST path carries reads and writes alike; and `/auth/sign-out`, whose
   * retry could never be replayed (the session sending it has ended). Every other write of a user
   * takes one.
   */
  idempotencyKey?: false;
};

type AccessEnv<A extends Access> = A extends "user" | "session" ? AuthenticatedAppEnv : AppEnv;

/**
 * A route as `openapi()` takes it. Its `middleware` is typed as the access
 * middleware alone (a one-element tuple is what carries the environment it
 * gives handlers, `c.get("ctx")` as a UserContext for `user` and `session`);
 * at run time the body limit follows it.
 */
export type DefinedRoute<R extends RouteSpec> = Omit<
  R,
  | "access"
  | "bodyLimit"
  | "rateLimit"
  | "scope"
  | "location"
  | "secretResponse"
  | "noStore"
  | "entityTag"
  | "idempotencyKey"
> & {
  security: Record<string, string[]>[];
  middleware: [MiddlewareHandler<AccessEnv<R["access"]>>];
};

const routeScope = (spec: RouteSpec): ApiKeyScope => spec.scope ?? scopeForMethod(spec.method);
const hasBody = (spec: RouteSpec) => spec.request?.body !== undefined;
/** A body the caller may leave out (OpenAPI's `required` is false unless said). */
const hasOptionalBody = (spec: RouteSpec) => hasBody(spec) && spec.request?.body?.required !== true;
const hasInput = (spec: RouteSpec) =>
  hasBody(spec) || spec.request?.params !== undefined || spec.request?.query !== undefined;
/**
 * A write of a user (POST, PUT, PATCH, DELETE of `user` and `session` routes) takes an `Idempotency-Key`,
 * unless it opts out (`idempotencyKey: false`).
 */
const takesIdempotencyKey = (spec: RouteSpec) =>
  spec.idempotencyKey !== false &&
  (spec.access === "user" || spec.access === "session") &&
  ["post", "put", "patch", "delete"].includes(spec.method);

const isAuthenticated = (spec: RouteSpec) => spec.access === "user" || spec.access === "session";

/** A GET whose answer carries no entity tag: it still answers If-Match and If-None-Match (openapi/entity-tags.ts). */
const readsWithoutEntityTag = (spec: RouteSpec) => spec.method === "get" && spec.entityTag === undefined;

/**
 * A write of a user to something with no entity tag: no `entityTag`, or a creation (its target is
 * the collection it adds to). `If-Match` naming tags can never hold there (openapi/entity-tags.ts).
 */
const writesWithoutEntityTag = (spec: RouteSpec) =>
  takesIdempotencyKey(spec) && (spec.entityTag === undefined || spec.entityTag === "create");

/** Which limits a route's 429 comes from: its credential's quota, its own limit, or both. */
function refusalDescription(spec: RouteSpec): string {
  const limits = [
    ...(isAuthenticated(spec)
      ? [`past the credential's quota (\`details.policy\` \`${POLICY_NAMES.credential}\`)`]
      : []),
    ...(spec.rateLimit
      ? [
          `past this operation's own limit, per ${spec.rateLimit.per === "user" ? "user" : "client address"} (\`${POLICY_NAMES.operation}\`)`,
        ]
      : []),
  ];
  return `Too many requests (\`code\` rate_limited): ${limits.join(", or ")}`;
}

/**
 * What no JSON body may hold (lib/reserved-keys.ts, lib/lone-surrogates.ts), said where a route takes
 * a body that is not a third party's signed one.
 */
const RESERVED_KEY_NOTE =
  "; a JSON body may not use the object key `__proto__`, nor hold a lone UTF-16 surrogate in a string or key, at any depth";

/** A 401's challenge (RFC 9110 §11.6.1), for a bearer token (RFC 6750 §3). */
const CHALLENGE_HEADER = {
  "WWW-Authenticate": {
    schema: { type: "string" as const, example: 'Bearer realm="workspace-api"' },
    description: "The credential to send: `Authorization: Bearer <API key or app-session token>`",
  },
};

/** A 403's challenge when the key lacks the operation's scope (RFC 6750 §3.1); absent for other 403s. */
const scopeChallengeHeader = (scope: string) => ({
  "WWW-Authenticate": {
    schema: { type: "string" as const, example: insufficientScopeChallenge(scope) },
    description: "Sent when the API key lacks the scope the operation needs, naming it",
  },
});

/** The error responses that follow from a route's access kind and shape. */
function standardErrors(spec: RouteSpec) {
  const authenticated = isAuthenticated(spec);
  return {
    // Every request may carry a malformed X-D1-Bookmark (refused before any route runs, app.ts).
    400: errorResponse(
      hasInput(spec) || spec.access === "signed"
        ? `Invalid request: \`details\` names each problem (\`code\` validation_failed)${hasBody(spec) && spec.access !== "signed" ? RESERVED_KEY_NOTE : ""}`
        : "A malformed `X-D1-Bookmark` request header (`code` validation_failed, `details.header`)",
    ),
    ...(authenticated
      ? {
          401: {
            ...errorResponse(
              'Missing, malformed, unknown, revoked or expired credential, or an app session ended by a sign-out or whose user no longer exists (`code` unauthorized); sent with `WWW-Authenticate: Bearer realm="workspace-api"`, adding `error="invalid_token"` when a credential was read and refused, `error="invalid_request"` for a Bearer header holding more than a token, and no error code with no credential or another scheme (RFC 6750 §3.1)',
            ),
            headers: CHALLENGE_HEADER,
          },
        }
      : {}),
    ...(spec.access === "session" ? { 403: errorResponse("Called with an API key: this needs an app session") } : {}),
    ...(spec.access === "user"
      ? {
          403: {
            ...errorResponse(
              `The API key lacks the \`${routeScope(spec)}\` scope this operation needs (\`code\` forbidden; sent with \`WWW-Authenticate: Bearer realm="workspace-api", error="insufficient_scope", scope="${routeScope(spec)}"\`, RFC 6750 §3.1), or the action is not allowed to the caller`,
            ),
            headers: scopeChallengeHeader(routeScope(spec)),
          },
        }
      : {}),
    ...(authenticated && spec.path.includes("{")
      ? { 404: errorResponse("Not found, or not visible to the caller (`code` not_found)") }
      : {}),
    ...(hasBody(spec)
      ? {
          413: errorResponse(`Body larger than ${spec.bodyLimit ?? DEFAULT_BODY_LIMIT_BYTES} bytes`),
          415: {
            ...errorResponse(
              "The body's Content-Type is not one this operation reads, or it has none (`code` unsupported_media_type): `details.content_type` says what was sent (null for none), `details.accepted` what is read",
            ),
            ...(spec.method === "patch" && checkedBodyMediaTypes(spec.request) ? { headers: ACCEPT_PATCH_HEADER } : {}),
          },
        }
      : {}),
    ...(authenticated || spec.rateLimit ? { 429: rateLimitedResponse(refusalDescription(spec)) } : {}),
    500: errorResponse("Unexpected failure (`code` internal); the response's X-Request-Id identifies it"),
    ...(authenticated ? { 503: errorResponse(SESSION_SECRET_MISSING) } : {}),
  };
}

/**
 * The 503 any credential may meet (lib/secrets.ts): SESSION_SECRET checks app-session tokens and
 * signs listing cursors, so a deployment without a usable one answers those with 503.
 */
const SESSION_SECRET_MISSING =
  "SESSION_SECRET is not set on this server, or is unusable (`code` unavailable, `details.setting` SESSION_SECRET): it checks app-session tokens and signs listing cursors, so a session token, a listing page with a next page or a cursor, and the change feed are refused until the operator sets it";

type DeclaredResponses = NonNullable<RouteConfig["responses"]>;

/**
 * A route's own responses over the standard ones; a 503 of its own (a capability not configured)
 * keeps the standard 503's reason beside it, so the description names every cause.
 */
function declaredResponses(standard: DeclaredResponses, own: DeclaredResponses): DeclaredResponses {
  const declared = { ...standard, ...own };
  const [standard503, own503] = [standard[503], own[503]];
  if (standard503 && own503 && "description" in standard503 && "description" in own503) {
    declared[503] = { ...own503, description: `${own503.description}; or ${standard503.description}` };
  }
  return declared;
}

/**
 * A client address as counted: IPv4 as is, IPv6 by its /64 (one client commonly holds a
 * whole /64, and would otherwise get a fresh counter per address).
 */
function clientKey(address: string | undefined): string {
  if (!address) return "unknown";
  if (!address.includes(":")) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const groups = head ? head.split(":") : [];
  const rest = tail ? tail.split(":") : [];
  const full = [...groups, ...Array(Math.max(0, 8 - groups.length - rest.length)).fill("0"), ...rest];
  return `${full.slice(0, 4).join(":")}::/64`;
}

/**
 * Counts one call of `caller` (`user:<id>` or `client:<address>`) on `counter` against `limit`; past
 * it, a 429 with `Retry-After`. Where the binding is not configured, nothing is limited.
 */
export async function countAgainstLimit(env: Env, limit: RateLimitSpec, counter: string, caller: string) {
  const limiter = env[limit.binding] as RateLimit | undefined;
  if (!limiter) return;
  const { success } = await limiter.limit({ key: `${counter}|${caller}` });
  if (!success)
    throw tooManyRequests(POLICY_NAMES.operation, limit.retryAfterSeconds, "Too many requests: retry later");
}

/**
 * Counts the request against the route's rate limit. Each route has its own counters unless its
 * limit names one (routes sharing a binding do not use up each other's allowance: legacy AI calls
 * never lock an address out of sign-in).
 */
function rateLimited(limit: RateLimitSpec, route: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller =
      limit.per === "user"
        ? `user:${c.get("ctx").actor?.userId ?? "anonymous"}`
        : `client:${clientKey(c.req.header("CF-Connecting-IP"))}`;
    await countAgainstLimit(c.env, limit, limit.counter ?? route, caller);
    await next();
  };
}

type ResponsesConfig = RouteConfig["responses"];

/**
 * The headers each response declares besides its own: the request id, bookmark and cost on every
 * answer, the quota fields on every answer to a credential but a 401, `Retry-After` and the
 * RateLimit item on a 429, `Location` on a 201.
 */
function withResponseHeaders(spec: RouteSpec, responses: ResponsesConfig): ResponsesConfig {
  const declared = (status: string): Record<string, unknown> => ({
    ...EVERY_RESPONSE_HEADERS,
    ...(isAuthenticated(spec) && status !== "401" ? QUOTA_HEADERS : {}),
    ...(status === "429" ? REFUSAL_HEADERS : {}),
    ...(status === "201" && spec.location !== undefined ? { Location: locationHeader(spec.location) } : {}),
    ...(storesNothing(spec) && status.startsWith("2") ? { "Cache-Control": NO_STORE_HEADER } : {}),
  });
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const headers = declared(status);
      const own = "headers" in response ? response.headers : undefined;
      return [status, { ...response, headers: { ...own, ...headers } }];
    }),
  ) as ResponsesConfig;
}

/** A success that carries a credential or a signed link: no cache may keep it. */
const storesNothing = (spec: RouteSpec): boolean => spec.secretResponse === true || spec.noStore === true;

const NO_STORE_HEADER = {
  description:
    "`no-store` (RFC 9111 §5.2.2.5): the answer carries a credential (a signed link is one for its bytes), which no cache may keep",
  schema: { type: "string", enum: ["no-store"] },
};

/** A success of a route that answers a credential: no cache may keep it. */
const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.ok) c.res.headers.set("Cache-Control", "no-store");
};

/** The route's own request headers, and `headers` besides. */
function withRequestHeaders(request: RouteConfig["request"], headers: z.ZodObject): RouteConfig["request"] {
  const own = request?.headers;
  return { ...request, headers: own instanceof z.ZodObject ? own.extend(headers.shape) : headers };
}

/** The bytes JSON allows around a value and ignores (RFC 8259): space, tab, line feed, carriage return. */
const isJsonWhitespace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * True when the request carries nothing: no body, `Content-Length: 0`, a stream that ends at once,
 * or, declared as JSON, only the whitespace JSON ignores (no value at all).
 */
async function carriesNothing(c: Context): Promise<boolean> {
  const request = c.req.raw;
  if (request.body === null) return true;
  const json = isJsonMediaType(request.headers.get("Content-Type") ?? "");
  const length = request.headers.get("Content-Length");
  if (length !== null && !request.headers.has("Transfer-Encoding") && (Number(length) === 0 || !json)) {
    return Number(length) === 0;
  }
  // Read through Hono's body cache: a body that has a value is read from it by the validator.
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  return json ? bytes.every(isJsonWhitespace) : bytes.byteLength === 0;
}

/**
 * An empty body is no body. Many clients send `Content-Type: application/json` on every
 * request; on a route whose body is optional, the validator would parse the nothing as JSON and
 * answer 400. A request with no bytes, or with JSON whitespace alone (a client that sends `" "` or
 * a newline for "no body"), loses its Content-Type (it describes nothing), so it is validated as a
 * request without a body, whatever its Content-Type said. (Hono's own body limit replaces the
 * request the same way.)
 */
const emptyBodyIsNoBody: MiddlewareHandler = async (c, next) => {
  const request = c.req.raw;
  if (request.headers.has("Content-Type") && (await carriesNothing(c))) {
    const headers = new Headers(request.headers);
    headers.delete("Content-Type");
    c.req.raw = new Request(request.url, { method: request.method, headers, signal: request.signal, cf: request.cf });
  }
  await next();
};

/** The query of a GET that declares none: it takes no parameter. */
const NO_QUERY = z.strictObject({});

/**
 * A GET of the API that declares no query refuses every query parameter (400 `validation_failed`,
 * naming it), as each declared query does with one it does not name: a misspelt parameter is never
 * silently ignored. The contract lists no parameter for it either way. Open GETs (the service's
 * information, liveness and health, a signed link) are called by monitors, load balancers and mail
 * clients that add their own parameters (a cache-buster, a tracking tag): they ignore what they do
 * not read.
 */
const withStrictQuery = <R extends RouteSpec>(spec: R): R =>
  spec.method === "get" && spec.access !== "open" && spec.request?.query === undefined
    ? { ...spec, request: { ...spec.request, query: NO_QUERY } }
    : spec;

/** Routes whose body a third party signed (`access: "signed"`): validated by `signedBodyHook`. */
const SIGNED_ROUTES = new WeakSet<object>();

/**
 * Defines a route from one declaration: its access kind sets the contract's
 * `security`, its standard error responses and the middleware that enforces
 * it (so a route cannot be documented one way and guarded another), its
 * rate limit, its body limit and a 201's `Location`. Authentication (which
 * counts the credential's quota) runs before any input is validated. A write of
 * something with no entity tag answers a listed `If-Match` with 412.
 */
export function defineRoute<const R extends RouteSpec>(given: R): DefinedRoute<R> {
  const spec = withStrictQuery(given);
  const {
    access,
    bodyLimit: limit,
    rateLimit,
    scope: _scope,
    location,
    secretResponse,
    noStore: _noStore,
    entityTag,
    idempotencyKey: _idempotencyKey,
    ...route
  } = spec;
  const tagged = entityTag ? declareEntityTags(route, entityTag, errorResponse) : route;
  const tagless = writesWithoutEntityTag(spec);
  const taglessRead = readsWithoutEntityTag(spec);
  const config = tagless
    ? declareNoEntityTag(tagged, errorResponse)
    : taglessRead
      ? declareNoEntityTagOnRead(tagged, errorResponse)
      : tagged;
  if (rateLimit?.per === "user" && (access === "open" || access === "signed")) {
    // Every anonymous caller would share one counter.
    throw new Error(`${spec.method} ${spec.path}: a per-user rate limit needs an authenticated route`);
  }
  const created = checkedLocation(spec, location);
  const middleware: MiddlewareHandler[] = [accessMiddleware(access, routeScope(spec))];
  if (taglessRead) middleware.push(noEntityTagOnRead as MiddlewareHandler);
  if (created !== undefined) middleware.push(locationOfCreated(created));
  if (rateLimit) middleware.push(rateLimited(rateLimit, `${spec.method} ${spec.path}`) as MiddlewareHandler);
  if (storesNothing(spec)) middleware.push(noStore);
  if (hasBody(spec)) {
    const maxSize = limit ?? DEFAULT_BODY_LIMIT_BYTES;
    middleware.push(
      bodyLimit({
        maxSize,
        onError: () => {
          throw payloadTooLarge(maxSize);
        },
      }),
    );
    if (hasOptionalBody(spec)) middleware.push(emptyBodyIsNoBody);
    const accepted = checkedBodyMediaTypes(spec.request);
    if (accepted) middleware.push(refuseUnreadMediaType(accepted, spec.method));
  }
  const declared = declaredResponses(standardErrors(spec), config.responses);
  const responses = withResponseHeaders(spec, declared);
  if (!takesIdempotencyKey(spec)) {
    const defined = createRoute({
      ...config,
      request: withRequestHeaders(config.request, EVERY_REQUEST_HEADERS),
      security: SECURITY[access],
      responses,
      middleware,
    });
    if (access === "signed") SIGNED_ROUTES.add(defined);
    return defined as unknown as DefinedRoute<R>;
  }
  // After the body limit: the key's fingerprint reads the body.
  const keepResponses = secretResponse !== true;
  middleware.push(idempotencyKeys({ keepResponses }) as MiddlewareHandler);
  // Inside the key's scope, as a handler's own 412 is: a refusal that wrote nothing frees the key.
  if (tagless) middleware.push(noEntityTagToMatch);
  const keyHeader = idempotencyKeyHeader(keepResponses);
  return createRoute({
    ...config,
    request: withRequestHeaders(config.request, EVERY_REQUEST_HEADERS.extend(keyHeader.shape)),
    security: SECURITY[access],
    // The key's own answers (409, 422) carry the quota fields like every other answer.
    responses: withResponseHeaders(spec, withIdempotencyResponses(declared, errorResponse) as ResponsesConfig),
    middleware,
  }) as unknown as DefinedRoute<R>;
}

/**
 * Whether a request-header schema can refuse anything: not when each header it declares is an
 * optional string without checks, as every one this service declares is. Header values are strings,
 * so such a schema passes every request, and its validator would only copy every header of every
 * request into an object to find that out (about 7% of a block read's CPU under load).
 */
export function headersCanFail(headers: unknown): boolean {
  if (!(headers instanceof z.ZodObject)) return headers !== undefined;
  // A refinement of the whole object, or a rule for headers it does not name (`.strict()`, `.catchall()`).
  const { checks, catchall } = headers._zod.def;
  if (checks?.length || (catchall !== undefined && !(catchall instanceof z.ZodUnknown))) return true;
  return Object.values(headers.shape as Record<string, z.ZodType>).some((field) => {
    if (!(field instanceof z.ZodOptional) || field._zod.def.checks?.length) return true;
    const value = field.unwrap();
    return !(value instanceof z.ZodString) || Boolean(value._zod.def.checks?.length);
  });
}

/**
 * The router every resource builds its routes on: one validation hook, one error shape. A route
 * is described in the contract as declared; its request headers are validated only when their
 * schema can refuse one (`headersCanFail`): each route reads the headers it acts on itself, with
 * `c.req.header()` (`c.req.valid("header")` is undefined on a route served without the validator).
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const register = router.openapi;
  router.openapi = ((route, handler, routeHook) => {
    const hook = routeHook ?? (SIGNED_ROUTES.has(route) ? signedBodyHook : undefined);
    if (!route.request?.headers || headersCanFail(route.request.headers)) return register(route, handler, hook);
    const { middleware: _middleware, hide, ...described } = route;
    if (!hide) router.openAPIRegistry.registerPath(described);
    return register({ ...route, hide: true, request: { ...route.request, headers: undefined } }, handler, hook);
  }) as typeof register;
  return router;
}

/**
 * The handler of a defined route (`Handler<typeof routes.list>`): its parameters, query, body and
 * the responses it may send are typed from the route's own declaration.
 */
export type Handler<R extends RouteConfig> = RouteHandler<R>;
