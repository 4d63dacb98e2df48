import { type SQL, sql } from "drizzle-orm";
import { requireAuthor } from "../../auth/policies";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { mentions } from "../../db/schema";
import { isDateMention, type MentionTargetType } from "../../domain/mentions";
import type { UserContext } from "../../lib/context";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  type Listing,
  listingQueries,
  type OrderKey,
  orderByKeys,
  type PageWindow,
  type ResultPage,
  readPage,
  withoutKeyColumns,
} from "../../lib/pagination";
import type { MentionRecord } from "../../schemas/mentions";
import { findVisibleBlockWithSchema, updateTypedBlock } from "../block-writes/writes";
import { isPageLike, pageOfBlock, pageScope, shownOnItsPage } from "../blocks/page-scope";
import { blockNotFound } from "../blocks/queries";
import { visibleTo } from "../blocks/visibility";

// Mentions: the ones a block's content holds are kept in step with every content
// write by the triggers of migrations/0008_mentions_from_content.sql (origin
// `content`); others are recorded through the API (origin `api`). Listings and
// writes are scoped to blocks the caller can see; changing or deleting a mention
// is for its author, and a content mention changes only with its content.

/** A mention as `selectMentions` reads it: the row, and the page its block belongs to. */
type MentionRow = RawRow<
  typeof mentions,
  { target_type: MentionTargetType; kind: "mention" | "link"; origin: "content" | "api" }
> & { page_id: string | null };

const MENTION_COLUMNS = sql.raw(
  "m.id, m.block_id, m.target_type, m.target_id, m.kind, m.origin, m.snippet, m.created_by, m.created_at",
);
const selectMentions = (ctx: UserContext) =>
  sql`SELECT ${MENTION_COLUMNS}, ${pageOfBlock(ctx.actor, sql.raw("m.block_id"))} AS page_id`;
/** Oldest first, then by id (unique): the listings' order and their cursors' keys. */
const OLDEST_FIRST: OrderKey[] = [
  { expression: sql`m.created_at`, direction: "asc" },
  { expression: sql`m.id`, direction: "asc" },
];
const ORDER = orderByKeys(OLDEST_FIRST);

/** A mention answers its row's columns whole (but for a listing's key columns). */
const present = (row: MentionRow): MentionRecord => withoutKeyColumns(row);

const mentionNotFound = (id: string) => notFound("Mention not found", { id });

/** A block the caller can see and its page shows (as comments require), checked in the same batch as a listing. */
const visibleBlock = (ctx: UserContext, blockId: string, extra: SQL = sql`1`) =>
  sql`SELECT b.id, b.type FROM blocks b WHERE b.id = ${blockId} AND ${visibleTo(ctx.actor)}
    AND ${shownOnItsPage(ctx.actor, sql.raw("b.id"))} = 1 AND ${extra}`;

export async function listBlockMentions(
  ctx: UserContext,
  blockId: string,
  window: PageWindow,
): Promise<ResultPage<MentionRecord>> {
  const listing: Listing = { name: "mentions.block", filters: { blockId }, keys: OLDEST_FIRST };
  const [blocks, rows, counts] = await batchAll<[{ id: string }, MentionRow, { total: number }]>(ctx.db, [
    visibleBlock(ctx, blockId),
    ...(await listingQueries(
      ctx,
      listing,
      { select: selectMentions(ctx), from: sql`FROM mentions m`, where: sql`m.block_id = ${blockId}` },
      window,
    )),
  ]);
  if (blocks.length === 0) throw blockNotFound(blockId);
  return readPage(ctx, listing, rows, counts, window, present);
}

/** Mentions held by a page and the blocks that belong to it (not its sub-pages). */
export async function listPageMentions(
  ctx: UserContext,
  pageId: string,
  window: PageWindow,
): Promise<ResultPage<MentionRecord>> {
  const listing: Listing = { name: "mentions.page", filters: { pageId }, keys: OLDEST_FIRST };
  const [page, count] = await listingQueries(
    ctx,
    listing,
    {
      with: sql`WITH RECURSIVE ${pageScope(ctx.actor, pageId)}`,
      select: selectMentions(ctx),
      from: sql`FROM mentions m`,
      where: sql`m.block_id IN (SELECT id FROM page_scope)`,
    },
    window,
  );
  const [pages, records, totals] = await batchAll<[{ id: string }, MentionRow, { total: number }]>(ctx.db, [
    visibleBlock(ctx, pageId, isPageLike("b")),
    page,
    count,
  ]);
  if (pages.length === 0) throw notFound("Page not found", { id: pageId });
  return readPage(ctx, listing, records, totals, window, present);
}

export interface NewMention {
  block_id: string;
  target_type: MentionTargetType;
  target_id: string;
}

/** Whether a target may be mentioned by the caller: pages and blocks they can see; users and dates always. */
const targetAllowed = (ctx: UserContext, type: MentionTargetType, id: string): SQL => {
  switch (type) {
    case "page":
      return sql`EXISTS (SELECT 1 FROM blocks t WHERE t.id = ${id} AND ${visibleTo(ctx.actor, "t")} AND ${isPageLike("t")})`;
    case "block":
      return sql`EXISTS (SELECT 1 FROM blocks t WHERE t.id = ${id} AND ${visibleTo(ctx.actor, "t")})`;
    // Any user id, as in content: answering whether a user exists would let anyone probe ids.
    case "user":
    case "date":
      return sql`1`;
  }
};

/** Records a mention in a block the caller can see (active), of a target they may mention. */
export async function createMention(ctx: UserContext, input: NewMention): Promise<MentionRecord> {
  const id = newId();
  const timestamp = ctx.now().toISOString();
  const blockOk = sql`EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${input.block_id} AND ${visibleTo(ctx.actor)}
    AND ${shownOnItsPage(ctx.actor, sql.raw("b.id"))} = 1)`;
  const targetOk = targetAllowed(ctx, input.target_type, input.target_id);
  const [inserted] = await batchAll<[{ id: string }]>(ctx.db, [
    sql`INSERT INTO mentions (id, block_id, target_type, target_id, kind, origin, snippet, created_by, created_at)
      SELECT ${id}, ${input.block_id}, ${input.target_type}, ${input.target_id}, 'mention', 'api', '',
        ${ctx.actor.userId}, ${timestamp}
      WHERE ${blockOk} AND ${targetOk}
      RETURNING id`,
  ]);
  if (inserted.length === 0) {
    // Only on refusal: which reference failed.
    const check = await ctx.db.get<{ block_ok: number }>(sql`SELECT ${blockOk} AS block_ok`);
    if (!check?.block_ok) throw notFound("Block not found", { field: "block_id", id: input.block_id });
    throw notFound(`The mentioned ${input.target_type} was not found`, { field: "target_id", id: input.target_id });
  }
  return getMention(ctx, id);
}

export async function getMention(ctx: UserContext, id: string): Promise<MentionRecord> {
  const row = await ctx.db.get<MentionRow | undefined>(sql`
    ${selectMentions(ctx)} FROM mentions m JOIN blocks b ON b.id = m.block_id
    WHERE m.id = ${id} AND ${visibleTo(ctx.actor)}`);
  if (!row) throw mentionNotFound(id);
  return present(row);
}

/** The mention for a change: visible (else 404), made through the API (else 409), by the caller (else 403). */
async function changeableMention(ctx: UserContext, id: string): Promise<MentionRecord> {
  const mention = await getMention(ctx, id);
  if (mention.origin === "content") {
    throw conflict("This mention is read from its block's content: change the content to change it", {
      id,
      block_id: mention.block_id,
    });
  }
  requireAuthor(ctx.actor, mention, "mention");
  return mention;
}

export interface MentionChange {
  target_type?: MentionTargetType;
  target_id?: string;
}

/** Points an API mention at another target; the author only. */
export async function updateMention(ctx: UserContext, id: string, change: MentionChange): Promise<MentionRecord> {
  const current = await changeableMention(ctx, id);
  const targetType = change.target_type ?? current.target_type;
  const targetId = change.target_id ?? current.target_id;
  if (change.target_type !== undefined && change.target_id === undefined && targetType !== current.target_type) {
    throw badRequest("A new target_type needs its target_id", { target_id: "required with target_type" });
  }
  if (targetType === "date" && !isDateMention(targetId)) {
    throw badRequest("A date mention's target_id is an ISO-8601 date or date-time that exists on the calendar", {
      target_id: targetId,
    });
  }
  // The checks travel with the write: still the caller's API mention, on a visible block, of an allowed target.
  const updated = await ctx.db.all<{ id: string }>(sql`
    UPDATE mentions SET target_type = ${targetType}, target_id = ${targetId}
    WHERE id = ${id} AND origin = 'api' AND created_by = ${ctx.actor.userId}
      AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = mentions.block_id AND ${visibleTo(ctx.actor)})
      AND ${targetAllowed(ctx, targetType, targetId)}
    RETURNING id`);
  if (updated.length === 0) {
    await changeableMention(ctx, id); // gone or changed meanwhile: its 404/409/403
    throw notFound(`The mentioned ${targetType} was not found`, { field: "target_id", id: targetId });
  }
  return getMention(ctx, id);
}

export async function deleteMention(ctx: UserContext, id: string): Promise<void> {
  await changeableMention(ctx, id);
  const deleted = await ctx.db.all<{ id: string }>(sql`
    DELETE FROM mentions WHERE id = ${id} AND origin = 'api' AND created_by = ${ctx.actor.userId}
    RETURNING id`);
  if (deleted.length === 0) throw mentionNotFound(id);
}

export interface SyncResult {
  block_id: string;
  mentions: MentionRecord[];
}

/** Upper bound on the mentions a sync answers with (the triggers keep at most 1,000 per block). */
const SYNC_ANSWER_LIMIT = 1000;

/** What a visible block's content mentions are, from the view the triggers of migration 0008 read. */
const contentMentionsOf = (ctx: UserContext, blockId: string): [SQL, SQL] => {
  const visible = sql`EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${blockId} AND ${visibleTo(ctx.actor)})`;
  return [
    sql`DELETE FROM mentions WHERE block_id = ${blockId} AND origin = 'content' AND ${visible}`,
    sql`INSERT INTO mentions (id, block_id, target_type, target_id, kind, origin, snippet, created_by, created_at)
      SELECT lower(hex(randomblob(16))), block_id, target_type, target_id, kind, 'content', snippet, created_by, created_at
      FROM block_mentions_source WHERE block_id = ${blockId} AND ${visible} LIMIT ${SYNC_ANSWER_LIMIT}`,
  ];
};

/**
 * Recomputes a block's content mentions from its content, or from `content`, which is
 * then stored (validated as any content write) unless it is the content already stored.
 * Either way it is one atomic write: after a failure the old set stands whole. A sync that
 * changes no content leaves the block as it was (its version, `updated_at`, the change log).
 */
export async function syncMentions(ctx: UserContext, blockId: string, content?: unknown): Promise<SyncResult> {
  const listing = sql`${selectMentions(ctx)} FROM mentions m WHERE m.block_id = ${blockId}
    ORDER BY ${ORDER} LIMIT ${SYNC_ANSWER_LIMIT}`;
  if (content !== undefined) {
    // The read the content write needs anyway: the same content is not written again.
    const known = await findVisibleBlockWithSchema(ctx, blockId);
    if (JSON.stringify(known.block.content) !== JSON.stringify(content)) {
      await updateTypedBlock(ctx, blockId, { content }, known);
      const rows = await ctx.db.all<MentionRow>(listing);
      return { block_id: blockId, mentions: rows.map(present) };
    }
  }
  // The set rebuilt from the stored content as the triggers build it, without writing the block;
  // the visibility check and the listing ride in the same batch.
  const [visible, , , rows] = await batchAll<[{ id: string }, unknown, unknown, MentionRow]>(ctx.db, [
    sql`SELECT b.id FROM blocks b WHERE b.id = ${blockId} AND ${visibleTo(ctx.actor)}`,
    ...contentMentionsOf(ctx, blockId),
    listing,
  ]);
  if (visible.length === 0) throw blockNotFound(blockId);
  return { block_id: blockId, mentions: rows.map(present) };
}
