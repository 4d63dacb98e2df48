import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { badRequest, notFound } from "../../lib/errors";
import {
  type Listing,
  listingQueries,
  type OrderKey,
  type PageWindow,
  type ResultPage,
  readPage,
} from "../../lib/pagination";
import type { MediaFile } from "../../schemas/media";
import { type MediaRecord, presentMedia } from "./presenter";

// Media records as the API sees them: a caller's own records that are `ready` (an upload whose
// object is written, not being deleted). Ownership and state are part of every query.

/** The caller's own records, as the API shows them: ready ones only. */
export const ownReady = (ctx: UserContext, alias = "m"): SQL =>
  sql`${sql.raw(alias)}.created_by = ${ctx.actor.userId} AND ${sql.raw(alias)}.state = 'ready'`;

export const mediaNotFound = (details: Record<string, unknown>) => notFound("Media not found", details);

/** How a record is named: by id, or by where its object is. */
export type MediaKey = { id: string } | { bucket: string; path: string };

const keyCondition = (key: MediaKey): SQL =>
  "id" in key ? sql`m.id = ${key.id}` : sql`m.bucket = ${key.bucket} AND m.path = ${key.path}`;

/** The caller's own ready record named by `key`, or a 404 (another user's record is a 404 too). */
export async function findOwnMedia(ctx: UserContext, key: MediaKey): Promise<MediaRecord> {
  const [rows] = await batchAll<[MediaRecord]>(ctx.db, [
    sql`SELECT m.* FROM media m WHERE ${keyCondition(key)} AND ${ownReady(ctx)}`,
  ]);
  const record = rows[0];
  if (!record) throw mediaNotFound("id" in key ? { id: key.id } : { bucket: key.bucket, path: key.path });
  return record;
}

/** Newest first; the rowid (insertion order) breaks ties within a millisecond. */
const NEWEST_FIRST: OrderKey[] = [
  { expression: sql`m.created_at`, direction: "desc" },
  { expression: sql`m.rowid`, direction: "desc" },
];

async function listWhere(
  ctx: UserContext,
  listing: Omit<Listing, "keys">,
  where: SQL,
  window: PageWindow,
): Promise<ResultPage<MediaFile>> {
  const list: Listing = { ...listing, keys: NEWEST_FIRST };
  const [records, counts] = await batchAll<[MediaRecord, { total: number }]>(
    ctx.db,
    await listingQueries(ctx, list, { select: sql`SELECT m.*`, from: sql`FROM media m`, where }, window),
  );
  return readPage(ctx, list, records, counts, window, presentMedia);
}

/** One page of the caller's media, newest first: one round trip. */
export const listMedia = (ctx: UserContext, window: PageWindow): Promise<ResultPage<MediaFile>> =>
  listWhere(ctx, { name: "media", filters: {} }, ownReady(ctx), window);

export interface MediaSearch {
  /** Words that must each occur in the filename or in the metadata (its keys and values). */
  q?: string;
  /** Start of the content type: `image/`, `image/png`. */
  content_type?: string;
  /** ISO-8601 instants; both bounds are exclusive. */
  created_after?: string;
  created_before?: string;
}

/** Lower-cases ASCII letters only, as SQLite's lower() does, so both sides fold alike. */
const foldAscii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** The words of a search, folded; at most 10. */
export const searchWords = (q: string | undefined): string[] =>
  foldAscii(q ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 10);

/** The word occurs in the filename, or in a key or a text or number value anywhere in the metadata. */
const mentions = (word: string): SQL => sql`(instr(lower(m.filename), ${word}) > 0 OR EXISTS (
  SELECT 1 FROM json_tree(m.metadata) t
  WHERE (t.type IN ('text', 'integer', 'real') AND instr(lower(t.atom), ${word}) > 0)
     OR (typeof(t.key) = 'text' AND instr(lower(t.key), ${word}) > 0)))`;

/** The first and last instants `created_at` can hold: ISO strings of four-digit years. */
const FIRST_INSTANT = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An ISO-8601 instant as `created_at` is written (UTC, `Z`, milliseconds), so the two compare as
 * text. Clamped to the years 0000..9999: beyond them `toISOString()` writes six-digit years with a
 * sign (`+010000-…`, `-000001-…`), which sort wrongly as text. Clamping changes no result, since
 * every stored instant lies within those years (exclusive bounds: after the last instant, nothing;
 * before the first, nothing).
 */
function storedInstant(text: string, field: string): string {
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw badRequest(`${field} must be an ISO-8601 instant`, { field });
  return new Date(Math.min(Math.max(parsed, FIRST_INSTANT), LAST_INSTANT)).toISOString();
}

/**
 * One page of the caller's media matching every given condition, newest first: one round trip.
 * Words match as substrings, ignoring the case of ASCII letters. Reads the caller's records by
 * the owner index; the cost grows with the number of the caller's files, not everyone's.
 */
export function searchMedia(ctx: UserContext, search: MediaSearch, window: PageWindow): Promise<ResultPage<MediaFile>> {
  const conditions = [ownReady(ctx), ...searchWords(search.q).map(mentions)];
  if (search.content_type) {
    const prefix = search.content_type.toLowerCase();
    conditions.push(sql`substr(m.content_type, 1, ${prefix.length}) = ${prefix}`);
  }
  const after = search.created_after ? storedInstant(search.created_after, "created_after") : undefined;
  const before = search.created_before ? storedInstant(search.created_before, "created_before") : undefined;
  if (after) conditions.push(sql`m.created_at > ${after}`);
  if (before) conditions.push(sql`m.created_at < ${before}`);
  // As the conditions read them: another spelling of the same search continues its cursors.
  const filters = {
    q: searchWords(search.q),
    content_type: search.content_type?.toLowerCase(),
    created_after: after,
    created_before: before,
  };
  return listWhere(ctx, { name: "media.search", filters }, sql.join(conditions, sql` AND `), window);
}
