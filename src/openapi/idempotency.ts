import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AuthenticatedAppEnv } from "../auth/access";
import { createDatabase } from "../db/client";
import type { UserContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import { hexOf } from "../lib/hex";
import { describeError, log } from "../lib/log";
import { PAGINATION_HEADER_NAMES } from "../lib/pagination";
import { type CommitState, markingCommits } from "../services/idempotency/commit-marker";
import {
  IDEMPOTENCY_KEY_EXAMPLE,
  IDEMPOTENCY_KEY_HEADER,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from "../services/idempotency/header";
import {
  IDEMPOTENCY_LOCK_MS,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  type KeyAttempt,
  MAX_KEPT_RESPONSE_BYTES,
  markCommitted,
  type Reservation,
  recordResponse,
  releaseKey,
  reserveKey,
} from "../services/idempotency/keys";
import type { ErrorResponseOf } from "./entity-tags";

// `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header) on every write operation of a
// user: defineRoute adds this middleware, the header parameter and the answers to each POST, PUT,
// PATCH and DELETE of `user` and `session` routes. A request without the header costs nothing
// more. With it: the key is reserved (one round trip), the request runs with every write batch
// marking the key (services/idempotency/commit-marker.ts), and its response is recorded (one round
// trip), or the key released when the request wrote nothing and failed.

export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";
const DRAFT = "draft-ietf-httpapi-idempotency-key-header";

/** Response headers a replay gives back, when the first response had them; the others are the replay's own. */
const REPLAYED_HEADERS = [
  "Content-Type",
  "Content-Disposition",
  "Location",
  "ETag",
  "Last-Modified",
  "X-Hierarchy-Truncated",
  ...PAGINATION_HEADER_NAMES,
];

const EVENT_STREAM = /^text\/event-stream/i;

const MULTIPART = /^multipart\/form-data\s*;/i;

/**
 * Lowercase hex SHA-256 of the request body, read from a copy so the handler reads it as sent. A
 * multipart body is fingerprinted by its parts (name, then text, or file name, type and bytes'
 * digest), not its bytes: every client picks a new boundary for each request, so the same upload
 * sent again never has the same bytes, and a retry would otherwise be refused as another request.
 */
async function bodySha256(c: Context): Promise<string> {
  const request = c.req.raw;
  if (request.body === null) return hexOf(await crypto.subtle.digest("SHA-256", new ArrayBuffer(0)));
  if (MULTIPART.test(request.headers.get("Content-Type") ?? "")) {
    const form = await multipartOf(c);
    if (form) return hexOf(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(form))));
  }
  const bytes = request.bodyUsed
    ? await c.req.arrayBuffer() // already read into Hono's cache
    : await request.clone().arrayBuffer();
  return hexOf(await crypto.subtle.digest("SHA-256", bytes));
}

/** SHA-256 of a stream, hashed as it flows (a file part is not copied once more for it). */
async function streamDigest(stream: ReadableStream<Uint8Array>): Promise<ArrayBuffer> {
  const digest = new crypto.DigestStream("SHA-256");
  await stream.pipeTo(digest);
  return digest.digest;
}

/** A multipart body's parts in order, each file as its name, type and digest; undefined when it does not parse (its bytes are the fingerprint then). */
async function multipartOf(c: Context): Promise<unknown[] | undefined> {
  let form: FormData;
  try {
    form = c.req.raw.bodyUsed ? await c.req.formData() : await c.req.raw.clone().formData();
  } catch {
    return undefined;
  }
  const parts: unknown[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") parts.push([name, value]);
    else parts.push([name, value.name, value.type, hexOf(await streamDigest(value.stream()))]);
  }
  return parts;
}

/** Throws `error`, with its `Retry-After` on the error response when it has one. */
function refuse(c: Context, error: ApiError): never {
  const retryAfter = error.details?.retry_after_seconds;
  if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
  throw error;
}

const inProgress = (committed: boolean) =>
  new ApiError("idempotency_in_progress", `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed`, {
    header: IDEMPOTENCY_KEY_HEADER,
    write_committed: committed,
    retry_after_seconds: IN_PROGRESS_RETRY_AFTER_SECONDS,
  });

/** The answer to a request whose key is already someone's (this user's earlier request). */
function answerTaken(c: Context, reservation: Exclude<Reservation, { kind: "owned" }>): Response {
  switch (reservation.kind) {
    case "reused":
      return refuse(
        c,
        new ApiError(
          "idempotency_key_reused",
          `This ${IDEMPOTENCY_KEY_HEADER} was used with another request: send a new key for a new request`,
          { header: IDEMPOTENCY_KEY_HEADER, first_request: reservation.first },
        ),
      );
    case "in_progress":
      return refuse(c, inProgress(reservation.committed));
    case "unavailable":
      return refuse(
        c,
        new ApiError(
          "idempotency_replay_unavailable",
          `The request with this ${IDEMPOTENCY_KEY_HEADER} ran, but its response is not kept to be replayed (a stream, a body over ${MAX_KEPT_RESPONSE_BYTES} bytes, or a response lost after its write): it is not run again`,
          { header: IDEMPOTENCY_KEY_HEADER, write_committed: reservation.committed, status: reservation.status },
        ),
      );
    case "replay": {
      const headers = new Headers(reservation.response.headers);
      headers.set(IDEMPOTENT_REPLAYED_HEADER, "true");
      const status = reservation.response.status;
      const empty = status === 204 || status === 205 || status === 304;
      return new Response(empty ? null : reservation.response.body, { status, headers });
    }
  }
}

/** The headers of `response` that a replay gives back. */
function replayedHeaders(response: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

/** The body as text if it can be kept (UTF-8, at most MAX_KEPT_RESPONSE_BYTES), else null. */
async function keptBody(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_KEPT_RESPONSE_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Logs a failure to record or release a key: the response still goes out, the key stays held. */
function logKeyFailure(ctx: UserContext, step: string, error: unknown): void {
  log(ctx, "error", `idempotency key not ${step}`, { error: describeError(error) });
}

/**
 * Gives up the key of an attempt whose writes did not land (releaseKey): true when it is gone, or
 * when giving it up failed (logged; the lock lapses by itself); false when a failed batch had
 * committed after all, and the answer is to be recorded.
 */
const released = (ctx: UserContext, attempt: KeyAttempt, writes: CommitState): Promise<boolean> =>
  releaseKey(ctx, attempt, writes.failed).catch((error) => {
    logKeyFailure(ctx, "released", error);
    return true;
  });

/**
 * Settles the key after the request ran. Recorded (and replayed from then on): any 2xx, and any
 * response of a request whose write landed. Released: a failure whose writes did not commit (a
 * validation error, a 404, a write batch D1 refused and undid...), so that a corrected retry runs,
 * as the draft asks clients to correct a request before retrying it; whether a failed batch
 * committed is read from the key's own row, which that batch's marker would have set. A stream is
 * marked committed at once (it is never run again) and recorded when it ends, from a copy of what
 * the client is sent.
 */
async function settle(
  c: Context,
  ctx: UserContext,
  attempt: KeyAttempt,
  writes: CommitState,
  keepResponses: boolean,
): Promise<void> {
  const response = c.res;
  if (!writes.landed && !response.ok) {
    // Held (not released) only when a failed batch committed after all: then the answer is recorded.
    if (await released(ctx, attempt, writes)) return;
  }
  const status = response.status;
  const headers = replayedHeaders(response);
  if (EVENT_STREAM.test(response.headers.get("Content-Type") ?? "") && response.body !== null) {
    await markCommitted(ctx, attempt);
    const [toClient, toRecord] = response.body.tee();
    c.res = new Response(toClient, response);
    ctx.waitUntil(
      keptBody(toRecord)
        .then((body) => recordResponse(ctx, attempt, { status, headers, body }))
        .catch((error) => logKeyFailure(ctx, "recorded", error)),
    );
    return;
  }
  const body = keepResponses ? await keptBody(response.clone().body) : null;
  // A response too large to keep, of a request whose writes did not commit, can simply be asked for again.
  if (body === null && !writes.landed) {
    if (await released(ctx, attempt, writes)) return;
  }
  await recordResponse(ctx, attempt, { status, headers, body }).catch((error) => logKeyFailure(ctx, "recorded", error));
}

/**
 * The middleware of every write operation of a user: see the header of this file. A route whose
 * response carries a secret shown once (a new API key's raw value) keeps no response: a retry of
 * it is a 409 `idempotency_replay_unavailable`, never a second run, and the secret is never stored.
 */
export const idempotencyKeys =
  (options: { keepResponses: boolean }): MiddlewareHandler<AuthenticatedAppEnv> =>
  async (c, next) => {
    const field = c.req.raw.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (field === null) return next();
    const key = parseIdempotencyKey(field);
    const ctx = c.get("ctx");
    const url = new URL(c.req.url);
    const reservation = await reserveKey(ctx, key, {
      method: c.req.method,
      path: url.pathname + url.search,
      bodySha256: await bodySha256(c),
    });
    if (reservation.kind !== "owned") return answerTaken(c, reservation);
    const { attempt } = reservation;
    const marking = markingCommits(ctx.db.$client, attempt, ctx.now);
    c.set("ctx", { ...ctx, db: createDatabase(marking.d1) });
    await next();
    if (c.error instanceof ApiError && c.error.code === "idempotency_in_progress") {
      c.res.headers.set("Retry-After", String(IN_PROGRESS_RETRY_AFTER_SECONDS));
    }
    await settle(c, ctx, attempt, marking.state, options.keepResponses);
  };

// ---------------------------------------------------------------------------------------
// The contract

/** The request header, as every write operation of a user declares it. */
export const idempotencyKeyHeader = (keepResponses: boolean) =>
  z.object({
    [IDEMPOTENCY_KEY_HEADER]: z
      .string()
      .optional()
      .openapi({
        param: { name: IDEMPOTENCY_KEY_HEADER, in: "header" },
        description: `Makes this write safe to retry (${DRAFT}): an RFC 8941 String (in double quotes) of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (the same characters unquoted, without a quote, comma, semicolon, backslash or space, are taken as the same key), unique per request (a UUID), scoped to the user. The first request with a key runs; a retry with the same key, method, path and body bytes answers the first response (status, body, Content-Type, Location, ETag, X-Next-Cursor and pagination headers) with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, and writes nothing. The same key with another method, path or body is a 422 \`idempotency_key_reused\`; a retry while the first runs is a 409 \`idempotency_in_progress\` with \`Retry-After\`. Kept 24 hours from the first request, then forgotten (a request with it runs again). Stored: every 2xx, and any answer of a request whose write landed (never run again); a request that wrote nothing and failed (a 400, a 404...) frees its key, so the corrected request can be sent with it. A server-sent event stream is run once and replayed as its recorded events; a response over ${MAX_KEPT_RESPONSE_BYTES} bytes is not kept (409 \`idempotency_replay_unavailable\`). A request that has written nothing for ${IDEMPOTENCY_LOCK_MS / 1000} s loses its key to a retry, and then can no longer write. Malformed: 400.${keepResponses ? "" : " This operation's response carries a secret shown once, which is never stored: a retry with the key is a 409 `idempotency_replay_unavailable` (the write is not run again)."}`,
        examples: [IDEMPOTENCY_KEY_EXAMPLE],
      }),
  });

const replayedHeader = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    schema: { type: "string" as const, enum: ["true"], example: "true" },
    description: `Present (\`true\`) when this is the stored response of an earlier request with the same ${IDEMPOTENCY_KEY_HEADER} (${DRAFT}); nothing was written by this one. Stored are every 2xx and any other answer of a request whose write landed (or may have: a write that failed), so an error replayed carries it too`,
  },
};

const retryAfterHeader = {
  "Retry-After": {
    schema: { type: "integer" as const, example: IN_PROGRESS_RETRY_AFTER_SECONDS },
    description: "Seconds to wait before retrying with the key (RFC 9110 §10.2.3)",
  },
};

type Responses = Record<string, object | undefined>;

/**
 * The answers idempotency adds to a write operation: `Idempotent-Replayed` on each answer of the
 * operation's own (a 2xx, or an error of a request whose write landed, is replayed with it), the
 * 409s (beside any 409 of the operation's own) and the 422 of a reused key.
 */
export function withIdempotencyResponses(responses: Responses, errorResponse: ErrorResponseOf): Responses {
  const result: Responses = {};
  for (const [status, response] of Object.entries(responses)) {
    result[status] = response && {
      ...response,
      headers: { ...((response as { headers?: object }).headers ?? {}), ...replayedHeader },
    };
  }
  const ownOf = (status: number) => (responses[status] as { description?: string } | undefined)?.description;
  const malformedKey = `a malformed \`${IDEMPOTENCY_KEY_HEADER}\` (\`code\` validation_failed, \`details.header\`)`;
  const own400 = result[400] as object | undefined;
  result[400] = own400
    ? { ...own400, description: `${ownOf(400)}; or ${malformedKey}` }
    : errorResponse(`Invalid request: ${malformedKey}`);
  const own = ownOf(409);
  const inProgressText = `A request with the same ${IDEMPOTENCY_KEY_HEADER} is still being processed (\`code\` idempotency_in_progress, with \`Retry-After\`; ${DRAFT}), or it ran and its response is not kept to replay (\`code\` idempotency_replay_unavailable: a write that landed is never run again)`;
  result[409] = {
    ...errorResponse(own ? `${own}. Or: ${inProgressText}` : inProgressText, {
      code: "idempotency_in_progress",
      error: `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed`,
      details: {
        header: IDEMPOTENCY_KEY_HEADER,
        write_committed: false,
        retry_after_seconds: IN_PROGRESS_RETRY_AFTER_SECONDS,
      },
    }),
    // The operation's own 409 may be a replayed answer; the key's own never is.
    headers: own ? { ...retryAfterHeader, ...replayedHeader } : retryAfterHeader,
  };
  result[422] = errorResponse(
    `This ${IDEMPOTENCY_KEY_HEADER} was first used with another method, path or body (\`code\` idempotency_key_reused; ${DRAFT}): send a new key for a new request`,
    {
      code: "idempotency_key_reused",
      error: `This ${IDEMPOTENCY_KEY_HEADER} was used with another request: send a new key for a new request`,
      details: { header: IDEMPOTENCY_KEY_HEADER, first_request: { method: "POST", path: "/api/v1/pages" } },
    },
  );
  return result;
}
