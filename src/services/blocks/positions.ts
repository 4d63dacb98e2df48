import { type SQL, sql } from "drizzle-orm";
import type { Actor } from "../../lib/context";
import { ownedBy, sharedOnly } from "./visibility";

// A block's position orders it among its siblings: the children of one parent, or the top-level
// blocks (children of none). Where a new block goes is read from the siblings the writer sees
// (visibleTo: their own and shared ones), never from other users': a top-level block's position
// would otherwise tell how many blocks everyone else has made. The reads are expressions for the
// write's own statement, so concurrent writers each see the ones before them.

/** A parent: an id or null (the top level) bound as a value, or an expression of the statement. */
export type ParentRef = SQL | string | null;

/**
 * The largest (`max`) or smallest (`min`) position of the siblings under `parentId` the actor
 * sees that meet `where` (alias `s`), or NULL. One read per side of the visibility rule (own,
 * shared), each a seek on blocks_parent_owner_position_idx that stops at its first entry: the
 * rule's OR in one read would scan every sibling of every owner.
 */
function visibleSiblingPosition(actor: Actor, parentId: ParentRef, pick: "max" | "min", where: SQL = sql`1`): SQL {
  const aggregate = sql.raw(pick);
  const side = (owner: SQL) =>
    sql`SELECT ${aggregate}(s.position) AS position FROM blocks s
      WHERE s.parent_id IS ${parentId} AND ${owner} AND ${where}`;
  return sql`(SELECT ${aggregate}(position) FROM (${side(ownedBy(actor, "s"))} UNION ALL ${side(sharedOnly("s"))}))`;
}

/** The position of the last sibling the actor sees under `parentId` (0 when there is none). */
export const lastSiblingPosition = (actor: Actor, parentId: ParentRef): SQL =>
  sql`coalesce(${visibleSiblingPosition(actor, parentId, "max")}, 0)`;

/** The position after the last sibling the actor sees under `parentId` (1 when there is none). */
export const afterLastSibling = (actor: Actor, parentId: ParentRef): SQL =>
  sql`(${lastSiblingPosition(actor, parentId)} + 1)`;

/**
 * The position right after the block aliased `block`: halfway to the next sibling the actor
 * sees, or one more than its own without a next. Halving runs out of room (after some fifty
 * copies of one block in a row, a double has no value left between the two): the copy then goes
 * after the last sibling, still after the original and in a place of its own. A block without a
 * position is followed by a copy after the last sibling too.
 */
export const rightAfter = (actor: Actor, block: string): SQL => {
  const parent = sql.raw(`${block}.parent_id`);
  const position = sql.raw(`${block}.position`);
  const next = visibleSiblingPosition(actor, parent, "min", sql`s.position > ${position}`);
  const halfway = sql`((${position} + ${next}) / 2.0)`;
  return sql`CASE
    WHEN ${position} IS NULL THEN ${afterLastSibling(actor, parent)}
    WHEN ${next} IS NULL THEN ${position} + 1
    WHEN ${halfway} > ${position} AND ${halfway} < ${next} THEN ${halfway}
    ELSE ${afterLastSibling(actor, parent)} END`;
};
