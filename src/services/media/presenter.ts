import type { RawRow } from "../../db/rows";
import type { media } from "../../db/schema";
import type { MediaFile } from "../../schemas/media";

/** A `media` row as D1 returns it (`metadata` as JSON text). */
export type MediaRecord = RawRow<typeof media, { state: "uploading" | "ready" | "deleting" }>;

/** Turns a stored row into the response object; the row itself is never returned. */
export const presentMedia = (record: MediaRecord): MediaFile => ({
  id: record.id,
  bucket: record.bucket,
  path: record.path,
  filename: record.filename,
  content_type: record.content_type,
  size: record.size,
  sha256: record.sha256,
  metadata: JSON.parse(record.metadata) as Record<string, unknown>,
  created_by: record.created_by,
  created_at: record.created_at,
  updated_at: record.updated_at,
});
