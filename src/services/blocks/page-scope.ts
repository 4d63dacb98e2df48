import { type SQL, sql } from "drizzle-orm";
import type { Actor } from "../../lib/context";
import { PAGE_TYPES } from "../../schemas/pages";
import { isActive, visibleTo } from "./visibility";

// Which page a block belongs to, and which blocks belong to a page: the page-like
// blocks (pages, databases, rows) own the editor blocks under them, up to the next
// page-like block (a sub-page owns its own). Both walk `parent_id` (so a moved
// block belongs to its new page at once) and stop after MAX_PAGE_DEPTH levels.

/** `('page', 'database', 'database_row')`: the page-like types, as the pages schema names them. */
const PAGE_LIKE = sql.raw(`(${PAGE_TYPES.map((type) => `'${type}'`).join(", ")})`);
/** A bound on the recursion whatever links it meets (a cycle written straight to the table included). */
const MAX_PAGE_DEPTH = 1_000;

/**
 * A scalar subquery: the id of the page-like block `blockId` belongs to (itself if
 * page-like), or null, also when the actor cannot see that page (its id is not shown).
 */
export const pageOfBlock = (actor: Actor, blockId: SQL): SQL => sql`(
  WITH RECURSIVE up(id, parent_id, type, created_by, depth) AS (
    SELECT u.id, u.parent_id, u.type, u.created_by, 0 FROM blocks u WHERE u.id = ${blockId}
    UNION ALL
    SELECT p.id, p.parent_id, p.type, p.created_by, up.depth + 1 FROM blocks p JOIN up ON p.id = up.parent_id
    WHERE up.type NOT IN ${PAGE_LIKE} AND up.depth < ${MAX_PAGE_DEPTH}
  )
  SELECT CASE WHEN ${visibleTo(actor, "up")} THEN id END FROM up WHERE type IN ${PAGE_LIKE} ORDER BY depth LIMIT 1)`;

/**
 * A common table expression `page_scope(id)`: the page `pageId` and the blocks that
 * belong to it (not sub-pages, nor what is under them) that the actor can see and
 * that are active. Use as `WITH RECURSIVE ${...}`.
 */
export const pageScope = (actor: Actor, pageId: string): SQL => sql`page_scope(id, depth) AS (
  SELECT s.id, 0 FROM blocks s WHERE s.id = ${pageId} AND ${visibleTo(actor, "s")}
  UNION ALL
  SELECT c.id, page_scope.depth + 1 FROM blocks c JOIN page_scope ON c.parent_id = page_scope.id
  WHERE c.type NOT IN ${PAGE_LIKE} AND ${visibleTo(actor, "c")} AND ${isActive("c")}
    AND page_scope.depth < ${MAX_PAGE_DEPTH}
)`;

export const isPageLike = (alias: string): SQL => sql`${sql.raw(alias)}.type IN ${PAGE_LIKE}`;

/**
 * A scalar subquery, 1 when `blockId` and every block above it up to its page (or to the
 * top, for a block on no page) are visible to the actor and active; else 0. What the
 * page's hierarchy shows: a block under a trashed toggle is hidden with it.
 */
export const shownOnItsPage = (actor: Actor, blockId: SQL): SQL => sql`coalesce((
  WITH RECURSIVE up(id, parent_id, type, shown, depth) AS (
    SELECT u.id, u.parent_id, u.type, (${visibleTo(actor, "u")} AND ${isActive("u")}), 0
    FROM blocks u WHERE u.id = ${blockId}
    UNION ALL
    SELECT p.id, p.parent_id, p.type, (up.shown AND ${visibleTo(actor, "p")} AND ${isActive("p")}), up.depth + 1
    FROM blocks p JOIN up ON p.id = up.parent_id
    WHERE up.type NOT IN ${PAGE_LIKE} AND up.depth < ${MAX_PAGE_DEPTH}
  )
  SELECT shown FROM up ORDER BY depth DESC LIMIT 1), 0)`;
