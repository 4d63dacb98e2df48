import { type RouteConfig, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../lib/errors";

// A body of a Content-Type the operation does not read is a 415 that says what was sent and what
// would be read, so a client (curl's `-d` sends application/x-www-form-urlencoded unless told
// otherwise) can correct it. The request validators of @hono/zod-openapi refuse the same requests,
// with a bare "Unsupported Media Type"; this check runs before them, with the same rules.

/** A JSON media type, as the validators read one (`application/json`, `application/merge-patch+json`...). */
export const isJsonMediaType = (mediaType: string) => /^application\/([a-z-.]+\+)?json/i.test(mediaType);
const isForm = (mediaType: string) => /^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(mediaType);
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const MULTIPART_REQUEST = /^multipart\/form-data(;\s?boundary=[a-zA-Z0-9'"()+_,\-./:=?]+)?$/i;
const URLENCODED_REQUEST = /^application\/x-www-form-urlencoded(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** Whether a request's Content-Type is read as the declared `mediaType`, as the validators decide it. */
function reads(contentType: string, mediaType: string): boolean {
  if (mediaType === "*/*") return true;
  if (isJsonMediaType(mediaType)) return JSON_REQUEST.test(contentType);
  if (isForm(mediaType)) return MULTIPART_REQUEST.test(contentType) || URLENCODED_REQUEST.test(contentType);
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (mediaType.endsWith("/*")) return essence.startsWith(mediaType.slice(0, -1).toLowerCase());
  return essence === mediaType.toLowerCase();
}

/**
 * The media types a route's body is read as, when its validators check the Content-Type (a zod
 * schema under a JSON or form type); undefined when the handler reads the body itself.
 */
export function checkedBodyMediaTypes(request: RouteConfig["request"]): string[] | undefined {
  const content = request?.body?.content;
  if (!content) return undefined;
  const accepted = Object.keys(content);
  const validated = accepted.some(
    (mediaType) =>
      (content[mediaType] as { schema?: unknown } | undefined)?.schema instanceof z.ZodType &&
      (isJsonMediaType(mediaType) || isForm(mediaType)),
  );
  return validated ? accepted : undefined;
}

/**
 * The body of a PATCH that is an RFC 7396 merge patch: `schema`, registered in the contract under
 * `name`, read as `application/json` or `application/merge-patch+json`. The second type refers to
 * the named schema instead of carrying the zod schema again: @hono/zod-openapi adds a validator for
 * each zod schema under a JSON type, and either validator reads a body of any JSON type, so every
 * body would be validated (and refused) twice. A `name` that is not the schema's registered one
 * leaves a reference to nothing, which `npm run lint:contract` refuses (Redocly's no-unresolved-refs).
 */
export function mergePatchBody<T extends z.ZodType>(
  schema: T,
  name: string,
): { required: true; content: { "application/json": { schema: T } } } {
  // Typed by its JSON entry alone, so handlers read `c.req.valid("json")` as `schema`'s output.
  const body = {
    required: true as const,
    content: {
      "application/json": { schema },
      "application/merge-patch+json": { schema: { $ref: `#/components/schemas/${name}` } },
    },
  };
  return body;
}

/** The 415's header for a PATCH: the patch formats the resource takes (RFC 5789 §2.2, §3.1). */
export const ACCEPT_PATCH_HEADER = {
  "Accept-Patch": {
    schema: { type: "string" as const, example: "application/json, application/merge-patch+json" },
    description: "The media types this PATCH reads (RFC 5789 §3.1)",
  },
};

/**
 * Refuses a body whose Content-Type is not one of `accepted` (or that has none) with a 415 naming
 * what was sent (`details.content_type`, null when none) and what is read (`details.accepted`); on
 * a PATCH also in `Accept-Patch`. A request without a body, or with an empty one, goes on.
 */
export function refuseUnreadMediaType(accepted: string[], method: string): MiddlewareHandler {
  const list = accepted.join(" or ");
  const hint = accepted.some(isJsonMediaType)
    ? ` (send the body as JSON with ${accepted.length === 1 ? "that Content-Type" : "one of them"})`
    : "";
  const headers = method.toLowerCase() === "patch" ? { "Accept-Patch": accepted.join(", ") } : undefined;
  return async (c, next) => {
    const contentType = c.req.header("Content-Type");
    if (
      contentType !== undefined ? accepted.some((mediaType) => reads(contentType, mediaType)) : !(await hasBytes(c))
    ) {
      return next();
    }
    const sent =
      contentType === undefined ? null : (contentType.split(";")[0] ?? "").trim().toLowerCase().slice(0, 255);
    const said = sent === null ? "The body has no Content-Type" : `The body's Content-Type is ${sent}`;
    throw new ApiError(
      "unsupported_media_type",
      `${said}; this operation reads ${list}${hint}`,
      { header: "Content-Type", content_type: sent, accepted },
      headers,
    );
  };
}

/** Whether the request carries any byte (read through Hono's body cache, which the validators read from). */
async function hasBytes(c: Parameters<MiddlewareHandler>[0]): Promise<boolean> {
  if (c.req.raw.body === null) return false;
  return (await c.req.arrayBuffer()).byteLength > 0;
}
