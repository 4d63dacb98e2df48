import type { RequestContext, UserContext } from "../../lib/context";
import { badRequest, forbidden } from "../../lib/errors";
import type { MediaSignedUrl, ResolvedMediaUrl } from "../../schemas/media";
import { DEFAULT_EXPIRES_IN_SECONDS, MEDIA_BUCKET, mediaSigningSecret, ownOrigins } from "./config";
import { checkedPath, FOREIGN_REASON_MESSAGES, folderOf, readMediaUrl } from "./locations";
import type { MediaRecord } from "./presenter";
import { findOwnMedia, type MediaKey, mediaNotFound } from "./queries";
import { type BytesRequest, downloadHeaders, readRequested, type ServedObject, signedObjectHeaders } from "./serving";
import { issueSignedUrl, verifyTarget } from "./signing";

// Ways to reach the bytes: signed links (minted for the caller's own media, served to anyone who
// holds one until it expires), resolving URLs found in content, and downloads through the API.
// A location is checked as written (locations.ts), then held to the caller's own folder, then
// looked up among the caller's own records: another user's media is a 404 at every step, and a
// location that fails is refused, never tried again some other way. Nothing here fetches a URL:
// bytes only ever come from the MEDIA binding.

/** Where an object is, as a caller names it. */
export interface MediaLocation {
  bucket: string;
  path: string;
}

/**
 * A location the caller may name: this service's bucket and a path in the caller's own folder
 * (`<user_id>/...`), else a 404 (before any lookup). A malformed path is a 400.
 */
export function ownLocation(ctx: UserContext, location: MediaLocation): MediaLocation {
  const path = checkedPath(location.path);
  if (location.bucket !== MEDIA_BUCKET || folderOf(path) !== ctx.actor.userId) {
    throw mediaNotFound({ bucket: location.bucket, path });
  }
  return { bucket: location.bucket, path };
}

async function linkFor(
  ctx: UserContext,
  secret: string,
  record: MediaRecord,
  origin: string,
  expiresIn: number,
): Promise<MediaSignedUrl> {
  const link = await issueSignedUrl(secret, origin, record, ctx.now(), expiresIn);
  return {
    signed: true,
    signedUrl: link.signedUrl,
    url: link.signedUrl,
    expires_at: link.expiresAt,
    id: record.id,
    bucket: record.bucket,
    path: record.path,
  };
}

/** A fresh signed URL for the caller's media, named by id or by location. */
export async function signedUrlFor(
  ctx: UserContext,
  key: MediaKey,
  origin: string,
  expiresIn = DEFAULT_EXPIRES_IN_SECONDS,
): Promise<MediaSignedUrl> {
  const secret = mediaSigningSecret(ctx);
  const record = await findOwnMedia(ctx, "id" in key ? key : ownLocation(ctx, key));
  return linkFor(ctx, secret, record, origin, expiresIn);
}

export type ResolveInput = ({ url: string } | MediaLocation) & { expiresIn?: number };

/**
 * A URL from content (or a location) to something a client can fetch: this service's own URL
 * forms (its signed links, expired or not, and storage URLs on its origins) become a fresh
 * signed URL for the caller's own media; any other URL comes back unchanged with `signed: false`.
 */
export async function resolveMedia(ctx: UserContext, input: ResolveInput, origin: string): Promise<ResolvedMediaUrl> {
  if ("url" in input) {
    const read = readMediaUrl(input.url, ownOrigins(ctx.env, origin));
    if (!read.own) return { signed: false, signedUrl: null, url: input.url, expires_at: null };
    return signedUrlFor(ctx, { bucket: read.bucket, path: read.path }, origin, input.expiresIn);
  }
  return signedUrlFor(ctx, { bucket: input.bucket, path: input.path }, origin, input.expiresIn);
}

/** The location one of this service's URLs names; any other URL is a 400 saying why (it is never fetched). */
function ownStorageUrl(ctx: UserContext, url: string, origin: string): MediaLocation {
  const read = readMediaUrl(url, ownOrigins(ctx.env, origin));
  if (!read.own) {
    throw badRequest(`Only this service's media can be downloaded: ${FOREIGN_REASON_MESSAGES[read.reason]}`, {
      field: "url",
      reason: read.reason,
    });
  }
  return { bucket: read.bucket, path: read.path };
}

/** What a download asks for when it asks for nothing more than the bytes. */
const WHOLE_FILE: BytesRequest = { preconditions: {}, range: null, ifRange: null };

/**
 * The bytes of the caller's own media, named by one of this service's URLs or by location; a GET's
 * preconditions and range (`request`) are answered as an object store answers them (readRequested).
 */
export async function downloadMedia(
  ctx: UserContext,
  input: { url: string } | MediaLocation,
  origin: string,
  request: BytesRequest = WHOLE_FILE,
): Promise<ServedObject> {
  const location = "url" in input ? ownStorageUrl(ctx, input.url, origin) : input;
  const record = await findOwnMedia(ctx, ownLocation(ctx, location));
  await ctx.confirmCaller();
  const served = await readRequested(ctx.env.MEDIA, record.path, request, (object) => downloadHeaders(object, record));
  if (!served) throw mediaNotFound({ bucket: record.bucket, path: record.path });
  return served;
}

/**
 * A link's expiry as it is signed: Unix seconds in decimal digits, without a leading zero. Any other
 * spelling of the same instant (`0` in front) is refused, so a signed link has exactly one form.
 */
const SIGNED_EXPIRY = /^[1-9]\d{0,11}$/;

export interface SignedQuery {
  bucket: string;
  path: string;
  expires: string;
  signature: string;
}

/**
 * The object a signed link names, for anyone holding the link: a 403 when the signature does not
 * match the bucket, path and expiry (any of them altered), or when the link has expired; never
 * the bytes. Costs no D1 round trip.
 */
export async function openSignedMedia(
  ctx: RequestContext,
  query: SignedQuery,
  request: BytesRequest = WHOLE_FILE,
): Promise<ServedObject> {
  const secret = mediaSigningSecret(ctx);
  const refused = (reason: "invalid_signature" | "expired") =>
    forbidden(reason === "expired" ? "This media link has expired" : "This media link is not valid", { reason });
  const expires = SIGNED_EXPIRY.test(query.expires) ? Number(query.expires) : Number.NaN;
  if (!Number.isSafeInteger(expires)) throw refused("invalid_signature");
  const target = { bucket: query.bucket, path: query.path, expires };
  if (!(await verifyTarget(secret, target, query.signature))) throw refused("invalid_signature");
  const remaining = expires - Math.floor(ctx.now().getTime() / 1000);
  if (remaining <= 0) throw refused("expired");
  if (target.bucket !== MEDIA_BUCKET) throw mediaNotFound({ bucket: target.bucket });
  const served = await readRequested(ctx.env.MEDIA, target.path, request, (object) =>
    signedObjectHeaders(object, remaining),
  );
  if (!served) throw mediaNotFound({ bucket: target.bucket, path: target.path });
  return served;
}
