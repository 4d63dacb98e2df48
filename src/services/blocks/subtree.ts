import { type SQL, sql } from "drizzle-orm";
import type { Actor } from "../../lib/context";
import { isActive, visibleTo } from "./visibility";

/** Upper bound on the levels a subtree walk follows (a bound on the recursion, whatever links it meets). */
export const SUBTREE_MAX_DEPTH = 1_000;

/** One row of `activeSubtree`'s `tree`. */
export interface SubtreeRow {
  id: string;
  parent_id: string | null;
  database_id: string | null;
  position: number | null;
  depth: number;
}

/**
 * `WITH RECURSIVE tree(id, parent_id, database_id, position, depth)`: the block `id` when the
 * actor sees it (in any state; depth 0) and, with `includeChildren`, its active visible
 * descendants: children by `parent_id` and a database's rows by `database_id`. Rows travel
 * through the recursion (no join back by id: that scans the table). A block reached both as a
 * child and as a row appears twice, at its depths; `firstOfEach` keeps the first.
 */
export const activeSubtree = (actor: Actor, id: string, includeChildren: boolean): SQL => sql`
    WITH RECURSIVE tree AS (
      SELECT b.id, b.parent_id, b.database_id, b.position, 0 AS depth FROM blocks b
      WHERE b.id = ${id} AND ${visibleTo(actor)}
      UNION
      SELECT c.id, c.parent_id, c.database_id, c.position, tree.depth + 1 FROM blocks c
      JOIN tree ON c.parent_id = tree.id OR c.database_id = tree.id
      WHERE ${includeChildren ? sql`1` : sql`0`} AND ${visibleTo(actor, "c")} AND ${isActive("c")}
        AND tree.depth < ${SUBTREE_MAX_DEPTH}
    )`;

/** The first row of each block id, in order (rows of `activeSubtree` ordered by depth). */
export function firstOfEach<T extends { id: string }>(rows: T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
}
