import { contentDisposition } from "../../lib/content-disposition";
import { evaluateRead, hasPreconditions, type Preconditions, readPreconditions } from "../../lib/entity-tags";
import { ApiError } from "../../lib/errors";
import { servedInline } from "./content-types";

// How stored bytes go out: with their stored type, as an attachment unless a browser only
// displays that type (never HTML, SVG, XML or scripts inline), and in a sandbox (no scripts, no
// same-origin access, even if a browser were to render it). `X-Content-Type-Options: nosniff` is
// on every response of the service.

/** Every media response: the document, if a browser shows it, runs nothing and has an opaque origin. */
export const MEDIA_CSP = "sandbox";

export interface ServedObject {
  /** 200 the whole file, 206 one range of it, 304 not modified (no body). */
  status: 200 | 206 | 304;
  body: ReadableStream | null;
  headers: Record<string, string>;
}

/**
 * What a GET of stored bytes asks beyond the bytes: its preconditions (RFC 9110 §13.1.1 If-Match,
 * §13.1.2 If-None-Match, against the object's ETag) and one byte range (§14.2 Range, §13.1.5 If-Range).
 */
export interface BytesRequest {
  preconditions: Preconditions;
  range: string | null;
  ifRange: string | null;
}

export const bytesRequestOf = (headers: Headers): BytesRequest => ({
  preconditions: readPreconditions(headers),
  range: headers.get("Range"),
  ifRange: headers.get("If-Range"),
});

/** One range of bytes-unit (RFC 9110 §14.1.2): first-last, first-, or the last n. */
type ByteRange = { first: number; last: number | null } | { suffix: number };

/**
 * The one range a `Range` field asks for; null when the server is to ignore it (RFC 9110 §14.2:
 * another unit, a malformed field, or several ranges, which this service serves whole).
 */
function parseRange(header: string): ByteRange | null {
  const match = /^bytes=\s*(\d*)-(\d*)\s*$/.exec(header.trim());
  if (!match) return null;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return null;
  if (first === "") return { suffix: Number(last) };
  const range = { first: Number(first), last: last === "" ? null : Number(last) };
  return range.last !== null && range.last < range.first ? null : range;
}

/** The range as offsets within `size`, or null when none of it lies within (416). */
function resolveRange(range: ByteRange, size: number): { offset: number; length: number } | null {
  if ("suffix" in range) {
    if (range.suffix === 0 || size === 0) return null;
    const length = Math.min(range.suffix, size);
    return { offset: size - length, length };
  }
  if (range.first >= size) return null;
  const last = Math.min(range.last ?? size - 1, size - 1);
  return { offset: range.first, length: last - range.first + 1 };
}

/**
 * Reads an object for a GET as an object store answers one: without preconditions or `Range`, one
 * `get`; with them, its metadata first (`head`), then 304 when `If-None-Match` names its ETag, 412
 * when `If-Match` names another, 416 when the range lies outside it, else the bytes asked for
 * (206 with one range). Null when there is no such object.
 */
export async function readRequested(
  bucket: R2Bucket,
  path: string,
  request: BytesRequest,
  headersOf: (object: R2Object) => Record<string, string>,
): Promise<ServedObject | null> {
  const range = request.range === null ? null : parseRange(request.range);
  if (!hasPreconditions(request.preconditions) && range === null) {
    const object = await bucket.get(path);
    return object && { status: 200, body: object.body, headers: { ...headersOf(object), "Accept-Ranges": "bytes" } };
  }
  const head = await bucket.head(path);
  if (!head) return null;
  const headers: Record<string, string> = { ...headersOf(head), "Accept-Ranges": "bytes" };
  if (evaluateRead(request.preconditions, head.httpEtag) === "not_modified") {
    const { "Content-Length": _length, ...kept } = headers;
    return { status: 304, body: null, headers: kept };
  }
  // If-Range: the range applies only to the version it names (strong comparison), else the whole file.
  const ranged = range !== null && (request.ifRange === null || request.ifRange === head.httpEtag) ? range : null;
  const resolved = ranged === null ? null : resolveRange(ranged, head.size);
  if (ranged !== null && resolved === null) {
    throw new ApiError(
      "range_not_satisfiable",
      "The range asked for lies outside the file",
      { size: head.size },
      { "Content-Range": `bytes */${head.size}` },
    );
  }
  // Stored objects are never rewritten in place; the condition makes the bytes those of the version checked.
  const object = await bucket.get(path, {
    onlyIf: { etagMatches: head.etag },
    ...(resolved ? { range: resolved } : {}),
  });
  if (!object || !("body" in object)) return null;
  if (!resolved) return { status: 200, body: object.body, headers };
  return {
    status: 206,
    body: object.body,
    headers: {
      ...headers,
      "Content-Length": String(resolved.length),
      "Content-Range": `bytes ${resolved.offset}-${resolved.offset + resolved.length - 1}/${head.size}`,
    },
  };
}

/**
 * Headers for an object served through a signed link, from what was stored with it: the
 * disposition written at upload, and always `attachment` for a type a browser could run.
 */
export function signedObjectHeaders(object: R2Object, maxAgeSeconds: number): Record<string, string> {
  const contentType = object.httpMetadata?.contentType ?? "application/octet-stream";
  const stored = object.httpMetadata?.contentDisposition;
  const disposition = servedInline(contentType)
    ? (stored ?? "inline")
    : stored?.startsWith("attachment")
      ? stored
      : "attachment";
  return {
    "Content-Type": contentType,
    "Content-Length": String(object.size),
    "Content-Disposition": disposition,
    "Content-Security-Policy": MEDIA_CSP,
    ETag: object.httpEtag,
    "Cache-Control": `private, max-age=${Math.max(0, Math.min(maxAgeSeconds, 3600))}`,
  };
}

/** Headers for a download through the API: always an attachment, never cached. */
export function downloadHeaders(
  object: R2Object,
  record: { filename: string; content_type: string },
): Record<string, string> {
  return {
    "Content-Type": record.content_type,
    "Content-Length": String(object.size),
    "Content-Disposition": contentDisposition("attachment", record.filename),
    "Content-Security-Policy": MEDIA_CSP,
    ETag: object.httpEtag,
    "Cache-Control": "private, no-store",
  };
}
