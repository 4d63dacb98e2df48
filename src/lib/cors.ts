import type { cors } from "hono/cors";
import { D1_BOOKMARK_HEADER } from "../db/sessions";
import { PAGINATION_HEADER_NAMES } from "./pagination-headers";
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from "./rate-limit-fields";

/**
 * Response headers a browser's script may read (Fetch standard, CORS-safelisted response headers
 * aside): listings' paging, the request id, the read-replica bookmark, the quota fields and
 * `Retry-After`, a creation's `Location`, the validators and replay marker of conditional and
 * idempotent writes (`ETag`, `Idempotent-Replayed`), and which bytes a media download's 206 or 416
 * holds (`Content-Range`, `Accept-Ranges`: RFC 9110 §14.3, §14.4), an export's or a file's name
 * and row count (`Content-Disposition`, `X-Export-Row-Count`, `X-Export-Truncated`), a 401's
 * challenge (`WWW-Authenticate`) and the patch formats a PATCH's 415 names (`Accept-Patch`).
 */
export const EXPOSED_HEADERS = [
  ...PAGINATION_HEADER_NAMES,
  "X-Request-Id",
  "X-Hierarchy-Truncated",
  D1_BOOKMARK_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RATE_LIMIT_HEADER,
  "Retry-After",
  "Location",
  "ETag",
  "Idempotent-Replayed",
  "Content-Range",
  "Accept-Ranges",
  "Content-Disposition",
  "X-Export-Row-Count",
  "X-Export-Truncated",
  "WWW-Authenticate",
  "Accept-Patch",
];

/**
 * How long a browser may reuse a preflight's answer, in seconds. Nothing in it varies by request
 * (any origin it answers, the methods, whatever headers are asked for: `/mcp` refuses the origins
 * it does not allow before, mcp/origins.ts), so the longest any browser keeps:
 * Firefox's 24 hours; Chromium caps it at 2 hours and WebKit at 10 minutes by themselves.
 */
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

export const CORS_OPTIONS: Parameters<typeof cors>[0] = {
  origin: "*",
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
};

/** What every answer to a request with an `Origin` carries, a preflight's aside: what `cors(CORS_OPTIONS)` sets on it. */
export const CORS_ANSWER_HEADERS: readonly (readonly [string, string])[] = [
  ["Access-Control-Allow-Origin", "*"],
  ["Access-Control-Expose-Headers", EXPOSED_HEADERS.join(",")],
];
