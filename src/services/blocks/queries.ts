import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { Database } from "../../db/client";
import { notFound } from "../../lib/errors";
import { type Block, type BlockRecord, type BlockTree, presentBlock } from "./record";
import { isActive, ownedBy, sharedOnly, visibleTo } from "./visibility";

export const blockNotFound = (id: string) => notFound("Block not found", { id });

/** A visible, active block (archived and trashed blocks read as absent), or a 404. */
export async function getActiveBlock(db: Database, userId: string, id: string): Promise<Block> {
  const record = await db.get<BlockRecord | undefined>(
    sql`SELECT b.* FROM blocks b WHERE b.id = ${id} AND ${visibleTo(userId)} AND ${isActive()}`,
  );
  if (!record) throw blockNotFound(id);
  return presentBlock(record);
}

/** A visible block in any state (for writes, which may act on archived or trashed blocks), or a 404. */
export async function findVisibleBlock(db: Database, userId: string, id: string): Promise<Block> {
  const record = await db.get<BlockRecord | undefined>(
    sql`SELECT b.* FROM blocks b WHERE b.id = ${id} AND ${visibleTo(userId)}`,
  );
  if (!record) throw blockNotFound(id);
  return presentBlock(record);
}

/** Active visible direct children by position (unpositioned last), in one round trip with the parent check. */
export async function listChildren(db: Database, userId: string, parentId: string): Promise<Block[]> {
  const [parents, children] = await batchAll<[{ id: string }, BlockRecord]>(db, [
    sql`SELECT b.id FROM blocks b WHERE b.id = ${parentId} AND ${visibleTo(userId)} AND ${isActive()}`,
    sql`SELECT b.* FROM blocks b
      WHERE b.parent_id = ${parentId} AND ${visibleTo(userId)} AND ${isActive()}
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
export async function getHierarchy(db: Database, userId: string, id: string, depth: number): Promise<Hierarchy> {
  // The recursion carries whole rows: joining back to blocks by id afterwards
  // makes SQLite scan the table (seen in EXPLAIN QUERY PLAN), which grows with it.
  const records = await db.all<BlockRecord & { depth: number }>(sql`
    WITH RECURSIVE tree AS (
      SELECT b.*, 0 AS depth FROM blocks b WHERE b.id = ${id} AND ${visibleTo(userId)} AND ${isActive()}
      UNION ALL
      SELECT b.*, tree.depth + 1 FROM tree
      JOIN blocks b ON b.parent_id = tree.id
      WHERE tree.depth < ${depth} AND ${visibleTo(userId)} AND ${isActive()}
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

export interface BlockListQuery {
  q?: string;
  type?: string;
  /** Any of these types (the pages listing: page, database, database_row). */
  types?: readonly string[];
  parentId?: string;
  databaseId?: string;
  archived: boolean;
  inTrash: boolean;
  limit: number;
  offset: number;
  /** Absent: updated_at, or relevance when `q` is given. */
  sortBy?: BlockSortField;
  sortOrder: "asc" | "desc";
}

/** Totals above this are not counted exactly; the listing then omits X-Total-Count. */
export const TOTAL_COUNT_CAP = 10_000;

export interface BlockPage {
  blocks: Block[];
  /** Exact number of matches, or null when there are more than TOTAL_COUNT_CAP. */
  total: number | null;
  hasMore: boolean;
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
 * One page of visible blocks with its total, both in a single batch (one round trip).
 * The unfiltered listing reads the owner's and the shared blocks as two ordered
 * index scans merged, so its cost follows the page size, not the table size.
 */
export async function listBlocks(db: Database, userId: string, query: BlockListQuery): Promise<BlockPage> {
  const direction = sql.raw(query.sortOrder === "asc" ? "ASC" : "DESC");
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
  const fetchCount = query.limit + 1;

  let pageQuery: SQL;
  let countQuery: SQL;
  const ftsQuery = query.q === undefined ? undefined : toFtsQuery(query.q);
  if (ftsQuery === null) {
    return { blocks: [], total: 0, hasMore: false };
  }
  if (ftsQuery !== undefined) {
    const from = sql`blocks_search s JOIN blocks b ON b.seq = s.rowid
      WHERE blocks_search MATCH ${ftsQuery} AND ${visibleTo(userId)} AND ${filtered}`;
    const order = query.sortBy
      ? sql`${sql.raw(`b.${query.sortBy}`)} ${direction}${query.sortBy === "position" ? sql` NULLS LAST` : sql``}, b.seq ${direction}`
      : sql`bm25(blocks_search, 4.0, 1.0) ASC, b.seq DESC`;
    pageQuery = sql`SELECT b.* FROM ${from} ORDER BY ${order} LIMIT ${fetchCount} OFFSET ${query.offset}`;
    countQuery = sql`SELECT COUNT(*) AS total FROM (SELECT 1 FROM ${from} LIMIT ${TOTAL_COUNT_CAP + 1})`;
  } else {
    const sortColumn = sql.raw(query.sortBy ?? "updated_at");
    const order = sql`${sortColumn} ${direction}${query.sortBy === "position" ? sql` NULLS LAST` : sql``}, seq ${direction}`;
    if (query.parentId !== undefined || query.databaseId !== undefined) {
      // Narrowed by an indexed parent or database: one scan, sorted.
      const where = sql`${visibleTo(userId)} AND ${filtered}`;
      pageQuery = sql`SELECT b.* FROM blocks b WHERE ${where} ORDER BY ${order} LIMIT ${fetchCount} OFFSET ${query.offset}`;
      countQuery = sql`SELECT COUNT(*) AS total FROM (SELECT 1 FROM blocks b WHERE ${where} LIMIT ${TOTAL_COUNT_CAP + 1})`;
    } else {
      const owned = sql`${ownedBy(userId)} AND ${filtered}`;
      const shared = sql`${sharedOnly()} AND ${filtered}`;
      const window = query.offset + fetchCount;
      pageQuery = sql`
        SELECT * FROM (
          SELECT * FROM (SELECT b.* FROM blocks b WHERE ${owned} ORDER BY ${order} LIMIT ${window})
          UNION ALL
          SELECT * FROM (SELECT b.* FROM blocks b WHERE ${shared} ORDER BY ${order} LIMIT ${window})
        ) ORDER BY ${order} LIMIT ${fetchCount} OFFSET ${query.offset}`;
      countQuery = sql`SELECT
        (SELECT COUNT(*) FROM (SELECT 1 FROM blocks b WHERE ${owned} LIMIT ${TOTAL_COUNT_CAP + 1})) +
        (SELECT COUNT(*) FROM (SELECT 1 FROM blocks b WHERE ${shared} LIMIT ${TOTAL_COUNT_CAP + 1})) AS total`;
    }
  }

  const [records, counts] = await batchAll<[BlockRecord, { total: number }]>(db, [pageQuery, countQuery]);
  const total = counts[0]?.total ?? 0;
  return {
    blocks: records.slice(0, query.limit).map(presentBlock),
    total: total > TOTAL_COUNT_CAP ? null : total,
    hasMore: records.length > query.limit,
  };
}
