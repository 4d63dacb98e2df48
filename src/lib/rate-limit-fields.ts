// The RateLimit-Policy and RateLimit response fields of draft-ietf-httpapi-ratelimit-headers-11:
// each a Structured Field List (RFC 9651) of Items whose value is the policy's name, a String.
//   RateLimit-Policy: "default";q=1200;w=60     (quota q in requests per window w seconds)
//   RateLimit: "default";r=1187;t=42            (r requests available for the next t seconds)

/**
 * The names of this API's quota policies, as RateLimit items and a 429's `details.policy` give them:
 * each credential's quota, an operation's own limit (a route's `rateLimit`), and the two limits of AI
 * streams on the server's resources (services/ai/limits.ts).
 */
export const POLICY_NAMES = {
  credential: "default",
  operation: "operation",
  aiStreams: "ai-streams",
  aiConcurrentStreams: "ai-concurrent-streams",
} as const;

export const RATE_LIMIT_POLICY_HEADER = "RateLimit-Policy";
export const RATE_LIMIT_HEADER = "RateLimit";

/** A quota policy: `quota` requests (the draft's default unit) per window of `windowSeconds`. */
export interface QuotaPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/** A service limit: `remaining` requests available under `policy`, for the next `resetSeconds` when said. */
export interface ServiceLimit {
  policy: string;
  remaining: number;
  resetSeconds?: number;
}

/** One request's count against a quota policy: the RateLimit fields of its answer come from it. */
export interface QuotaCount {
  policy: QuotaPolicy;
  admitted: boolean;
  /** Requests still available in the window, as far as the counter knows (0 when refused). */
  remaining: number;
  /** Seconds until the window ends (1 to the window's length). */
  resetSeconds: number;
}

/** RFC 9651 §3.3.3: a String is printable ASCII, `"` and `\` escaped. Policy names are ours, so one outside it is a bug. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`Not a Structured Field string: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** RFC 9651 §3.3.1: a non-negative Integer here (the draft's q, w, r and t are all non-negative). */
function sfInteger(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`Not a non-negative Structured Field integer: ${value}`);
  return String(value);
}

/** One Quota Policy Item: `"default";q=1200;w=60`. */
export const quotaPolicyItem = (policy: QuotaPolicy): string =>
  `${sfString(policy.name)};q=${sfInteger(policy.quota)};w=${sfInteger(policy.windowSeconds)}`;

/** One Service Limit Item: `"default";r=1187;t=42` (`t` only when known). */
export const serviceLimitItem = (limit: ServiceLimit): string =>
  `${sfString(limit.policy)};r=${sfInteger(limit.remaining)}${limit.resetSeconds === undefined ? "" : `;t=${sfInteger(limit.resetSeconds)}`}`;

/**
 * The fields of a counted request's answer: its policy, and what is available while it was
 * admitted. A refused request's own item (nothing available until `Retry-After`) comes with its
 * 429, as every refusal's does (`refusedItem`), so it is not written twice.
 */
export function writeQuotaCount(headers: Headers, count: QuotaCount): void {
  headers.set(RATE_LIMIT_POLICY_HEADER, quotaPolicyItem(count.policy));
  if (!count.admitted) return;
  const { policy, remaining, resetSeconds } = count;
  headers.append(RATE_LIMIT_HEADER, serviceLimitItem({ policy: policy.name, remaining, resetSeconds }));
}

/** The RateLimit item of a 429 of `policy`: nothing available for `retryAfterSeconds`, which `Retry-After` says too. */
export const refusedItem = (policy: string, retryAfterSeconds: number): string =>
  serviceLimitItem({ policy, remaining: 0, resetSeconds: retryAfterSeconds });
