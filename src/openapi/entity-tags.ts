import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../lib/context";
import {
  entityTag,
  evaluateRead,
  type Preconditions,
  parseTagCondition,
  readPreconditions,
  type Validator,
  validatorOf,
} from "../lib/entity-tags";
import { ApiError, type Refusal } from "../lib/errors";

// The contract and the answers of operations on one resource that carry validators (RFC 9110
// §8.8.3) and take preconditions (§13.1.1 If-Match, §13.1.2 If-None-Match): declared once by
// `defineRoute`'s `entityTag`, answered by `answerTagged` from the validator of what the service
// presented.

/**
 * How an operation takes part: `read` answers the resource with its `ETag` and honours both
 * preconditions (304 when `If-None-Match` matches); `write` changes it, applying only while the
 * preconditions hold (412 otherwise), and answers the new `ETag`; `remove` changes or removes it
 * under the same preconditions, answering no representation of it; `create` makes a new one and
 * answers its first `ETag` (RFC 9110 §15.3.2: the validators of a 201 are those of the new
 * resource), taking no preconditions (there is no version yet to hold a write to).
 */
export type EntityTagRole = "read" | "write" | "remove" | "create";

/** A block's tag as the service writes one (its id, version 3 and creation time); tags are opaque, each names one version of one resource. */
const TAG_EXAMPLE = '"b.WyI2ZjFjMmE3ZS0yZjBlLTRhNTUtOWE4My02YTFmNGYxYjJjM2QiLDMsIjIwMjYtMTEtMjNUMDk6MzA6MDAuMDAwWiJd"';

/** `ETag` as a response declares it: for an answer that carries a resource's tag outside `entityTag` roles. */
export const ETAG_HEADER = {
  ETag: {
    schema: { type: "string" as const, example: TAG_EXAMPLE },
    description:
      "The strong entity tag of the resource as answered (RFC 9110 §8.8.3): it changes with every change of the resource. Send it back in `If-Match` to write only over this version, or in `If-None-Match` to read only if it changed.",
  },
};

const preconditionHeaders = (role: EntityTagRole) =>
  z.object({
    "If-Match": z
      .string()
      .optional()
      .openapi({
        description:
          role === "read"
            ? "Answer only if the resource's current entity tag is one of these (RFC 9110 §13.1.1, strong comparison), else 412; `*`: only if it exists."
            : "Apply the change only if the resource's current entity tag is one of these (RFC 9110 §13.1.1, strong comparison); checked inside the write itself, so of two writers sending the same tag exactly one succeeds. A stale tag is a 412 `precondition_failed` and nothing is written; `*`: only if the resource exists. Without it the write applies to whatever is current.",
        examples: [TAG_EXAMPLE],
      }),
    "If-None-Match": z
      .string()
      .optional()
      .openapi({
        description:
          role === "read"
            ? "Answer 304 Not Modified, with no body, if the resource's current entity tag is one of these (RFC 9110 §13.1.2, weak comparison), or for `*`."
            : "Apply the change only if the resource's current entity tag is none of these (RFC 9110 §13.1.2, weak comparison), else 412; `*` always fails on an existing resource.",
        examples: [TAG_EXAMPLE],
      }),
  });

/** How the contract writes an error response (define-route's errorResponse). */
export type ErrorResponseOf = (description: string, example?: Refusal) => object;

const preconditionFailedResponse = (errorResponse: ErrorResponseOf) => ({
  ...errorResponse(
    "Precondition Failed (RFC 9110 §15.5.13; `code` precondition_failed): `If-Match` named no current entity tag, or `If-None-Match` named the current one. Nothing was written; `ETag` and `details.etag` carry the current tag, to read the resource again and decide.",
    {
      error: "The precondition did not hold: the resource changed since the tag you sent (see details.etag)",
      code: "precondition_failed",
      details: { etag: TAG_EXAMPLE },
    },
  ),
  headers: ETAG_HEADER,
});

const notModifiedResponse = {
  description:
    "Not Modified (RFC 9110 §15.4.5): `If-None-Match` named the current entity tag. No body; the `ETag` is the one the client holds.",
  headers: ETAG_HEADER,
};

type Responses = Record<string, object>;
interface TaggedConfig {
  request?: { headers?: unknown };
  responses: Responses;
}

/** The route's request headers with `more` beside its own. */
const withRequestHeaders = <R extends TaggedConfig>(config: R, more: z.ZodObject): R["request"] => ({
  ...config.request,
  headers: config.request?.headers ? (config.request.headers as z.ZodObject).extend(more.shape) : more,
});

/** The route's contract with its precondition headers, `ETag` on its answers of the resource, and its 304 and 412. */
export function declareEntityTags<R extends TaggedConfig>(
  config: R,
  role: EntityTagRole,
  errorResponse: ErrorResponseOf,
): R {
  const responses: Responses = { ...config.responses };
  if (role !== "remove") {
    for (const [status, response] of Object.entries(responses)) {
      if (!status.startsWith("2")) continue;
      const headers = (response as { headers?: object }).headers;
      responses[status] = { ...response, headers: { ...headers, ...ETAG_HEADER } };
    }
  }
  if (role === "create") return { ...config, responses };
  if (role === "read") {
    // A 304 the route declares brings the headers it sends besides the tag.
    const own = (responses[304] as { headers?: object } | undefined)?.headers;
    responses[304] = { ...notModifiedResponse, headers: { ...own, ...ETAG_HEADER } };
  }
  responses[412] = preconditionFailedResponse(errorResponse);
  return { ...config, request: withRequestHeaders(config, preconditionHeaders(role)), responses };
}

// A write of a resource that has no entity tag (a comment, a mention, an API key, a push
// subscription; a creation, whose target is the collection it adds to) still answers `If-Match`
// (RFC 9110 §13.1.1: the server MUST NOT perform the method when the condition is false). Such a
// resource has no current entity tag, so a listed tag never matches: 412, before the write, with no
// `ETag` (there is none). `*` asks only that it exist, and the route's own 404 covers that.

const TAGLESS_IF_MATCH = z.object({
  "If-Match": z
    .string()
    .optional()
    .openapi({
      description:
        "This resource has no entity tag (RFC 9110 §13.1.1): `*` applies the change if the resource exists (as without the field); a list of tags can match none, so it is a 412 `precondition_failed` and nothing is written. Malformed: 400.",
      examples: ["*"],
    }),
});

const NO_ENTITY_TAG_MESSAGE =
  "The precondition did not hold: this resource has no entity tag, so If-Match can name no version of it (send If-Match: * or none)";

const taglessPreconditionFailedResponse = (errorResponse: ErrorResponseOf) =>
  errorResponse(
    "Precondition Failed (RFC 9110 §13.1.1, §15.5.13; `code` precondition_failed): `If-Match` listed entity tags, and this resource has none, so none can match. Nothing was written; no `ETag` is sent. Checked after authentication and before the request is read further, so a listed tag is a 412 even where the resource does not exist.",
    { error: NO_ENTITY_TAG_MESSAGE, code: "precondition_failed", details: { header: "If-Match" } },
  );

/** The contract of a write whose resource has no entity tag: its `If-Match` and the 412 of a listed tag. */
export function declareNoEntityTag<R extends TaggedConfig>(config: R, errorResponse: ErrorResponseOf): R {
  return {
    ...config,
    request: withRequestHeaders(config, TAGLESS_IF_MATCH),
    responses: { ...config.responses, 412: taglessPreconditionFailedResponse(errorResponse) },
  };
}

/**
 * Holds a write whose resource has no entity tag to its `If-Match`: a listed tag can never match
 * (412), `*` goes on (the route answers 404 when there is nothing), a malformed field is a 400 as
 * everywhere.
 */
export const noEntityTagToMatch: MiddlewareHandler = async (c, next) => {
  const field = c.req.raw.headers.get("If-Match");
  if (field && parseTagCondition(field, "If-Match") !== "*") {
    throw new ApiError("precondition_failed", NO_ENTITY_TAG_MESSAGE, { header: "If-Match" });
  }
  await next();
};

// A read of what has no entity tag (a listing, a tree, an export) answers its preconditions too
// (RFC 9110 §13.1.1, §13.1.2, in §13.2.2's order), once the route has found what it reads (its 404
// comes first): a listed If-Match tag can match nothing (412); If-None-Match `*` is false for what
// exists (304); a listed If-None-Match tag matches nothing, so the answer is sent as without it.

const TAGLESS_READ_PRECONDITIONS = z.object({
  "If-Match": z
    .string()
    .optional()
    .openapi({
      description:
        "This answer has no entity tag (RFC 9110 §13.1.1): `*` answers as without the field; a list of tags can match none, so it is a 412 `precondition_failed`. Malformed: 400.",
      examples: ["*"],
    }),
  "If-None-Match": z
    .string()
    .optional()
    .openapi({
      description:
        "This answer has no entity tag (RFC 9110 §13.1.2): `*` answers 304 Not Modified with no body (what it names exists); a list of tags matches none, so the answer is sent as without the field. Malformed: 400.",
      examples: ["*"],
    }),
});

const taglessReadPreconditionFailedResponse = (errorResponse: ErrorResponseOf) =>
  errorResponse(
    "Precondition Failed (RFC 9110 §13.1.1, §15.5.13; `code` precondition_failed): `If-Match` listed entity tags, and this answer has none, so none can match. No `ETag` is sent. A 404 comes first.",
    { error: NO_ENTITY_TAG_MESSAGE, code: "precondition_failed", details: { header: "If-Match" } },
  );

const taglessNotModifiedResponse = {
  description:
    "Not Modified (RFC 9110 §15.4.5): `If-None-Match: *`, and what the request names exists. No body, no `ETag` (this answer has none).",
};

/** The contract of a read whose answer has no entity tag: its two preconditions, 304 and 412. */
export function declareNoEntityTagOnRead<R extends TaggedConfig>(config: R, errorResponse: ErrorResponseOf): R {
  return {
    ...config,
    request: withRequestHeaders(config, TAGLESS_READ_PRECONDITIONS),
    responses: {
      ...config.responses,
      304: taglessNotModifiedResponse,
      412: taglessReadPreconditionFailedResponse(errorResponse),
    },
  };
}

/** Headers of a 2xx answer that describe its body, which a 304 does not send (RFC 9110 §15.4.5). */
const BODY_HEADERS = ["Content-Type", "Content-Length", "Content-Disposition", "Content-Encoding"];

/**
 * Replaces the route's answer with `answer`, the route's body let go. Hono's `c.res` setter copies
 * the old answer's headers onto the new one (an export's Content-Disposition, a listing's
 * pagination): the old answer is dropped first, so `answer` goes out with its own headers only.
 */
async function replaceAnswer(c: Context, answer: Response): Promise<void> {
  await c.res.body?.cancel();
  c.res = undefined as unknown as Response;
  c.res = answer;
}

/**
 * Holds a read whose answer has no entity tag to its preconditions, as the comment above says. A
 * malformed field is a 400 before the route runs; the rest is decided on the route's answer, so a
 * 404 (or any refusal) stands as it is. The 412 is the error envelope, as every refusal is.
 */
export const noEntityTagOnRead: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { ifMatch, ifNoneMatch } = readPreconditions(c.req.raw.headers);
  if (ifMatch === undefined && ifNoneMatch === undefined) return next();
  await next();
  if (c.res.status < 200 || c.res.status >= 300) return;
  if (ifMatch !== undefined && ifMatch !== "*") {
    const refusal = new ApiError("precondition_failed", NO_ENTITY_TAG_MESSAGE, { header: "If-Match" });
    const body = { ...refusal.body, request_id: c.get("ctx")?.requestId ?? "" };
    await replaceAnswer(c, Response.json(body, { status: refusal.status }));
    return;
  }
  if (ifNoneMatch === "*") {
    const headers = new Headers(c.res.headers);
    for (const name of BODY_HEADERS) headers.delete(name);
    await replaceAnswer(c, new Response(null, { status: 304, headers }));
  }
};

/** The preconditions of the request (`If-Match`, `If-None-Match`); a malformed one is a 400. */
export const preconditionsOf = (c: Context): Preconditions => readPreconditions(c.req.raw.headers);

/** Sets `ETag` for a validator; on GET and HEAD, true when `If-None-Match` names it (answer 304). A failed `If-Match` throws 412. */
export function tagAnswer(c: Context, validator: Validator): boolean {
  const tag = entityTag(validator);
  c.header("ETag", tag);
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return false;
  return evaluateRead(preconditionsOf(c), tag) === "not_modified";
}

/**
 * Answers a presented resource as JSON with its `ETag` (the validator its service recorded, or the
 * one given: a schema change answers the schema's), or, for a GET whose `If-None-Match` names that
 * tag, 304 with no body (RFC 9110 §15.4.5).
 */
export function answerTagged<C extends Context, T extends object, S extends ContentfulStatusCode>(
  c: C,
  value: T,
  status: S,
  validator = validatorOf(value),
) {
  if (validator && tagAnswer(c, validator)) return c.body(null, 304) as unknown as ReturnType<typeof c.json<T, S>>;
  return c.json(value, status);
}
