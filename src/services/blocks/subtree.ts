import { type SQL, sql } from "drizzle-orm";
import type { Actor } from "../../lib/context";
import type { BlockRecord } from "./presenter";
import { isActive, visibleTo } from "./visibility";

/** Upper bound on the levels a subtree walk follows (a bound on the recursion, whatever links it meets). */
export const SUBTREE_MAX_DEPTH = 1_000;

/** One row of `activeSubtree`'s `tree`: columns of the block, and its depth under the start. */
export type SubtreeRow = Pick<BlockRecord, "id" | "parent_id" | "database_id" | "position"> & { depth: number };

/**
 * `WITH RECURSIVE tree(id, parent_id, database_id, position, depth)`: the block `id` when the
 * actor sees it (in any state; depth 0) and, with `includeChildren`, its active visible
 * descendants: children by `parent_id` and a database's rows by `database_id`. Rows travel
 * through the recursion (no join back by id: that scans the table). A block reached both as a
 * child and as a row appears twice, at its depths; `firstOfEach` keeps the first.
 *
 * Children and rows are two recursive steps, each an equality on its own index
 * (`blocks_parent_position_idx`, `blocks_database_order_idx`). One step joining on
 * `parent_id = tree.id OR database_id = tree.id` lets SQLite pick the owner index for the
 * visibility test instead, and read every block of the owner for each node walked (seen in
 * workerd's plans: a 1,000-block duplicate took seconds in a workspace of 100,000 rows).
 * CROSS JOIN keeps the walked nodes the outer loop (SQLite does not reorder it).
 */
export const activeSubtree = (actor: Actor, id: string, includeChildren: boolean): SQL => {
  const step = (link: "parent_id" | "database_id") => sql`
      SELECT c.id, c.parent_id, c.database_id, c.position, tree.depth + 1 FROM tree
      CROSS JOIN blocks c ON c.${sql.raw(link)} = tree.id
      WHERE ${includeChildren ? sql`1` : sql`0`} AND ${visibleTo(actor, "c")} AND ${isActive("c")}
        AND tree.depth < ${SUBTREE_MAX_DEPTH}`;
  return sql`
    WITH RECURSIVE tree AS (
      SELECT b.id, b.parent_id, b.database_id, b.position, 0 AS depth FROM blocks b
      WHERE b.id = ${id} AND ${visibleTo(actor)}
      UNION ${step("parent_id")}
      UNION ${step("database_id")}
    )`;
};

/**
 * The recursive steps of a walk down from the CTE `from` (columns `id`, and `extra`
 * carried along) to the blocks under it the actor sees, in any state: children and
 * database rows as two steps, each on its own index (see `activeSubtree` for why not one
 * OR join).
 */
export const visibleChildSteps = (actor: Actor, from: string, extra: SQL = sql``): SQL => {
  const step = (link: "parent_id" | "database_id") =>
    sql`SELECT c.id${extra} FROM ${sql.raw(from)} CROSS JOIN blocks c ON c.${sql.raw(link)} = ${sql.raw(from)}.id
      WHERE ${visibleTo(actor, "c")}`;
  return sql`${step("parent_id")} UNION ${step("database_id")}`;
};

/** The first row of each block id, in order (rows of `activeSubtree` ordered by depth). */
export function firstOfEach<T extends { id: string }>(rows: T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
}
