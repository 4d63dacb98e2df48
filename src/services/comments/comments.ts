import { type SQL, sql } from "drizzle-orm";
import { requireAuthor } from "../../auth/policies";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { comments } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import { badRequest, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  type Listing,
  listingQueries,
  type OrderKey,
  type PageWindow,
  type ResultPage,
  readPage,
} from "../../lib/pagination";
import type { Comment } from "../../schemas/comments";
import { isPageLike, pageOfBlock, pageScope, shownOnItsPage } from "../blocks/page-scope";
import { isActive, visibleTo } from "../blocks/visibility";

export type { Comment };

// Comments are visible to whoever can see their block; only their author may change them.
// Every request is one D1 batch (one round trip): a statement that reads the state the
// answer needs (the block or comment as the caller sees it, and the page the block belongs
// to), then at most the conditional writes. D1 runs a batch as one transaction, so the
// state read and the write see the same data: a refusal is explained from the read, and no
// write ever depends on a read made in an earlier round trip.

/** The stored row (`resolved` as SQLite's 0/1). */
type CommentRecord = RawRow<typeof comments>;

const presentComment = (record: CommentRecord, pageId: string | null): Comment => ({
  id: record.id,
  block_id: record.block_id,
  page_id: pageId,
  parent_id: record.parent_id,
  content: record.content,
  created_by: record.created_by,
  created_at: record.created_at,
  updated_at: record.updated_at,
  resolved: Boolean(record.resolved),
  resolved_at: record.resolved_at,
  resolved_by: record.resolved_by,
});

const commentNotFound = (id: string) => notFound("Comment not found", { id });
const blockNotFound = (id: string) => notFound("Block not found", { block_id: id });

/**
 * One row `{block_id, page_id}` when the block is visible to the caller and shown on its
 * page (it and every block above it up to its page active); none otherwise.
 */
const activeBlockState = (ctx: UserContext, blockId: string, extra: SQL = sql``): SQL => sql`
  SELECT b.id AS block_id, ${pageOfBlock(ctx.actor, sql.raw("b.id"))} AS page_id ${extra} FROM blocks b
  WHERE b.id = ${blockId} AND ${visibleTo(ctx.actor)} AND ${shownOnItsPage(ctx.actor, sql.raw("b.id"))} = 1`;

/** The comment's block is visible to the caller (in any state: a trashed page's comments can still be changed). */
const onVisibleBlock = (ctx: UserContext, alias = "c"): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${sql.raw(`${alias}.block_id`)} AND ${visibleTo(ctx.actor)})`;

/** The comment as the caller sees it, with its page: one row when its block is visible to the caller, else none. */
const commentState = (ctx: UserContext, id: string): SQL => sql`
  SELECT c.*, ${pageOfBlock(ctx.actor, sql.raw("c.block_id"))} AS page_id FROM comments c
  WHERE c.id = ${id} AND ${onVisibleBlock(ctx)}`;

/** Only the comment's author, on a block they can see. */
const authorsOwn = (ctx: UserContext, id: string): SQL =>
  sql`c.id = ${id} AND c.created_by = ${ctx.actor.userId} AND ${onVisibleBlock(ctx)}`;

type StateRow = CommentRecord & { page_id: string | null };

/**
 * Explains a conditional write that changed nothing: 404 when the caller cannot see the
 * comment, 403 (requireAuthor) when it is another user's. The author's own comment, as
 * read in the same batch, is returned.
 */
function explainUnchanged(ctx: UserContext, id: string, state: StateRow | undefined): StateRow {
  if (!state) throw commentNotFound(id);
  requireAuthor(ctx.actor, state, "comment");
  return state;
}

const unexpected = (what: string) => new Error(`Comment ${what} matched nothing for an unknown reason`);

export interface CreateCommentInput {
  block_id: string;
  content: string;
  parent_id?: string | null;
}

/**
 * Adds a comment to a block the caller can see and that is shown on its page (it and every
 * block above it up to its page visible and active), or a reply to a top-level comment on that
 * same block. One conditional INSERT, behind the read that explains a refusal.
 */
export async function createComment(ctx: UserContext, input: CreateCommentInput): Promise<Comment> {
  const parentId = input.parent_id ?? null;
  const timestamp = ctx.now().toISOString();
  // What the parent is, when one is named: the block it is on (when the caller can see that
  // block) and whether it is itself a reply.
  const parentState = sql`,
    (SELECT pc.block_id FROM comments pc WHERE pc.id = ${parentId} AND ${onVisibleBlock(ctx, "pc")}) AS parent_block_id,
    (SELECT pc.parent_id IS NOT NULL FROM comments pc WHERE pc.id = ${parentId}) AS parent_is_reply`;
  const [states, inserted] = await batchAll<
    [
      { block_id: string; page_id: string | null; parent_block_id: string | null; parent_is_reply: number | null },
      CommentRecord,
    ]
  >(ctx.db, [
    activeBlockState(ctx, input.block_id, parentState),
    sql`INSERT INTO comments (id, block_id, parent_id, content, created_by, created_at, updated_at)
      SELECT ${newId()}, b.id, ${parentId}, ${input.content}, ${ctx.actor.userId}, ${timestamp}, ${timestamp}
      FROM blocks b
      WHERE b.id = ${input.block_id} AND ${visibleTo(ctx.actor)} AND ${shownOnItsPage(ctx.actor, sql.raw("b.id"))} = 1
        AND (${parentId} IS NULL OR EXISTS (
          SELECT 1 FROM comments pc WHERE pc.id = ${parentId} AND pc.block_id = b.id AND pc.parent_id IS NULL))
      RETURNING *`,
  ]);
  const state = states[0];
  const record = inserted[0];
  if (record) return presentComment(record, state?.page_id ?? null);
  if (!state) throw blockNotFound(input.block_id);
  if (parentId === null) throw unexpected("insert");
  if (state.parent_block_id === null) {
    throw notFound("Parent comment not found", { field: "parent_id", parent_id: parentId });
  }
  if (state.parent_block_id !== input.block_id) {
    throw badRequest("A reply must be on the same block as the comment it answers", {
      field: "parent_id",
      parent_id: parentId,
      parent_block_id: state.parent_block_id,
    });
  }
  if (state.parent_is_reply) {
    throw badRequest("Replies are one level deep: answer the top-level comment instead", {
      field: "parent_id",
      parent_id: parentId,
    });
  }
  throw unexpected("insert");
}

const resolvedIs = (resolved: boolean | undefined): SQL =>
  resolved === undefined ? sql`` : sql` AND c.resolved = ${resolved ? 1 : 0}`;

/** Oldest first; the rowid (insertion order) breaks ties within a millisecond. */
const OLDEST_FIRST: OrderKey[] = [
  { expression: sql`c.created_at`, direction: "asc" },
  { expression: sql`c.rowid`, direction: "asc" },
];

/** One page of the comments on a block the caller can see (active), oldest first. */
export async function listBlockComments(
  ctx: UserContext,
  blockId: string,
  filter: { resolved?: boolean },
  window: PageWindow,
): Promise<ResultPage<Comment>> {
  const listing: Listing = {
    name: "comments.block",
    filters: { blockId, resolved: filter.resolved ?? null },
    keys: OLDEST_FIRST,
  };
  const where = sql`c.block_id = ${blockId}
    AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = c.block_id AND ${visibleTo(ctx.actor)} AND ${isActive()})
    ${resolvedIs(filter.resolved)}`;
  const [states, records, counts] = await batchAll<
    [{ block_id: string; page_id: string | null }, CommentRecord, { total: number }]
  >(ctx.db, [
    activeBlockState(ctx, blockId),
    ...(await listingQueries(ctx, listing, { select: sql`SELECT c.*`, from: sql`FROM comments c`, where }, window)),
  ]);
  const state = states[0];
  if (!state) throw blockNotFound(blockId);
  return readPage(ctx, listing, records, counts, window, (record) => presentComment(record, state.page_id));
}

/**
 * One page of the comments on a page and on the blocks under it, oldest first: the
 * page's active visible blocks by `parent_id`, stopping at page-like blocks (sub-pages,
 * whose comments are their own) and at blocks the caller cannot see or that are archived
 * or trashed (with what is under them), as the page's hierarchy does.
 */
export async function listPageComments(
  ctx: UserContext,
  pageId: string,
  filter: { resolved?: boolean },
  window: PageWindow,
): Promise<ResultPage<Comment>> {
  const page = sql`SELECT b.id FROM blocks b
    WHERE b.id = ${pageId} AND ${isPageLike("b")} AND ${visibleTo(ctx.actor)} AND ${isActive()}`;
  const listing: Listing = {
    name: "comments.page",
    filters: { pageId, resolved: filter.resolved ?? null },
    keys: OLDEST_FIRST,
  };
  const [rows, count] = await listingQueries(
    ctx,
    listing,
    {
      with: sql`WITH RECURSIVE ${pageScope(ctx.actor, pageId)}`,
      select: sql`SELECT c.*`,
      from: sql`FROM comments c`,
      where: sql`c.block_id IN (SELECT id FROM page_scope) ${resolvedIs(filter.resolved)}`,
    },
    window,
  );
  const [pages, records, counts] = await batchAll<[{ id: string }, CommentRecord, { total: number }]>(ctx.db, [
    page,
    rows,
    count,
  ]);
  if (pages.length === 0) throw notFound("Page not found", { page_id: pageId });
  return readPage(ctx, listing, records, counts, window, (record) => presentComment(record, pageId));
}

/** Replaces the text of the caller's own comment. */
export async function updateComment(ctx: UserContext, id: string, content: string): Promise<Comment> {
  const [states, updated] = await batchAll<[StateRow, CommentRecord]>(ctx.db, [
    commentState(ctx, id),
    sql`UPDATE comments AS c SET content = ${content}, updated_at = ${ctx.now().toISOString()}
      WHERE ${authorsOwn(ctx, id)} RETURNING *`,
  ]);
  const state = states[0];
  const record = updated[0];
  if (record) return presentComment(record, state?.page_id ?? null);
  explainUnchanged(ctx, id, state);
  throw unexpected("update");
}

/**
 * Resolves (or with `resolved: false` reopens) the caller's own comment. Already in that
 * state: nothing is written and the comment is returned as it is.
 */
export async function setResolved(ctx: UserContext, id: string, resolved: boolean): Promise<Comment> {
  const timestamp = ctx.now().toISOString();
  const change = resolved
    ? sql`resolved = 1, resolved_at = ${timestamp}, resolved_by = ${ctx.actor.userId}`
    : sql`resolved = 0, resolved_at = NULL, resolved_by = NULL`;
  const [states, updated] = await batchAll<[StateRow, CommentRecord]>(ctx.db, [
    commentState(ctx, id),
    sql`UPDATE comments AS c SET ${change}, updated_at = ${timestamp}
      WHERE ${authorsOwn(ctx, id)} AND c.resolved = ${resolved ? 0 : 1} RETURNING *`,
  ]);
  const state = states[0];
  const record = updated[0];
  if (record) return presentComment(record, state?.page_id ?? null);
  // The author's comment was already in that state: a no-op.
  const current = explainUnchanged(ctx, id, state);
  return presentComment(current, current.page_id);
}

/** Deletes the caller's own comment and, for a top-level comment, its replies; answers how many went. */
export async function deleteComment(ctx: UserContext, id: string): Promise<number> {
  const [states, replies, deleted] = await batchAll<[StateRow, { id: string }, { id: string }]>(ctx.db, [
    commentState(ctx, id),
    // The foreign key would remove them too; deleting them first counts them.
    sql`DELETE FROM comments AS r WHERE r.parent_id = ${id}
      AND EXISTS (SELECT 1 FROM comments c WHERE ${authorsOwn(ctx, id)}) RETURNING id`,
    sql`DELETE FROM comments AS c WHERE ${authorsOwn(ctx, id)} RETURNING id`,
  ]);
  if (deleted.length === 0) {
    explainUnchanged(ctx, id, states[0]);
    throw unexpected("delete");
  }
  return deleted.length + replies.length;
}
