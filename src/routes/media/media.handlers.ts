import type { Context } from "hono";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { MEDIA_BUCKET } from "../../services/media/config";
import { downloadMedia, openSignedMedia, resolveMedia, signedUrlFor } from "../../services/media/links";
import { listMedia, searchMedia } from "../../services/media/queries";
import { bytesRequestOf, type ServedObject } from "../../services/media/serving";
import { deleteMedia, getMediaMetadata, patchMediaMetadata, uploadMedia } from "../../services/media/storage";
import { checkedMetadata, readUploadRequest } from "../../services/media/upload-request";
import type * as routes from "./media.routes";

/** This Worker's origin, as the client reached it: signed URLs are built on it. */
const originOf = (c: Context) => new URL(c.req.url).origin;

export const upload: Handler<typeof routes.upload> = async (c) => {
  const ctx = c.get("ctx");
  const input = await readUploadRequest(ctx, c.req.raw);
  return answerTagged(c, await uploadMedia(ctx, input, originOf(c)), 201);
};

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listMedia(c.get("ctx"), window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const search: Handler<typeof routes.search> = async (c) => {
  const { limit, offset, cursor, ...filter } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await searchMedia(c.get("ctx"), filter, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const urlById: Handler<typeof routes.urlById> = async (c) =>
  c.json(
    await signedUrlFor(c.get("ctx"), { id: c.req.valid("param").id }, originOf(c), c.req.valid("query").expiresIn),
    200,
  );

export const urlByPath: Handler<typeof routes.urlByPath> = async (c) => {
  const query = c.req.valid("query");
  const location = { bucket: query.bucket ?? MEDIA_BUCKET, path: query.path };
  return c.json(await signedUrlFor(c.get("ctx"), location, originOf(c), query.expiresIn), 200);
};

export const getMetadata: Handler<typeof routes.getMetadata> = async (c) =>
  answerTagged(c, await getMediaMetadata(c.get("ctx"), c.req.valid("param").id), 200);

export const patchMetadata: Handler<typeof routes.patchMetadata> = async (c) => {
  const patch = checkedMetadata(c.req.valid("json"));
  const metadata = await patchMediaMetadata(c.get("ctx"), c.req.valid("param").id, patch, preconditionsOf(c));
  return answerTagged(c, metadata, 200);
};

export const remove: Handler<typeof routes.remove> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteMedia(c.get("ctx"), id, preconditionsOf(c));
  return c.json({ success: true, message: "Media deleted", id }, 200);
};

export const resolve: Handler<typeof routes.resolve> = async (c) => {
  const { url, bucket, path, expiresIn } = c.req.valid("json");
  const input =
    url !== undefined ? { url, expiresIn } : { bucket: bucket ?? MEDIA_BUCKET, path: path ?? "", expiresIn };
  return c.json(await resolveMedia(c.get("ctx"), input, originOf(c)), 200);
};

export const downloadByQuery: Handler<typeof routes.downloadByQuery> = async (c) => {
  const request = bytesRequestOf(c.req.raw.headers);
  const served = await downloadMedia(c.get("ctx"), { url: c.req.valid("query").url }, originOf(c), request);
  return sendServed(c, served);
};

export const downloadByBody: Handler<typeof routes.downloadByBody> = async (c) => {
  const { url, bucket, path } = c.req.valid("json");
  const input = url !== undefined ? { url } : { bucket: bucket ?? MEDIA_BUCKET, path: path ?? "" };
  const served = await downloadMedia(c.get("ctx"), input, originOf(c));
  // A POST's answer is the bytes, not its target's representation: no validator of it (the file's
  // ETag comes with GET), and no ranges to ask for (RFC 9110 §14.2 is for GET).
  const { "Accept-Ranges": _ranges, ETag: _tag, ...headers } = served.headers;
  return c.body(served.body ?? new ReadableStream(), 200, headers);
};

export const serveSigned: Handler<typeof routes.serveSigned> = async (c) => {
  const served = await openSignedMedia(c.get("ctx"), c.req.valid("query"), bytesRequestOf(c.req.raw.headers));
  return sendServed(c, served);
};

/** Stored bytes as read: the whole file (200), one range (206), or 304 with no body. */
function sendServed(c: Context, served: ServedObject) {
  if (served.body === null) return c.body(null, 304, served.headers);
  return c.body(served.body, served.status === 206 ? 206 : 200, served.headers);
}
