import { type SQL, sql } from "drizzle-orm";
import { INTERNAL_BLOCK_TYPE } from "../../auth/policies";
import type { Actor } from "../../lib/context";

/**
 * The one place block visibility is decided, always inside the query: an actor
 * sees the blocks their user created and shared blocks (`created_by IS NULL`),
 * never internal logs. `alias` is the table alias the query uses for `blocks`.
 */
export const visibleTo = (actor: Actor, alias = "b"): SQL =>
  sql
    .raw(`(${alias}.created_by = `)
    .append(sql`${actor.userId} OR `)
    .append(sql.raw(`${alias}.created_by IS NULL) AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`));

/**
 * visibleTo and isActive for an entry of the row-value index (`row_values`), which carries its
 * row's owner and whether the row is active (migrations/0024): the same rule, read from the entry
 * without reading the row. Entries exist for database rows only, never for internal blocks.
 */
export const entryVisibleTo = (actor: Actor, alias: string): SQL =>
  sql
    .raw(`${alias}.active = 1 AND (${alias}.created_by = `)
    .append(sql`${actor.userId}`)
    .append(sql.raw(` OR ${alias}.created_by IS NULL)`));

/** Not archived and not in the trash: what reads (get, children, hierarchy, listing) return. */
export const isActive = (alias = "b"): SQL => sql.raw(`${alias}.archived = 0 AND ${alias}.in_trash = 0`);

/** The actor's own blocks (one side of visibleTo, for index-ordered scans of one owner). */
export const ownedBy = (actor: Actor, alias = "b"): SQL =>
  sql
    .raw(`${alias}.created_by = `)
    .append(sql`${actor.userId}`)
    .append(sql.raw(` AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`));

/** Shared blocks (the other side of visibleTo). */
export const sharedOnly = (alias = "b"): SQL =>
  sql.raw(`${alias}.created_by IS NULL AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`);
