import type { RawRow } from "../../db/rows";
import type { blocks } from "../../db/schema";
import type { Block } from "../../schemas/blocks";

export type { Block, BlockTree } from "../../schemas/blocks";

/** A `blocks` row as D1 returns it from `SELECT b.*` or `RETURNING *` (snake_case, JSON as text, flags as 0/1). */
export type BlockRecord = RawRow<typeof blocks>;

/**
 * A block's stored `properties` as an object. Every write stores an object, but a block written
 * straight to the database may hold JSON `null` (or an array, a number...): it reads as no
 * properties, `{}`, so no reader (a row's named values, a title, an export) meets a null. The next
 * write of properties stores an object again (json_patch of a non-object is the patch).
 */
export function parseProperties(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** Turns a stored row into the response object; the row itself is never returned. */
export function presentBlock(record: BlockRecord): Block {
  return {
    id: record.id,
    type: record.type,
    parent_id: record.parent_id,
    database_id: record.database_id,
    teamspace_id: record.teamspace_id,
    properties: parseProperties(record.properties),
    content: record.content === null ? null : (JSON.parse(record.content) as unknown),
    position: record.position,
    archived: record.archived === 1,
    in_trash: record.in_trash === 1,
    created_by: record.created_by,
    last_edited_by: record.last_edited_by,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
