import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { mergePatchBody } from "../../openapi/body-media-type";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import {
  DeleteMediaResponseSchema,
  MediaFileSchema,
  MediaMetadataSchema,
  MediaSignedUrlSchema,
  ResolvedMediaUrlSchema,
  UploadedMediaSchema,
} from "../../schemas/media";
import { MEDIA_BUCKET, maxJsonUploadBytes, maxUploadBytes, uploadBodyLimit } from "../../services/media/config";
import {
  DownloadMediaBody,
  DownloadQuery,
  EXPIRES_IN_DESCRIPTION,
  ListMediaQuery,
  MediaIdParams,
  MetadataPatchBody,
  PathUrlQuery,
  ResolveMediaBody,
  SearchMediaQuery,
  SignedMediaQuery,
  SignedUrlQuery,
  uploadBody,
} from "./media.schemas";

const tags = ["Media"];
const base = "/api/v1/media";

// The upload limit is configuration (MEDIA_MAX_UPLOAD_BYTES), read once when the Worker starts:
// it is the upload route's own body limit, held before any byte of the body is read.
const MAX_FILE_BYTES = maxUploadBytes(env);
const MAX_JSON_FILE_BYTES = maxJsonUploadBytes(env);

const OWN_ONLY =
  "Only the caller's own media: another user's (or a path outside the caller's `<user_id>/` folder) is a 404.";
const LISTING =
  "Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.";
const SIGNED_URLS = `Signed URLs are served by this service (\`GET /media/signed\`) and need no credential until they expire. ${EXPIRES_IN_DESCRIPTION}.`;
const NOT_CONFIGURED = errorResponse(
  "Signed URLs are not configured on this server (`code` unavailable; `details.setting` names MEDIA_SIGNING_SECRET)",
);
const BYTES = (description: string) => ({
  description,
  content: { "*/*": { schema: { type: "string" as const, format: "binary" } } },
});

const listing = (description: string) => ({
  ...jsonContent(z.array(MediaFileSchema), description),
  headers: paginationHeaders,
});

export const upload = defineRoute({
  operationId: "uploadMedia",
  noStore: true,
  entityTag: "create",
  method: "post",
  path: `${base}/upload`,
  tags,
  access: "user",
  location: "/api/v1/media/{id}/metadata",
  summary: "Upload a file",
  description: `Stores a file in the caller's folder (\`<user_id>/<unique name>\`) with its record. Multipart: a file part named \`file\`, optional text fields \`filename\` (stored instead of the part's own name) and \`metadata\` (a JSON object); or JSON with the file in \`content_base64\` (at most ${MAX_JSON_FILE_BYTES} bytes decoded). The content type is taken from the bytes (magic numbers; HTML, SVG and XML by their first tags) when the declared one disagrees. 400 for a missing or empty file; 413 above ${MAX_FILE_BYTES} bytes (MEDIA_MAX_UPLOAD_BYTES), refused before the body is read when it says its length. Answers the record with a signed URL valid for 1 hour, and in \`ETag\` the tag of its metadata (\`Location\`), as GET of it answers.`,
  request: { body: uploadBody },
  bodyLimit: uploadBodyLimit(env),
  responses: {
    201: jsonContent(UploadedMediaSchema, "The stored file's record, with a signed URL"),
    413: errorResponse(
      `The file is larger than ${MAX_FILE_BYTES} bytes (MEDIA_MAX_UPLOAD_BYTES; ${MAX_JSON_FILE_BYTES} in JSON) (\`code\` payload_too_large)`,
    ),
    415: errorResponse("Neither multipart/form-data nor JSON (`code` unsupported_media_type)"),
    503: NOT_CONFIGURED,
  },
});

export const list = defineRoute({
  operationId: "listMedia",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "The caller's media",
  description: `The caller's files, newest first. ${LISTING}`,
  request: { query: ListMediaQuery },
  responses: { 200: listing("One page of the caller's media") },
});

export const search = defineRoute({
  operationId: "searchMedia",
  method: "get",
  path: `${base}/search`,
  tags,
  access: "user",
  summary: "Search the caller's media",
  description: `The caller's files matching every condition given: \`q\` (each word in the filename or the metadata), \`content_type\` (a prefix such as \`image/\`), \`created_after\`/\`created_before\` (exclusive). Newest first. ${LISTING}`,
  request: { query: SearchMediaQuery },
  responses: { 200: listing("One page of matching media") },
});

export const urlById = defineRoute({
  operationId: "getMediaUrl",
  noStore: true,
  method: "get",
  path: `${base}/{id}/url`,
  tags,
  access: "user",
  summary: "A signed URL for a file",
  description: `A fresh signed URL for the file with this id. ${SIGNED_URLS} ${OWN_ONLY}`,
  request: { params: MediaIdParams, query: SignedUrlQuery },
  responses: { 200: jsonContent(MediaSignedUrlSchema, "A signed URL"), 503: NOT_CONFIGURED },
});

export const urlByPath = defineRoute({
  operationId: "getMediaUrlByPath",
  noStore: true,
  method: "get",
  path: `${base}/url`,
  tags,
  access: "user",
  summary: "A signed URL for a path",
  description: `A fresh signed URL for the file at \`path\` in bucket \`${MEDIA_BUCKET}\`. A malformed path is a 400. ${SIGNED_URLS} ${OWN_ONLY}`,
  request: { query: PathUrlQuery },
  responses: {
    200: jsonContent(MediaSignedUrlSchema, "A signed URL"),
    404: ERROR_RESPONSES[404],
    503: NOT_CONFIGURED,
  },
});

export const getMetadata = defineRoute({
  operationId: "getMediaMetadata",
  entityTag: "read",
  method: "get",
  path: `${base}/{id}/metadata`,
  tags,
  access: "user",
  summary: "A file's metadata",
  description: `The metadata object of the file. ${OWN_ONLY}`,
  request: { params: MediaIdParams },
  responses: { 200: jsonContent(MediaMetadataSchema, "The metadata") },
});

export const patchMetadata = defineRoute({
  operationId: "updateMediaMetadata",
  entityTag: "write",
  method: "patch",
  path: `${base}/{id}/metadata`,
  tags,
  access: "user",
  summary: "Merge into a file's metadata",
  description: `Applies the body to the metadata as an RFC 7396 JSON merge patch (\`application/json\` or \`application/merge-patch+json\`), atomically: keys given replace, nested objects merge, \`null\` removes a key, so concurrent patches of different keys keep each other's. A result above 16 KiB is a 400 and changes nothing. ${OWN_ONLY}`,
  request: {
    params: MediaIdParams,
    body: mergePatchBody(MetadataPatchBody, "MediaMetadataPatch"),
  },
  responses: { 200: jsonContent(MediaMetadataSchema, "The metadata after the patch") },
});

export const remove = defineRoute({
  operationId: "deleteMedia",
  entityTag: "remove",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Delete a file",
  description: `Deletes the file's object and its record together; signed URLs for it stop working. \`If-Match\` takes the metadata's entity tag (as GET and PATCH of \`/{id}/metadata\` answer it): a stale one is a 412 and deletes nothing. ${OWN_ONLY}`,
  request: { params: MediaIdParams },
  responses: { 200: jsonContent(DeleteMediaResponseSchema, "Deleted") },
});

export const resolve = defineRoute({
  operationId: "resolveMediaUrl",
  noStore: true,
  method: "post",
  path: `${base}/resolve`,
  tags,
  access: "user",
  scope: "read",
  summary: "Turn a media URL into a fetchable one",
  description: `Body \`{url}\` (say, from an image block) or \`{bucket, path}\`, with an optional \`expiresIn\`. This service's own URL forms (its signed links, expired or not, and \`/storage/v1/object/{public|sign|authenticated}/<bucket>/<path>\` on its origin or on MEDIA_STORAGE_ORIGIN) resolve to a fresh signed URL (\`signed: true\`); any other URL comes back unchanged with \`signed: false\` and is never fetched. A malformed path is a 400. ${SIGNED_URLS} ${OWN_ONLY}`,
  request: { body: jsonBody(ResolveMediaBody) },
  responses: {
    200: jsonContent(ResolvedMediaUrlSchema, "A signed URL, or the URL unchanged"),
    404: ERROR_RESPONSES[404],
    503: NOT_CONFIGURED,
  },
});

const DOWNLOAD = `The raw bytes, streamed from this service's own storage, as an attachment with the stored content type. Nothing else is ever fetched: an external URL, a loopback, link-local or private address, another scheme, credentials in the URL, a disguised host (decimal or hex IPs, IPv6-mapped IPv4, a trailing dot, another letter case, escapes) is a 400 with \`details.reason\`; so is a malformed path. ${OWN_ONLY}`;

/** Sent with the bytes of a GET (200, 206, 304): a `Range` may ask for part of them. */
const ACCEPT_RANGES = {
  "Accept-Ranges": {
    schema: { type: "string" as const, enum: ["bytes"], example: "bytes" },
    description: "This file can be asked for in byte ranges, with `Range` (RFC 9110 §14.3)",
  },
};

/** Sent with a file's bytes: how to save it, what it may run, how long it may be kept. */
const FILE_HEADERS = {
  "Content-Disposition": {
    schema: { type: "string" as const, example: "inline; filename=\"photo.png\"; filename*=UTF-8''photo.png" },
    description:
      "`attachment` with the file's name; on a signed link `inline` for images, audio, video and plain text, `attachment` for anything a browser could run",
  },
  "Content-Security-Policy": {
    schema: { type: "string" as const, example: "sandbox" },
    description: "A sandbox: nothing in the file runs with this origin's rights",
  },
  "Cache-Control": {
    schema: { type: "string" as const, example: "private, no-store" },
    description:
      "`private, no-store` through the API; on a signed link `private, max-age=` up to an hour, never past its expiry",
  },
};

/** A byte range of the file (RFC 9110 §14), as object stores serve them. */
const RANGE_HEADERS = z.object({
  Range: z
    .string()
    .optional()
    .openapi({
      description:
        "One byte range (RFC 9110 §14.1.2): `bytes=first-last`, `bytes=first-` or `bytes=-suffix`; answered 206 with `Content-Range`, or 416 when it lies outside the file. Several ranges, or another unit, are ignored (the whole file, 200).",
      examples: ["bytes=0-1023"],
    }),
  "If-Range": z
    .string()
    .optional()
    .openapi({
      description:
        "The range applies only if this is the file's current entity tag (RFC 9110 §13.1.5, strong comparison); otherwise the whole file is sent (200).",
      examples: ['"0cc175b9c0f1b6a831c399e269772661"'],
    }),
});

const RANGE_RESPONSES = {
  200: { ...BYTES("The file's bytes"), headers: { ...ACCEPT_RANGES, ...FILE_HEADERS } },
  206: {
    description: "Partial Content (RFC 9110 §15.3.7): the one range asked for, with `Content-Range`",
    headers: {
      ...ACCEPT_RANGES,
      ...FILE_HEADERS,
      "Content-Range": {
        schema: { type: "string" as const, example: "bytes 0-1023/1048576" },
        description: "Which bytes of how many (RFC 9110 §14.4)",
      },
    },
    content: { "*/*": { schema: { type: "string" as const, format: "binary" } } },
  },
  // Its description and ETag come with `entityTag: "read"`.
  304: { description: "Not Modified", headers: ACCEPT_RANGES },
  416: {
    ...errorResponse(
      "Range Not Satisfiable (RFC 9110 §15.5.17; `code` range_not_satisfiable): the range lies outside the file; `Content-Range: bytes */<size>`",
    ),
    headers: {
      "Content-Range": {
        schema: { type: "string" as const, example: "bytes */1048576" },
        description: "The file's size",
      },
    },
  },
};

export const downloadByQuery = defineRoute({
  operationId: "downloadMedia",
  entityTag: "read",
  method: "get",
  path: `${base}/download`,
  tags,
  access: "user",
  summary: "Download a file by URL",
  description: `\`url\` (URL-encoded): a signed link or storage URL of this service. ${DOWNLOAD}`,
  request: { query: DownloadQuery, headers: RANGE_HEADERS },
  responses: { ...RANGE_RESPONSES, 404: ERROR_RESPONSES[404] },
});

export const downloadByBody = defineRoute({
  operationId: "downloadMediaByBody",
  method: "post",
  path: `${base}/download`,
  tags,
  access: "user",
  scope: "read",
  summary: "Download a file by URL or path",
  description: `Body \`{url}\` or \`{bucket, path}\`. ${DOWNLOAD} The whole file, always: for its \`ETag\`, \`If-None-Match\` and byte ranges, GET \`/api/v1/media/download?url=\`.`,
  request: { body: jsonBody(DownloadMediaBody) },
  responses: { 200: { ...BYTES("The file's bytes"), headers: FILE_HEADERS }, 404: ERROR_RESPONSES[404] },
});

export const serveSigned = defineRoute({
  operationId: "getSignedMedia",
  entityTag: "read",
  method: "get",
  path: "/media/signed",
  tags,
  access: "signed",
  summary: "The bytes behind a signed URL (no credential)",
  description:
    "Serves the object a signed URL names, to anyone holding the URL: the signature (HMAC-SHA256 over bucket, path and expiry) is the credential. An altered or expired link is a 403 with the error envelope, never bytes (`details.reason`: `invalid_signature` or `expired`); a deleted file is a 404. Sent with its stored content type, `Content-Disposition: attachment` for anything a browser could run (HTML, SVG, XML, scripts, PDF, unknown types) and `inline` for images, audio, video and plain text, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`.",
  request: { query: SignedMediaQuery, headers: RANGE_HEADERS },
  responses: {
    ...RANGE_RESPONSES,
    403: errorResponse("The link was altered or has expired (`code` forbidden, `details.reason`)"),
    404: errorResponse("The file no longer exists (`code` not_found)"),
    503: NOT_CONFIGURED,
  },
});
