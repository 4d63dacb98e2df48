import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import { contentDisposition } from "../../lib/content-disposition";
import type { RequestContext, UserContext } from "../../lib/context";
import {
  advancedTimestamp,
  assertPreconditions,
  type Preconditions,
  preconditionSql,
  type Validator,
  type Versioned,
  withValidator,
} from "../../lib/entity-tags";
import { badRequest } from "../../lib/errors";
import { hexOf } from "../../lib/hex";
import { newId } from "../../lib/ids";
import { describeError, log } from "../../lib/log";
import type { MediaMetadata, UploadedMedia } from "../../schemas/media";
import { MEDIA_METADATA_MAX_BYTES } from "../../schemas/media";
import { DEFAULT_EXPIRES_IN_SECONDS, MEDIA_BUCKET, mediaSigningSecret } from "./config";
import { SNIFF_BYTES, servedInline, storedContentType } from "./content-types";
import { type MediaRecord, presentMedia } from "./presenter";
import { mediaNotFound } from "./queries";
import { issueSignedUrl } from "./signing";

// A media record and its R2 object are written and removed together. D1 and R2 share no
// transaction, so the writes are ordered to leave a trace in D1 whatever fails; a failed upload is
// undone at once, a failed deletion is finished later:
// - upload: the record is inserted `uploading` (hidden), then the object is put, then the record
//   becomes `ready`. A failed put deletes the record; a failed finalize deletes the object, then
//   the record. No record is shown before its object exists.
// - delete: the record becomes `deleting` (hidden), then the object is deleted, then the record.
//   A deletion once claimed is never undone: a failed object delete leaves the record `deleting`
//   (hidden, with its object), and the next DELETE (or the sweep) finishes it. Making it `ready`
//   again would race a second DELETE that claimed it meanwhile and removed the object: a ready
//   record without object. A failed record delete likewise leaves a hidden record without object.
// Only when an undo fails too, a deletion fails half-way, or the Worker is stopped mid-way does a
// hidden record remain, and `sweepMediaLeftovers` removes it with its object. The work runs under
// `waitUntil`, so a client that goes away does not cut it short.

export interface UploadInput {
  /** The bytes (a multipart file part, or decoded base64). */
  file: Blob;
  filename: string;
  /** The client's Content-Type for the file, if any. */
  declaredType?: string;
  metadata: Record<string, unknown>;
}

/** Characters of an object name taken from the filename, after the record id. */
const NAME_SLUG_LENGTH = 80;

/** `<user_id>/<record id>-<filename as letters, digits, . _ ->`: unique, and readable in a URL. */
export function objectPath(userId: string, id: string, filename: string): string {
  const slug =
    filename
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, NAME_SLUG_LENGTH)
      .replace(/[-.]+$/, "") || "file";
  return `${userId}/${id}-${slug}`;
}

/** One digest over the bytes (already in memory from the form): faster than streaming them through. */
async function sha256Hex(file: Blob): Promise<string> {
  return hexOf(await crypto.subtle.digest("SHA-256", await file.arrayBuffer()));
}

/** Logs a failed undo: the leftover is hidden, and the sweep removes it. */
function logLeftover(ctx: RequestContext, what: string, record: { id: string; path: string }, error: unknown) {
  log(ctx, "error", what, { media_id: record.id, path: record.path, error: describeError(error) });
}

/**
 * Stores a file: its type from the bytes when the declared one disagrees, its SHA-256 (checked
 * again by R2 on the way in), the record and the object together. Answers the record with a
 * signed URL valid for the default lifetime, and the validator of its metadata.
 */
export async function uploadMedia(ctx: UserContext, input: UploadInput, origin: string): Promise<UploadedMedia> {
  // Before anything is written: a server that cannot sign links cannot answer an upload.
  const secret = mediaSigningSecret(ctx);
  const head = new Uint8Array(await input.file.slice(0, SNIFF_BYTES).arrayBuffer());
  const contentType = await storedContentType(head, input.declaredType);
  const timestamp = ctx.now().toISOString();
  const id = newId();
  const record: MediaRecord = {
    id,
    bucket: MEDIA_BUCKET,
    path: objectPath(ctx.actor.userId, id, input.filename),
    filename: input.filename,
    content_type: contentType,
    size: input.file.size,
    sha256: await sha256Hex(input.file),
    metadata: JSON.stringify(input.metadata),
    state: "uploading",
    created_by: ctx.actor.userId,
    created_at: timestamp,
    updated_at: timestamp,
  };
  const work = storeTogether(ctx, record, input.file);
  ctx.waitUntil(work.catch(() => undefined));
  const stored = await work;
  const link = await issueSignedUrl(secret, origin, stored, ctx.now(), DEFAULT_EXPIRES_IN_SECONDS);
  // The validator of what the 201's Location names: the new record's metadata (RFC 9110 §15.3.2).
  const uploaded = { ...presentMedia(stored), signedUrl: link.signedUrl, expires_at: link.expiresAt };
  return withValidator(uploaded, metadataValidator(stored));
}

async function storeTogether(ctx: UserContext, record: MediaRecord, file: Blob): Promise<MediaRecord> {
  // The caller's first D1 call: for a remembered API key it is also the liveness check.
  await batchAll(ctx.db, [
    sql`INSERT INTO media (id, bucket, path, filename, content_type, size, sha256, metadata, state, created_by, created_at, updated_at)
      VALUES (${record.id}, ${record.bucket}, ${record.path}, ${record.filename}, ${record.content_type}, ${record.size},
        ${record.sha256}, ${record.metadata}, 'uploading', ${record.created_by}, ${record.created_at}, ${record.updated_at})`,
  ]);
  await ctx.confirmCaller();
  try {
    await ctx.env.MEDIA.put(record.path, file, {
      httpMetadata: {
        contentType: record.content_type,
        contentDisposition: contentDisposition(
          servedInline(record.content_type) ? "inline" : "attachment",
          record.filename,
        ),
      },
      customMetadata: { media_id: record.id, created_by: record.created_by },
      sha256: record.sha256,
    });
  } catch (error) {
    await forgetPending(ctx, record);
    throw error;
  }
  try {
    const [ready] = await batchAll<[MediaRecord]>(ctx.db, [
      sql`UPDATE media SET state = 'ready' WHERE id = ${record.id} AND state = 'uploading' RETURNING *`,
    ]);
    const stored = ready[0];
    if (!stored) throw new Error("The media record was gone before it could be made ready");
    return stored;
  } catch (error) {
    await removeObjectAndRecord(ctx, record);
    throw error;
  }
}

/** Undoes an upload whose object was not written: its hidden record goes. */
async function forgetPending(ctx: RequestContext, record: MediaRecord): Promise<void> {
  try {
    await batchAll(ctx.db, [sql`DELETE FROM media WHERE id = ${record.id} AND state = 'uploading'`]);
  } catch (error) {
    logLeftover(ctx, "undoing a failed upload left its hidden record", record, error);
  }
}

/** Undoes an upload whose record could not be made ready: the object goes, then the record. */
async function removeObjectAndRecord(ctx: RequestContext, record: MediaRecord): Promise<void> {
  try {
    await ctx.env.MEDIA.delete(record.path);
  } catch (error) {
    logLeftover(ctx, "undoing a failed upload left its object and hidden record", record, error);
    return;
  }
  await forgetPending(ctx, record);
}

/**
 * Deletes the caller's media: record and object. A `deleting` record left by a failure is
 * finished. Resolves only once both are gone; a failure on the way leaves the record `deleting`
 * (hidden), for a retry or the sweep. With preconditions (If-Match, If-None-Match against the
 * metadata's tag), the claim applies only while they hold: one round trip, the claim and the read
 * before it that explains a refusal (404, or 412 with the current tag).
 */
export async function deleteMedia(ctx: UserContext, id: string, preconditions: Preconditions = {}): Promise<void> {
  const expected = preconditionSql(preconditions, metadataVersion(id));
  const [states, marked] = await batchAll<[Pick<MediaRecord, "id" | "updated_at">, MediaRecord]>(ctx.db, [
    sql`SELECT m.id, m.updated_at FROM media m WHERE m.id = ${id} AND m.created_by = ${ctx.actor.userId} AND m.state = 'ready'`,
    // Preconditions are held to the record as read (`ready`); a `deleting` one has no representation
    // (its GET is a 404), so only a DELETE without them finishes it.
    sql`UPDATE media AS m SET state = 'deleting', updated_at = ${ctx.now().toISOString()}
      WHERE m.id = ${id} AND m.created_by = ${ctx.actor.userId}
        ${expected ? sql`AND m.state = 'ready' AND ${expected}` : sql`AND m.state IN ('ready', 'deleting')`}
      RETURNING *`,
  ]);
  const record = marked[0];
  if (!record) {
    const state = states[0];
    if (state) assertPreconditions(preconditions, metadataValidator(state));
    throw mediaNotFound({ id });
  }
  await ctx.confirmCaller();
  const work = removeTogether(ctx, record);
  ctx.waitUntil(work.catch(() => undefined));
  await work;
}

/**
 * Removes a `deleting` record's object, then the record. Never makes the record `ready` again
 * (see the top of this file): a failure leaves it `deleting`, and throws.
 */
async function removeTogether(ctx: RequestContext, record: MediaRecord): Promise<void> {
  await ctx.env.MEDIA.delete(record.path);
  // A `deleting` record only ever goes away, so when another request removed it first the file is
  // gone all the same. The SELECT, in the same round trip, makes sure: a record still there in any
  // state means the deletion did not happen, and is not answered as done.
  const [, remaining] = await batchAll<[{ id: string }, { state: string }]>(ctx.db, [
    sql`DELETE FROM media WHERE id = ${record.id} AND state = 'deleting' RETURNING id`,
    sql`SELECT state FROM media WHERE id = ${record.id}`,
  ]);
  const left = remaining[0];
  if (left) throw new Error(`The media record is still there (state ${left.state}) after its deletion`);
}

/** The metadata of the caller's media. */
export async function getMediaMetadata(ctx: UserContext, id: string): Promise<MediaMetadata> {
  const [rows] = await batchAll<[MediaRecord]>(ctx.db, [
    sql`SELECT m.* FROM media m WHERE m.id = ${id} AND m.created_by = ${ctx.actor.userId} AND m.state = 'ready'`,
  ]);
  const record = rows[0];
  if (!record) throw mediaNotFound({ id });
  return metadataOf(record);
}

/**
 * Media metadata's validator: its entity tag names the record's `updated_at`, which every change of
 * the metadata advances (`advancedTimestamp`: never the same twice) (RFC 9110 §8.8.3).
 */
const METADATA_TAG = "m";
const metadataValidator = (record: Pick<MediaRecord, "id" | "updated_at">): Validator => ({
  kind: METADATA_TAG,
  id: record.id,
  parts: [record.updated_at],
});
/** The same version as it reads in SQL, on the record aliased `m`. */
const metadataVersion = (id: string): Versioned => ({ kind: METADATA_TAG, id, columns: [sql`m.updated_at`] });

const metadataOf = (record: MediaRecord): MediaMetadata => {
  const { id, metadata, updated_at } = presentMedia(record);
  return withValidator({ id, metadata, updated_at }, metadataValidator(record));
};

/**
 * Applies an RFC 7396 merge patch to the caller's media metadata, in the UPDATE itself (SQLite's
 * `json_patch`): keys given replace, nested objects merge, `null` removes a key. So concurrent
 * patches of different keys keep each other's changes. A result above 16 KiB is a 400 and
 * changes nothing. One round trip: the update and the read that explains a refusal. With
 * preconditions (If-Match, If-None-Match), the update applies only while they hold.
 */
export async function patchMediaMetadata(
  ctx: UserContext,
  id: string,
  patch: Record<string, unknown>,
  preconditions: Preconditions = {},
): Promise<MediaMetadata> {
  const patchText = JSON.stringify(patch);
  const expected = preconditionSql(preconditions, metadataVersion(id));
  const [states, updated] = await batchAll<[{ merged_bytes: number; id: string; updated_at: string }, MediaRecord]>(
    ctx.db,
    [
      sql`SELECT length(CAST(json_patch(m.metadata, ${patchText}) AS BLOB)) AS merged_bytes, m.id, m.updated_at
        FROM media m WHERE m.id = ${id} AND m.created_by = ${ctx.actor.userId} AND m.state = 'ready'`,
      sql`UPDATE media AS m SET metadata = json_patch(m.metadata, ${patchText}),
          updated_at = ${advancedTimestamp(sql`m.updated_at`, ctx.now().toISOString())}
        WHERE m.id = ${id} AND m.created_by = ${ctx.actor.userId} AND m.state = 'ready'
          AND length(CAST(json_patch(m.metadata, ${patchText}) AS BLOB)) <= ${MEDIA_METADATA_MAX_BYTES}
          ${expected ? sql`AND ${expected}` : sql``}
        RETURNING *`,
    ],
  );
  const record = updated[0];
  if (record) return metadataOf(record);
  const state = states[0];
  if (!state) throw mediaNotFound({ id });
  // Read in the same batch, before the update: the version its preconditions were held to.
  assertPreconditions(preconditions, metadataValidator(state));
  throw badRequest(`Metadata would be larger than ${MEDIA_METADATA_MAX_BYTES} bytes`, {
    field: "metadata",
    max_bytes: MEDIA_METADATA_MAX_BYTES,
    merged_bytes: state.merged_bytes,
  });
}

/** How long an upload or a deletion may be under way before its hidden record counts as left over. */
export const LEFTOVER_AFTER_MS = 15 * 60 * 1000;

/**
 * Removes what interrupted uploads and deletions left (hidden records older than
 * LEFTOVER_AFTER_MS, with their objects, if any): at most `limit` per call, oldest first. For a
 * Cron Trigger; answers how many were removed. A record that cannot be removed is logged and
 * skipped, and its `updated_at` moved to now, so the next runs take the others first.
 */
export async function sweepMediaLeftovers(ctx: RequestContext, limit = 100): Promise<number> {
  const cutoff = new Date(ctx.now().getTime() - LEFTOVER_AFTER_MS).toISOString();
  const [leftovers] = await batchAll<[MediaRecord]>(ctx.db, [
    sql`SELECT * FROM media WHERE state IN ('uploading', 'deleting') AND updated_at < ${cutoff}
      ORDER BY updated_at LIMIT ${limit}`,
  ]);
  let removed = 0;
  for (const record of leftovers) {
    try {
      removed += await sweepOne(ctx, record);
    } catch (error) {
      logLeftover(ctx, "the sweep could not remove a leftover", record, error);
      await pushBack(ctx, record);
    }
  }
  return removed;
}

/** Removes one leftover with its object: 1 when this call removed it, 0 when something else changed it first. */
async function sweepOne(ctx: RequestContext, record: MediaRecord): Promise<number> {
  // Claimed first (only while unchanged), so an upload finishing meanwhile fails its own finalize
  // and undoes itself rather than becoming ready without its object.
  const [claimed] = await batchAll<[{ id: string }]>(ctx.db, [
    sql`UPDATE media SET state = 'deleting'
      WHERE id = ${record.id} AND state = ${record.state} AND updated_at = ${record.updated_at} RETURNING id`,
  ]);
  if (claimed.length === 0) return 0;
  await ctx.env.MEDIA.delete(record.path);
  const [gone] = await batchAll<[{ id: string }]>(ctx.db, [
    sql`DELETE FROM media WHERE id = ${record.id} AND state = 'deleting' RETURNING id`,
  ]);
  return gone.length;
}

/** Moves a leftover the sweep failed on behind the others (and out of the next 15 minutes' runs). */
async function pushBack(ctx: RequestContext, record: MediaRecord): Promise<void> {
  try {
    await batchAll(ctx.db, [
      sql`UPDATE media SET updated_at = ${ctx.now().toISOString()}
        WHERE id = ${record.id} AND state IN ('uploading', 'deleting')`,
    ]);
  } catch (error) {
    logLeftover(ctx, "the sweep could not push back a leftover it failed on", record, error);
  }
}
