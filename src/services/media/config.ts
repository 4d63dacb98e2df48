import type { RequestContext } from "../../lib/context";
import { requiredSecret } from "../../lib/secrets";

// What the media service is configured with: its bucket's public name, the upload limit, the
// signing secret of its links and their lifetimes, and which origins name its storage.

/** The public name of the MEDIA binding's bucket: what `bucket` fields carry. */
export const MEDIA_BUCKET = "media";

/** Upload size limit when MEDIA_MAX_UPLOAD_BYTES is not set: 25 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const MIN_MAX_UPLOAD_BYTES = 1024;
/**
 * The most MEDIA_MAX_UPLOAD_BYTES may say: Cloudflare refuses request bodies above 100 MB on the
 * Free and Pro plans, and a Worker has 128 MB of memory to hold a multipart body while it is read.
 */
export const MAX_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** Room for a multipart body's framing and text fields, on top of the file itself. */
export const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;
/**
 * A JSON upload carries the file in base64 (4/3 of its size, and held several times over while it
 * is parsed and decoded), so it is for small files: larger ones go as multipart.
 */
export const MAX_JSON_UPLOAD_BYTES = 10 * 1024 * 1024;

/** The largest file an upload may carry (MEDIA_MAX_UPLOAD_BYTES, 1 KiB to 100 MiB; default 25 MiB). */
export function maxUploadBytes(env: Pick<Env, "MEDIA_MAX_UPLOAD_BYTES">): number {
  const configured = Number(env.MEDIA_MAX_UPLOAD_BYTES);
  if (!Number.isSafeInteger(configured) || configured <= 0) return DEFAULT_MAX_UPLOAD_BYTES;
  return Math.min(MAX_MAX_UPLOAD_BYTES, Math.max(MIN_MAX_UPLOAD_BYTES, configured));
}

/** The largest file a JSON (base64) upload may carry. */
export const maxJsonUploadBytes = (env: Pick<Env, "MEDIA_MAX_UPLOAD_BYTES">): number =>
  Math.min(maxUploadBytes(env), MAX_JSON_UPLOAD_BYTES);

/** The largest request body an upload may send: the biggest file in either encoding, plus framing. */
export const uploadBodyLimit = (env: Pick<Env, "MEDIA_MAX_UPLOAD_BYTES">): number =>
  Math.max(maxUploadBytes(env), base64Length(maxJsonUploadBytes(env))) + MULTIPART_ALLOWANCE_BYTES;

/** Characters of the base64 text of `bytes` bytes. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/** Lifetime of a signed URL when `expiresIn` is not given: one hour. */
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const MIN_EXPIRES_IN_SECONDS = 60;
/** Seven days, as S3 presigned URLs allow at most. */
export const MAX_EXPIRES_IN_SECONDS = 7 * 24 * 60 * 60;

/** The key signed URLs are made and checked with, or a 503 naming the problem (lib/secrets.ts). */
export const mediaSigningSecret = (ctx: Pick<RequestContext, "env" | "local">): string =>
  requiredSecret(ctx, {
    name: "MEDIA_SIGNING_SECRET",
    protects: "Media links",
    // Public: the test suite and `wrangler dev` only, so uploads and links work with no setup.
    developmentDefault: "development-only-media-signing-secret-not-for-deployment",
    defaultFor: "local",
  });

/**
 * The origins whose URLs name this service's storage: this Worker's own (the request's) and
 * MEDIA_STORAGE_ORIGIN when set. Compared as exact strings, so an origin written any other way
 * (another case, a trailing dot, credentials, an IP for a name) is not one of them.
 */
export function ownOrigins(env: Pick<Env, "MEDIA_STORAGE_ORIGIN">, requestOrigin: string): string[] {
  const origins = [requestOrigin];
  const configured = env.MEDIA_STORAGE_ORIGIN?.trim();
  if (configured) {
    try {
      const origin = new URL(configured).origin;
      if (origin !== "null" && !origins.includes(origin)) origins.push(origin);
    } catch {
      // A malformed setting names no origin.
    }
  }
  return origins;
}
