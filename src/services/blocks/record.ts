import type { RawRow } from "../../db/rows";
import type { blocks } from "../../db/schema";
import type { Block } from "../../schemas/blocks";

export type { Block, BlockTree } from "../../schemas/blocks";

/** A `blocks` row as D1 returns it from `SELECT b.*` or `RETURNING *` (snake_case, JSON as text, flags as 0/1). */
export type BlockRecord = RawRow<typeof blocks>;

/** Turns a stored row into the response object; the row itself is never returned. */
export function presentBlock(record: BlockRecord): Block {
  return {
    id: record.id,
    type: record.type,
    parent_id: record.parent_id,
    database_id: record.database_id,
    teamspace_id: record.teamspace_id,
    properties: JSON.parse(record.properties) as Record<string, unknown>,
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
