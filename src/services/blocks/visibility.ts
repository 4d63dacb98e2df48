import { type SQL, sql } from "drizzle-orm";

/** Never returned by, nor writable through, user-facing endpoints. */
export const INTERNAL_BLOCK_TYPE = "provider_audit_log";

/**
 * The one place block ownership is decided, always inside the query: a user sees
 * blocks they created and shared blocks (`created_by IS NULL`), never internal logs.
 * `alias` is the table alias the query uses for `blocks`.
 */
export const visibleTo = (userId: string, alias = "b"): SQL =>
  sql
    .raw(`(${alias}.created_by = `)
    .append(sql`${userId} OR `)
    .append(sql.raw(`${alias}.created_by IS NULL) AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`));

/** Not archived and not in the trash: what reads (get, children, hierarchy, listing) return. */
export const isActive = (alias = "b"): SQL => sql.raw(`${alias}.archived = 0 AND ${alias}.in_trash = 0`);

/** The caller's own blocks (one side of visibleTo, for index-ordered scans of one owner). */
export const ownedBy = (userId: string, alias = "b"): SQL =>
  sql
    .raw(`${alias}.created_by = `)
    .append(sql`${userId}`)
    .append(sql.raw(` AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`));

/** Shared blocks (the other side of visibleTo). */
export const sharedOnly = (alias = "b"): SQL =>
  sql.raw(`${alias}.created_by IS NULL AND ${alias}.type <> '${INTERNAL_BLOCK_TYPE}'`);
