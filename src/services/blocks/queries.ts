import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import {
  afterCondition,
  cappedCountOfParts,
  cursorValues,
  type Listing,
  listingQueries,
  type OrderKey,
  orderByKeys,
  type PageWindow,
  type ResultPage,
  readPage,
  selectKeys,
} from "../../lib/pagination";
import { type Block, type BlockRecord, type BlockTree, presentBlock } from "./presenter";
import { isActive, ownedBy, sharedOnly, visibleTo } from "./visibility";

export const blockNotFound = (id: string) => notFound("Block not found", { id });

/** A visible, active block (archived and trashed blocks read as absent), or a 404. */
export async function getActiveBlock(ctx: UserContext, id: string): Promise<Block> {
  const record = await ctx.db.get<BlockRecord | undefined>(
    sql`SELECT b.* FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)} AND ${isActive()}`,
  );
  if (!record) throw blockNotFound(id);
  return presentBlock(record);
}

/** A visible block in any state (for writes, which may act on archived or trashed blocks), or a 404. */
export async function findVisibleBlock(ctx: UserContext, id: string): Promise<Block> {
  const record = await ctx.db.get<BlockRecord | undefined>(
    sql`SELECT b.* FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)}`,
  );
  if (!record) throw blockNotFound(id);
  return presentBlock(record);
}

/** Active visible direct children by position (unpositioned last), in one round trip with the parent check. */
export async function listChildren(ctx: UserContext, parentId: string): Promise<Block[]> {
  const [parents, children] = await batchAll<[{ id: string }, BlockRecord]>(ctx.db, [
    sql`SELECT b.id FROM blocks b WHERE b.id = ${parentId} AND ${visibleTo(ctx.actor)} AND ${isActive()}`,
    sql`SELECT b.* FROM blocks b
      WHERE b.parent_id = ${parentId} AND ${visibleTo(ctx.actor)} AND ${isActive()}
      ORDER BY b.position ASC NULLS LAST, b.created_at ASC, b.seq ASC`,
  ]);
  if (parents.length === 0) throw blockNotFound(parentId);
  return children.map(presentBlock);
}

export const HIERARCHY_DEFAULT_DEPTH = 10;
export const HIERARCHY_MAX_DEPTH = 25;
/** Upper bound on the nodes one hierarchy response carries; past it the tree is cut breadth-first. */
export const HIERARCHY_MAX_NODES = 10_000;

export interface Hierarchy {
  tree: BlockTree;
  /** True when HIERARCHY_MAX_NODES cut the tree short. */
  truncated: boolean;
}

/**
 * The block and its active visible descendants to `depth` levels, nested, from
 * one recursive query. Siblings keep the children order.
 */
export async function getHierarchy(ctx: UserContext, id: string, depth: number): Promise<Hierarchy> {
  // The recursion carries whole rows: joining back to blocks by id afterwards
  // makes SQLite scan the table (seen in EXPLAIN QUERY PLAN), which grows with it.
  const records = await ctx.db.all<BlockRecord & { depth: number }>(sql`
    WITH RECURSIVE tree AS (
      SELECT b.*, 0 AS depth FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)} AND ${isActive()}
      UNION ALL
      SELECT b.*, tree.depth + 1 FROM tree
      JOIN blocks b ON b.parent_id = tree.id
      WHERE tree.depth < ${depth} AND ${visibleTo(ctx.actor)} AND ${isActive()}
      -- Inside the recursion, so a huge subtree is cut as it is walked (breadth-first), not after.
      LIMIT ${HIERARCHY_MAX_NODES + 1}
    )
    SELECT * FROM tree
    ORDER BY depth ASC, position ASC NULLS LAST, created_at ASC, seq ASC
    LIMIT ${HIERARCHY_MAX_NODES + 1}`);
  const [root, ...descendants] = records;
  if (root?.depth !== 0) throw blockNotFound(id);
  const truncated = records.length > HIERARCHY_MAX_NODES;
  const nodes = new Map<string, BlockTree>();
  const rootNode: BlockTree = { ...presentBlock(root), children: [] };
  nodes.set(root.id, rootNode);
  for (const record of truncated ? descendants.slice(0, HIERARCHY_MAX_NODES - 1) : descendants) {
    const node: BlockTree = { ...presentBlock(record), children: [] };
    nodes.set(record.id, node);
    // Rows arrive level by level, so a parent is always placed before its children.
    if (record.parent_id !== null) nodes.get(record.parent_id)?.children.push(node);
  }
  return { tree: rootNode, truncated };
}

export type BlockSortField = "position" | "updated_at" | "created_at";

export interface BlockListQuery extends PageWindow {
  /** Names the listing in its cursors; default `blocks` (the pages listing is `pages`). */
  listing?: string;
  q?: string;
  type?: string;
  /** Any of these types (the pages listing: page, database, database_row). */
  types?: readonly string[];
  parentId?: string;
  databaseId?: string;
  archived: boolean;
  inTrash: boolean;
  /** Absent: updated_at, or relevance when `q` is given. */
  sortBy?: BlockSortField;
  sortOrder: "asc" | "desc";
}

/**
 * Turns free text into an FTS5 query: each word must occur (AND), the last one
 * also as a prefix so results follow typing. Words are quoted, so FTS5 syntax
 * in the input (NEAR, *, column filters, quotes) is taken literally.
 */
export function toFtsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word}"${i === words.length - 1 ? "*" : ""}`).join(" ");
}

/**
 * What a block listing is ordered by, its defaults applied: relevance with `q` and no `sortBy`
 * (whatever `sortOrder` says), else `sortBy` (updated_at when absent) in `sortOrder`. Cursors are
 * bound to this, so spelling a default out or leaving it out continues the same walk.
 */
const orderOf = (query: BlockListQuery) =>
  query.q !== undefined && query.sortBy === undefined
    ? ({ by: "relevance" } as const)
    : { by: query.sortBy ?? "updated_at", direction: query.sortOrder };

/**
 * The order of a block listing, ending in `seq` (unique): by `sortBy` (position with unpositioned
 * blocks last), or by relevance (BM25, title weighted 4x over body) with `q` and no `sortBy`.
 * `alias` qualifies the columns ("" for the outer query of a union, which orders its own columns).
 */
function blockOrder(query: BlockListQuery, alias: "b." | ""): OrderKey[] {
  const order = orderOf(query);
  if (order.by === "relevance") {
    return [
      { expression: sql`bm25(blocks_search, 4.0, 1.0)`, direction: "asc" },
      { expression: sql.raw(`${alias}seq`), direction: "desc" },
    ];
  }
  return [
    {
      expression: sql.raw(`${alias}${order.by}`),
      direction: order.direction,
      ...(order.by === "position" ? { nulls: "last" as const } : {}),
    },
    { expression: sql.raw(`${alias}seq`), direction: order.direction },
  ];
}

/**
 * One page of visible blocks with its total, both in a single batch (one round trip).
 * The unfiltered listing reads the owner's and the shared blocks as two ordered
 * index scans merged, so its cost follows the page size, not the table size.
 * A cursor continues after the last block of its page, by the same indexes.
 */
export async function listBlocks(ctx: UserContext, query: BlockListQuery): Promise<ResultPage<Block>> {
  const filters: SQL[] = [sql`b.archived = ${query.archived ? 1 : 0}`, sql`b.in_trash = ${query.inTrash ? 1 : 0}`];
  if (query.type !== undefined) filters.push(sql`b.type = ${query.type}`);
  if (query.types !== undefined)
    filters.push(
      sql`b.type IN (${sql.join(
        query.types.map((type) => sql`${type}`),
        sql`, `,
      )})`,
    );
  if (query.parentId !== undefined) filters.push(sql`b.parent_id = ${query.parentId}`);
  if (query.databaseId !== undefined) filters.push(sql`b.database_id = ${query.databaseId}`);
  const filtered = sql.join(filters, sql` AND `);
  const listing: Listing = {
    name: query.listing ?? "blocks",
    filters: {
      q: query.q,
      type: query.type,
      types: query.types,
      parentId: query.parentId,
      databaseId: query.databaseId,
      archived: query.archived,
      inTrash: query.inTrash,
      order: orderOf(query),
    },
    keys: blockOrder(query, "b."),
  };

  const ftsQuery = query.q === undefined ? undefined : toFtsQuery(query.q);
  if (ftsQuery === null) {
    await cursorValues(ctx, listing, query); // a bad cursor is refused even here
    return { items: [], total: 0, hasMore: false, nextCursor: null };
  }
  let queries: [page: SQL, count: SQL];
  if (ftsQuery !== undefined) {
    // Every match is ranked or sorted whichever the page: the cost of a search, page 1 or later.
    queries = await listingQueries(
      ctx,
      listing,
      {
        select: sql`SELECT b.*`,
        from: sql`FROM blocks_search s JOIN blocks b ON b.seq = s.rowid`,
        where: sql`blocks_search MATCH ${ftsQuery} AND ${visibleTo(ctx.actor)} AND ${filtered}`,
      },
      query,
    );
  } else if (query.parentId !== undefined || query.databaseId !== undefined) {
    // Narrowed by an indexed parent or database: one scan, sorted.
    queries = await listingQueries(
      ctx,
      listing,
      { select: sql`SELECT b.*`, from: sql`FROM blocks b`, where: sql`${visibleTo(ctx.actor)} AND ${filtered}` },
      query,
    );
  } else {
    // The owner's and the shared blocks, each an ordered index scan (from the cursor on), merged.
    const values = await cursorValues(ctx, listing, query);
    const inner = listing.keys;
    const outer = blockOrder(query, "");
    const after = values === undefined ? sql`` : sql` AND ${afterCondition(inner, values)}`;
    const side = (who: SQL) =>
      sql`SELECT * FROM (SELECT b.*, ${selectKeys(inner)} FROM blocks b WHERE ${who} AND ${filtered}${after}
        ORDER BY ${orderByKeys(inner)} LIMIT ${query.offset + query.limit + 1})`;
    queries = [
      sql`${side(ownedBy(ctx.actor))} UNION ALL ${side(sharedOnly())}
        ORDER BY ${orderByKeys(outer)} LIMIT ${query.limit + 1} OFFSET ${query.offset}`,
      // Two capped counts summed in one statement: each side's index answers its own.
      cappedCountOfParts([
        sql`FROM blocks b WHERE ${ownedBy(ctx.actor)} AND ${filtered}`,
        sql`FROM blocks b WHERE ${sharedOnly()} AND ${filtered}`,
      ]),
    ];
  }

  const [records, counts] = await batchAll<[BlockRecord, { total: number }]>(ctx.db, queries);
  return readPage(ctx, listing, records, counts, query, presentBlock);
}
