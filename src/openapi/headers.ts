import { env } from "cloudflare:workers";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { credentialPolicy } from "../auth/credential-limit";
import { D1_BOOKMARK_HEADER, MAX_BOOKMARK_LENGTH } from "../db/sessions";
import type { AppEnv } from "../lib/context";
import {
  POLICY_NAMES,
  type QuotaPolicy,
  quotaPolicyItem,
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  serviceLimitItem,
} from "../lib/rate-limit-fields";

// Response headers every operation of a kind carries, declared once as components of the contract
// (#/components/headers) and referred to by the responses defineRoute gives each operation.

const DRAFT = "draft-ietf-httpapi-ratelimit-headers-11";

/**
 * The components for the configured quota `policy`: any the settings allow, down to one request
 * every 10 seconds (their examples stay within it).
 */
export function headerComponents(policy: QuotaPolicy) {
  const example = {
    remaining: Math.floor(policy.quota * 0.9),
    resetSeconds: Math.ceil(policy.windowSeconds * 0.7),
  };
  return {
    [RATE_LIMIT_POLICY_HEADER]: {
      description: `The quota of the credential that made the request (${DRAFT}, §3; a Structured Field List, RFC 9651): \`"${POLICY_NAMES.credential}";q=<requests>;w=<seconds>\`, here q=${policy.quota} and w=${policy.windowSeconds} (API_RATE_LIMIT_REQUESTS and API_RATE_LIMIT_WINDOW_SECONDS). Each API key has its own quota; every app session of one user shares the user's. Sent on every answer to a valid credential, refusals included; never with a 401 (no valid credential, no quota).`,
      schema: { type: "string" as const, example: quotaPolicyItem(policy) },
    },
    [RATE_LIMIT_HEADER]: {
      description: `What is left of that quota (${DRAFT}, §4): \`"${POLICY_NAMES.credential}";r=<requests>;t=<seconds>\`, r requests available until the window ends in t seconds (windows are aligned to the clock). The quota is counted by Cloudflare's Workers Rate Limiting, per Cloudflare location and approximately: r is the count of the server instance that answered, exact while one instance serves the credential, otherwise an upper bound. So a request may be refused while r is positive, and the 429 decides, not r. A 429 adds the item of the limit it reached, with r=0 and t equal to \`Retry-After\`, and names that limit in \`details.policy\`: \`"${POLICY_NAMES.credential}"\` (the quota above), \`"${POLICY_NAMES.operation}"\` (an operation's own limit, as its description says), \`"${POLICY_NAMES.aiStreams}"\` or \`"${POLICY_NAMES.aiConcurrentStreams}"\` (AI streams on the server's resources).`,
      schema: {
        type: "string" as const,
        example: serviceLimitItem({ policy: POLICY_NAMES.credential, ...example }),
      },
    },
    ...EVERY_RESPONSE,
    "Retry-After": {
      description:
        "Seconds to wait before trying again (RFC 9110 §10.2.3), the t of the RateLimit item of the limit reached: for the credential's quota, the end of its window; for an operation's own limit, that limit's whole period (its window's end is not known here, so the wait asked is never too short); for AI streams at once, which end when they end, a short wait.",
      schema: { type: "integer" as const, example: example.resetSeconds },
    },
  };
}

/** What a D1 bookmark looks like (db/sessions.ts), for the contract. */
const BOOKMARK_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$";
const BOOKMARK_EXAMPLE = "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683";

/** The headers of every response (app.ts, requestContext), whatever the operation and status. */
const EVERY_RESPONSE = {
  "X-Request-Id": {
    description:
      "The request's id: the caller's own `X-Request-Id` when it was well-formed (1 to 128 letters, digits and `._:-`, starting with a letter or digit), else a new UUID. Error bodies carry it as `request_id`; quote it when reporting a problem.",
    required: true,
    schema: { type: "string" as const, example: "0d4c2c6e-6f1a-4b7e-9c3d-2a5b8e1f4c70" },
  },
  [D1_BOOKMARK_HEADER]: {
    description: `The D1 bookmark (Cloudflare D1 Sessions API) of what this request saw or wrote, on a response that touched the database: send the latest one back as the \`${D1_BOOKMARK_HEADER}\` request header to read at least that far.`,
    schema: { type: "string" as const, pattern: BOOKMARK_PATTERN, example: BOOKMARK_EXAMPLE },
  },
  "Server-Timing": {
    description:
      'What the request cost (W3C Server Timing; RFC 9110 list syntax): `d1;desc="<n> round trips";dur=<ms>`, the database round trips and their time, and on an authenticated request `auth;desc="<source>"`, where the credential was checked.',
    required: true,
    schema: { type: "string" as const, example: 'd1;desc="2 round trips";dur=3.4, auth;desc="cache"' },
  },
};

type HeaderName = keyof ReturnType<typeof headerComponents>;
const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** The quota fields of every answer to a credential (all but a 401). */
export const QUOTA_HEADERS = {
  [RATE_LIMIT_POLICY_HEADER]: ref(RATE_LIMIT_POLICY_HEADER),
  [RATE_LIMIT_HEADER]: ref(RATE_LIMIT_HEADER),
};
/** What every 429 carries: when to retry, and the RateLimit item of the limit reached. */
export const REFUSAL_HEADERS = { "Retry-After": ref("Retry-After"), [RATE_LIMIT_HEADER]: ref(RATE_LIMIT_HEADER) };

/** What every response carries, whatever its operation and status. */
export const EVERY_RESPONSE_HEADERS = Object.fromEntries(
  Object.keys(EVERY_RESPONSE).map((name) => [name, ref(name as HeaderName)]),
);

/**
 * The request headers every operation accepts (app.ts reads them before any route): declared by
 * each operation as a reference to one parameter component. Neither is refused by the route's
 * validation: a malformed bookmark is refused before it (400, `details.header`), and a malformed
 * request id is replaced.
 */
export const EVERY_REQUEST_HEADERS = z.object({
  "X-Request-Id": z
    .string()
    .optional()
    .openapi("RequestIdHeader", {
      param: { name: "X-Request-Id", in: "header" },
      description:
        "An id of the caller's own for this request (1 to 128 letters, digits and `._:-`, starting with a letter or digit): echoed in the response's `X-Request-Id` and in the logs. Anything else is replaced by a new UUID.",
    }),
  [D1_BOOKMARK_HEADER]: z
    .string()
    .optional()
    .openapi("D1BookmarkHeader", {
      param: { name: D1_BOOKMARK_HEADER, in: "header" },
      description: `The latest \`${D1_BOOKMARK_HEADER}\` a response gave this client: the request then sees at least what that response saw, its own writes included, even from a read replica. Empty or absent: no constraint. Malformed (not ${BOOKMARK_PATTERN}) or longer than ${MAX_BOOKMARK_LENGTH} characters: 400 \`validation_failed\` with \`details.header\`.`,
    }),
});

/** Registers the components the references above name. */
export function registerHeaderComponents(app: OpenAPIHono<AppEnv>): void {
  for (const [name, header] of Object.entries(headerComponents(credentialPolicy(env)))) {
    app.openAPIRegistry.registerComponent("headers", name, header);
  }
  app.openAPIRegistry.registerParameter("RequestIdHeader", EVERY_REQUEST_HEADERS.shape["X-Request-Id"]);
  app.openAPIRegistry.registerParameter("D1BookmarkHeader", EVERY_REQUEST_HEADERS.shape[D1_BOOKMARK_HEADER]);
}
