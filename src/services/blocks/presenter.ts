import { sql } from "drizzle-orm";
import type { RawRow } from "../../db/rows";
import type { blocks } from "../../db/schema";
import { type Expected, type Preconditions, type Versioned, validatorOf, withValidator } from "../../lib/entity-tags";
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

/**
 * The kind of a block's entity tag: it names the row's `version` and `created_at` (RFC 9110
 * §8.8.3). The version starts again at 0 when a block is deleted and created again with the same
 * id (clients may choose ids); its creation time tells the two apart, so an old tag never matches
 * the new block.
 */
const BLOCK_TAG = "b";

/** A block's version in SQL (alias `b`), in the order of its validator's parts. */
export const blockVersioned = (id: string): Versioned => ({
  kind: BLOCK_TAG,
  id,
  columns: [sql`b.version`, sql`b.created_at`],
});

/** The stored version of a presented block (what its tag names). */
export function blockVersionOf(block: Block): number {
  const validator = validatorOf(block);
  if (validator?.kind !== BLOCK_TAG || typeof validator.parts[0] !== "number") {
    throw new Error("A block presented from its row carries its version");
  }
  return validator.parts[0];
}

/** What a write of block `id` expects, from the request's preconditions (If-Match, If-None-Match). */
export const expectBlock = (id: string, preconditions: Preconditions): Expected => ({
  preconditions,
  versioned: blockVersioned(id),
});

/**
 * Turns a stored row into the response object; the row itself is never returned. The object
 * carries the row's validator, for the answer's ETag.
 */
export function presentBlock(record: BlockRecord): Block {
  return withValidator(presentBlockFields(record), {
    kind: BLOCK_TAG,
    id: record.id,
    parts: [record.version, record.created_at],
  });
}

function presentBlockFields(record: BlockRecord): Block {
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
