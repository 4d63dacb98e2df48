import { env } from "cloudflare:workers";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { credentialPolicy } from "../auth/credential-limit";
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
    "Retry-After": {
      description:
        "Seconds to wait before trying again (RFC 9110 §10.2.3), the t of the RateLimit item of the limit reached: the end of its window (for AI streams at once, which end when they end, a short wait).",
      schema: { type: "integer" as const, example: example.resetSeconds },
    },
  };
}

type HeaderName = keyof ReturnType<typeof headerComponents>;
const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** The quota fields of every answer to a credential (all but a 401). */
export const QUOTA_HEADERS = {
  [RATE_LIMIT_POLICY_HEADER]: ref(RATE_LIMIT_POLICY_HEADER),
  [RATE_LIMIT_HEADER]: ref(RATE_LIMIT_HEADER),
};
/** What every 429 carries: when to retry, and the RateLimit item of the limit reached. */
export const REFUSAL_HEADERS = { "Retry-After": ref("Retry-After"), [RATE_LIMIT_HEADER]: ref(RATE_LIMIT_HEADER) };

/** Registers the components the references above name. */
export function registerHeaderComponents(app: OpenAPIHono<AppEnv>): void {
  for (const [name, header] of Object.entries(headerComponents(credentialPolicy(env)))) {
    app.openAPIRegistry.registerComponent("headers", name, header);
  }
}
