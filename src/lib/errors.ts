import { z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Stable, machine-readable error codes, each with the one HTTP status it is
 * sent with. Clients branch on `code`; `error` is for people and may change.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, description: "The request is invalid: `details` names each problem" },
  malformed_json: { status: 400, description: "The body is not valid JSON" },
  unauthorized: {
    status: 401,
    description:
      "Missing, malformed, unknown, revoked or expired credential, or an app session ended by a sign-out or whose user no longer exists",
  },
  forbidden: { status: 403, description: "Authenticated, but this action is not allowed to the caller" },
  not_found: { status: 404, description: "No such object, or not visible to the caller" },
  method_not_allowed: { status: 405, description: "The path exists, the method does not (see `Allow`)" },
  not_acceptable: {
    status: 406,
    description: "The request's Accept header names no media type this operation answers with",
  },
  conflict: { status: 409, description: "Conflicts with the current state (a taken id or name, a concurrent change)" },
  idempotency_in_progress: {
    status: 409,
    description: "A request with this Idempotency-Key is still being processed: retry after `Retry-After` seconds",
  },
  idempotency_replay_unavailable: {
    status: 409,
    description: "The request with this Idempotency-Key ran, but its response is not kept to be replayed",
  },
  cursor_expired: {
    status: 410,
    description:
      "The cursor points before the oldest change still kept (the change log keeps 30 days): read again from the start",
  },
  precondition_failed: {
    status: 412,
    description:
      "An If-Match or If-None-Match precondition did not hold (RFC 9110 §13.1, §15.5.13): nothing was written; `details.etag` and `ETag` carry the current entity tag (none for a resource that has no entity tag, where `If-Match` can list none of its versions)",
  },
  payload_too_large: { status: 413, description: "The body is larger than this route accepts" },
  unsupported_media_type: { status: 415, description: "The body's Content-Type is not one this route reads" },
  range_not_satisfiable: {
    status: 416,
    description:
      "The `Range` asked for lies outside the file (RFC 9110 §15.5.17): `Content-Range: bytes */<size>` and `details.size` give its size",
  },
  idempotency_key_reused: {
    status: 422,
    description: "This Idempotency-Key was used with another method, path or body",
  },
  rate_limited: {
    status: 429,
    description: "Too many requests: retry after `Retry-After` seconds; `details.policy` names the limit reached",
  },
  internal: { status: 500, description: "An unexpected failure; report the X-Request-Id" },
  upstream_failed: { status: 500, description: "A third-party service failed or could not be reached" },
  unavailable: { status: 503, description: "A capability is temporarily unavailable" },
} as const satisfies Record<string, { status: ContentfulStatusCode; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
const CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/**
 * The code for a refusal known only by its status (Hono's own, a library's): the first code sent
 * with that status; a 400 whose message speaks of JSON is `malformed_json`.
 */
export function codeForStatus(status: number, message = ""): ErrorCode {
  if (status === 400) return /json/i.test(message) ? "malformed_json" : "validation_failed";
  return CODE_NAMES.find((code) => ERROR_CODES[code].status === status) ?? "validation_failed";
}

/** The one error body of the API: `{error, code, details?}`. */
export const ErrorSchema = z
  .object({
    error: z.string().openapi({ description: "What went wrong, for people", example: "Block not found" }),
    code: z.enum(CODE_NAMES).openapi({
      description: `Stable machine-readable code:\n${CODE_NAMES.map((code) => `- \`${code}\` (${ERROR_CODES[code].status}): ${ERROR_CODES[code].description}`).join("\n")}`,
      example: "not_found",
    }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Where and why, when there is more to say", example: { id: "3f1c9b7e" } }),
    request_id: z.string().openapi({
      description: "The id of the request (as its `X-Request-Id`): quote it when reporting a problem",
      example: "0d4c2c6e-6f1a-4b7e-9c3d-2a5b8e1f4c70",
    }),
  })
  .openapi("Error");

export type ErrorBody = z.infer<typeof ErrorSchema>;
/** An error body as the code decides it; the request's id is added to every answer (app.ts). */
export type Refusal = Omit<ErrorBody, "request_id">;

/**
 * Thrown anywhere in a request; `onError` turns it into the error envelope.
 * Handlers never build error responses by hand.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Response headers the refusal's status calls for (`ETag` with a 412, `Content-Range` with a 416). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_CODES[code].status;
  }

  get body(): Refusal {
    return this.details
      ? { error: this.message, code: this.code, details: this.details }
      : { error: this.message, code: this.code };
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError("validation_failed", message, details);
export const unauthorized = (message = "Missing or invalid credentials") => new ApiError("unauthorized", message);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ApiError("forbidden", message, details);
export const notFound = (message = "Not found", details?: Record<string, unknown>) =>
  new ApiError("not_found", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError("conflict", message, details);
/**
 * A 429 of the quota policy named `policy`: `details.retry_after_seconds` is also sent as
 * `Retry-After`, and the policy as a RateLimit item with nothing available until then (app.ts `onError`).
 */
export const tooManyRequests = (
  policy: string,
  retryAfterSeconds: number,
  message: string,
  details?: Record<string, unknown>,
) => new ApiError("rate_limited", message, { ...details, policy, retry_after_seconds: retryAfterSeconds });
export const payloadTooLarge = (maxBytes: number) =>
  new ApiError("payload_too_large", "Request body too large", { max_bytes: maxBytes });

/** Zod issues as `details` for a 400: where each problem is and what it is. */
export function validationDetails(error: z.ZodError, source?: string): Record<string, unknown> {
  return {
    ...(source ? { source } : {}),
    issues: error.issues.map((issue) => ({
      path: issue.path.map(String).join("."),
      message: issue.message,
      code: issue.code,
    })),
  };
}

/** One problem of a nested document, at its path as clients index JSON (`content[2].children[0].link`). */
export interface PathIssue {
  path: string;
  message: string;
  code: string;
}

/** Most issues one 400 lists: thousands of bad items should not make a megabyte of details. */
const MAX_ISSUES = 50;

/**
 * A 400 for a document with `issues` (at least one): the message names `field` and the first
 * issue, `details.issues` lists them (up to MAX_ISSUES, flagged when cut), beside `details`.
 */
export function issuesRefused(
  field: string,
  issues: readonly PathIssue[],
  details: Record<string, unknown> = {},
): ApiError {
  const [first] = issues as [PathIssue];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
  return badRequest(`Invalid ${field}: ${first.path}: ${first.message}${more}`, {
    ...details,
    issues: issues.slice(0, MAX_ISSUES),
    ...(issues.length > MAX_ISSUES ? { truncated: true, total_issues: issues.length } : {}),
  });
}

/** zod's `["children", 1, "text"]` after `base` as `base.children[1].text`, matching how clients index JSON. */
export function joinPath(base: string, segments: readonly PropertyKey[]): string {
  return segments.reduce<string>(
    (acc, segment) => (typeof segment === "number" ? `${acc}[${segment}]` : `${acc}.${String(segment)}`),
    base,
  );
}
