import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { Database } from "../../db/client";
import { badRequest, conflict, forbidden, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { defaultSchemaInserts } from "../databases/schema-records";
import { blockNotFound } from "./queries";
import { type Block, type BlockRecord, presentBlock } from "./record";
import { INTERNAL_BLOCK_TYPE, isActive, visibleTo } from "./visibility";

// Every write is one statement (or one batch) whose WHERE clause carries the
// ownership and reference checks, so a request costs one round trip after auth.
// When a write matches nothing, a diagnostic read explains why (error path only).

const now = () => new Date().toISOString();
const toJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

export function refuseInternalType(type: string | undefined): void {
  if (type === INTERNAL_BLOCK_TYPE) {
    throw forbidden(`Blocks of type '${INTERNAL_BLOCK_TYPE}' are internal and cannot be created or converted to`, {
      type,
    });
  }
}

export interface CreateBlockInput {
  id?: string;
  type: string;
  properties: Record<string, unknown>;
  parentId: string | null;
  databaseId: string | null;
  teamspaceId: string | null;
  content: unknown;
  position?: number;
}

const visibleExists = (userId: string, id: string | null): SQL =>
  id === null ? sql`1` : sql`EXISTS (SELECT 1 FROM blocks r WHERE r.id = ${id} AND ${visibleTo(userId, "r")})`;

/** Creates a block owned by the caller; without a position it goes after its last sibling. */
export async function createBlock(db: Database, userId: string, input: CreateBlockInput): Promise<Block> {
  refuseInternalType(input.type);
  const id = input.id ?? newId();
  const timestamp = now();
  const position =
    input.position ??
    sql`(SELECT coalesce(max(s.position), 0) + 1 FROM blocks s WHERE s.parent_id IS ${input.parentId})`;
  const insert = sql`
    INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      created_by, last_edited_by, created_at, updated_at)
    SELECT ${id}, ${input.type}, ${input.parentId}, ${input.databaseId}, ${input.teamspaceId},
      ${JSON.stringify(input.properties)}, ${toJson(input.content)}, ${position},
      ${userId}, ${userId}, ${timestamp}, ${timestamp}
    WHERE ${visibleExists(userId, input.parentId)} AND ${visibleExists(userId, input.databaseId)}
    ON CONFLICT (id) DO NOTHING
    RETURNING *`;
  // A database gets its default schema records in the same atomic batch (contract, Block rule 8).
  const [record] =
    input.type === "database"
      ? (
          await batchAll<[BlockRecord, unknown]>(db, [
            insert,
            defaultSchemaInserts(id, timestamp, sql`d.created_by = ${userId} AND d.created_at = ${timestamp}`),
          ])
        )[0]
      : [await db.get<BlockRecord | undefined>(insert)];
  if (record) return presentBlock(record);
  throw await explainRefusedReferences(db, userId, { id, parentId: input.parentId, databaseId: input.databaseId });
}

async function explainRefusedReferences(
  db: Database,
  userId: string,
  refs: { id: string; parentId: string | null; databaseId: string | null },
): Promise<Error> {
  const row = await db.get<{ id_taken: number; parent_ok: number; database_ok: number }>(sql`
    SELECT EXISTS (SELECT 1 FROM blocks WHERE id = ${refs.id}) AS id_taken,
      ${visibleExists(userId, refs.parentId)} AS parent_ok,
      ${visibleExists(userId, refs.databaseId)} AS database_ok`);
  if (row?.parent_ok === 0) return notFound("Parent block not found", { field: "parent_id", id: refs.parentId });
  if (row?.database_ok === 0)
    return notFound("Database block not found", { field: "database_id", id: refs.databaseId });
  if (row?.id_taken === 1) return conflict("A block with this id already exists", { field: "id", id: refs.id });
  return new Error("Block insert matched nothing for an unknown reason");
}

export interface UpdateBlockInput {
  type?: string;
  /** Applied as an RFC 7396 merge patch: given keys replace, null removes, objects merge. */
  properties?: Record<string, unknown>;
  /** Each given key's value replaces the stored value whole (row values) instead of merging into it. */
  replacePropertyValues?: boolean;
  /** The block turns into a database: its default schema is written in the same batch. */
  becomesDatabase?: boolean;
  parentId?: string | null;
  databaseId?: string | null;
  teamspaceId?: string | null;
  content?: unknown;
  position?: number;
  archived?: boolean;
  inTrash?: boolean;
}

/** True when `ancestorOf` is `id` or lies under it: making it the parent of `id` would form a cycle. */
const wouldCycle = (id: string, newParentId: string): SQL => sql`EXISTS (
  WITH RECURSIVE ancestors(id, depth) AS (
    SELECT ${newParentId}, 0
    UNION ALL
    SELECT a.parent_id, ancestors.depth + 1 FROM blocks a JOIN ancestors ON a.id = ancestors.id
    WHERE a.parent_id IS NOT NULL AND ancestors.depth < 100000
  )
  SELECT 1 FROM ancestors WHERE ancestors.id = ${id})`;

/** Applies an update to a visible block in any state; server-controlled fields are not part of the input. */
export async function updateBlock(db: Database, userId: string, id: string, input: UpdateBlockInput): Promise<Block> {
  refuseInternalType(input.type);
  const timestamp = now();
  const assignments: SQL[] = [sql`last_edited_by = ${userId}`, sql`updated_at = ${timestamp}`];
  if (input.type !== undefined) assignments.push(sql`type = ${input.type}`);
  if (input.properties !== undefined) {
    const patch = JSON.stringify(input.properties);
    // Replacing whole values: first a patch that removes the given keys (null in a
    // merge patch removes), then the values. Two parameters, however many keys.
    const cleared = JSON.stringify(Object.fromEntries(Object.keys(input.properties).map((key) => [key, null])));
    const base = input.replacePropertyValues ? sql`json_patch(properties, ${cleared})` : sql`properties`;
    assignments.push(sql`properties = json_patch(${base}, ${patch})`);
  }
  if (input.parentId !== undefined) assignments.push(sql`parent_id = ${input.parentId}`);
  if (input.databaseId !== undefined) assignments.push(sql`database_id = ${input.databaseId}`);
  if (input.teamspaceId !== undefined) assignments.push(sql`teamspace_id = ${input.teamspaceId}`);
  if (input.content !== undefined) assignments.push(sql`content = ${toJson(input.content)}`);
  if (input.position !== undefined) assignments.push(sql`position = ${input.position}`);
  if (input.archived !== undefined) assignments.push(sql`archived = ${input.archived ? 1 : 0}`);
  if (input.inTrash !== undefined) assignments.push(sql`in_trash = ${input.inTrash ? 1 : 0}`);

  const conditions: SQL[] = [sql`b.id = ${id}`, visibleTo(userId)];
  if (input.parentId) {
    conditions.push(visibleExists(userId, input.parentId), sql`NOT ${wouldCycle(id, input.parentId)}`);
  }
  if (input.databaseId) conditions.push(visibleExists(userId, input.databaseId));

  const update = sql`
    UPDATE blocks AS b SET ${sql.join(assignments, sql`, `)}
    WHERE ${sql.join(conditions, sql` AND `)}
    RETURNING *`;
  const [record] = input.becomesDatabase
    ? (
        await batchAll<[BlockRecord, unknown]>(db, [
          update,
          defaultSchemaInserts(id, timestamp, sql`d.last_edited_by = ${userId} AND d.updated_at = ${timestamp}`),
        ])
      )[0]
    : [await db.get<BlockRecord | undefined>(update)];
  if (record) return presentBlock(record);
  throw await explainRefusedUpdate(db, userId, id, input);
}

async function explainRefusedUpdate(db: Database, userId: string, id: string, input: UpdateBlockInput) {
  const parentId = input.parentId ?? null;
  const databaseId = input.databaseId ?? null;
  const row = await db.get<{ block_ok: number; parent_ok: number; database_ok: number; cycle: number }>(sql`
    SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${id} AND ${visibleTo(userId)}) AS block_ok,
      ${visibleExists(userId, parentId)} AS parent_ok,
      ${visibleExists(userId, databaseId)} AS database_ok,
      ${parentId === null ? sql`0` : wouldCycle(id, parentId)} AS cycle`);
  if (row?.block_ok !== 1) return blockNotFound(id);
  if (row.parent_ok === 0) return notFound("Parent block not found", { field: "parent_id", id: parentId });
  if (row.database_ok === 0) return notFound("Database block not found", { field: "database_id", id: databaseId });
  if (row.cycle === 1) {
    return badRequest("A block cannot be moved under itself or one of its descendants", {
      field: "parent_id",
      id: parentId,
    });
  }
  return new Error("Block update matched nothing for an unknown reason");
}

/**
 * Permanently deletes a visible block and its visible descendants (children and,
 * for a database, its rows) in one atomic batch, so nothing is left orphaned:
 * descendants the caller cannot see (other users' blocks under a shared page)
 * are not deleted but detached to the top level, and keep their own subtrees.
 */
export async function deleteBlock(db: Database, userId: string, id: string): Promise<number> {
  const tree = sql`WITH RECURSIVE tree(id) AS (
      SELECT b.id FROM blocks b WHERE b.id = ${id} AND ${visibleTo(userId)}
      UNION
      SELECT c.id FROM blocks c JOIN tree ON c.parent_id = tree.id OR c.database_id = tree.id
      WHERE ${visibleTo(userId, "c")}
    )`;
  const [, deleted] = await batchAll<[unknown, { id: string }]>(db, [
    sql`${tree}
      UPDATE blocks AS b SET
        parent_id = CASE WHEN b.parent_id IN (SELECT id FROM tree) THEN NULL ELSE b.parent_id END,
        database_id = CASE WHEN b.database_id IN (SELECT id FROM tree) THEN NULL ELSE b.database_id END
      WHERE (b.parent_id IN (SELECT id FROM tree) OR b.database_id IN (SELECT id FROM tree))
        AND NOT (${visibleTo(userId)})`,
    sql`${tree} DELETE FROM blocks WHERE id IN (SELECT id FROM tree) RETURNING id`,
  ]);
  if (deleted.length === 0) throw blockNotFound(id);
  return deleted.length;
}

/** Upper bound on the blocks one duplicate copies. */
export const DUPLICATE_MAX_BLOCKS = 10_000;
/** Upper bound on the levels a duplicate follows (a bound on the recursion, whatever links it meets). */
const DUPLICATE_MAX_DEPTH = 1_000;

interface SubtreeNode {
  id: string;
  parent_id: string | null;
  database_id: string | null;
  position: number | null;
  depth: number;
  next_sibling_position: number | null;
  last_sibling_position: number | null;
}

/**
 * Copies a visible block (and by default its active descendants) in one INSERT,
 * placing the copy right after the original. The copies are active and owned by
 * the caller; references inside the copied subtree (parent, database) point to
 * the copies.
 */
export async function duplicateBlock(
  db: Database,
  userId: string,
  id: string,
  options: { includeChildren: boolean },
): Promise<{ block: Block; copied: number }> {
  // Rows travel through the recursion (no join back by id: that scans the table).
  const found = await db.all<SubtreeNode>(sql`
    WITH RECURSIVE tree AS (
      SELECT b.id, b.parent_id, b.database_id, b.position, 0 AS depth FROM blocks b
      WHERE b.id = ${id} AND ${visibleTo(userId)}
      UNION
      SELECT c.id, c.parent_id, c.database_id, c.position, tree.depth + 1 FROM blocks c
      JOIN tree ON c.parent_id = tree.id OR c.database_id = tree.id
      WHERE ${options.includeChildren ? sql`1` : sql`0`} AND ${visibleTo(userId, "c")} AND ${isActive("c")}
        AND tree.depth < ${DUPLICATE_MAX_DEPTH}
    )
    SELECT tree.*,
      CASE WHEN tree.depth = 0 THEN (SELECT min(s.position) FROM blocks s
        WHERE s.parent_id IS tree.parent_id AND s.position > tree.position) END AS next_sibling_position,
      CASE WHEN tree.depth = 0 THEN (SELECT max(s.position) FROM blocks s
        WHERE s.parent_id IS tree.parent_id) END AS last_sibling_position
    FROM tree
    ORDER BY tree.depth
    LIMIT ${DUPLICATE_MAX_BLOCKS + 1}`);
  // A row reached both as a child and as a row of a copied database appears twice: keep the first.
  const seen = new Set<string>();
  const nodes = found.filter((node) => !seen.has(node.id) && seen.add(node.id));
  const root = nodes[0];
  if (root?.depth !== 0) throw blockNotFound(id);
  if (nodes.length > DUPLICATE_MAX_BLOCKS) {
    throw badRequest(`Cannot duplicate more than ${DUPLICATE_MAX_BLOCKS} blocks at once`, { id });
  }

  const copyIds = new Map(nodes.map((node) => [node.id, newId()]));
  const rootPosition =
    root.position === null
      ? (root.last_sibling_position ?? 0) + 1
      : root.next_sibling_position === null
        ? root.position + 1
        : (root.position + root.next_sibling_position) / 2;
  const copies = nodes.map((node) => ({
    source_id: node.id,
    id: copyIds.get(node.id),
    parent_id: node.depth === 0 ? node.parent_id : (copyIds.get(node.parent_id ?? "") ?? node.parent_id),
    database_id: node.database_id === null ? null : (copyIds.get(node.database_id) ?? node.database_id),
    position: node.depth === 0 ? rootPosition : node.position,
  }));
  const timestamp = now();
  const copiesJson = JSON.stringify(copies);
  // One atomic batch: the blocks, then the schema records of copied databases. Property ids
  // are kept (they are unique per database), so copied rows' values stay valid.
  const [inserted] = await batchAll<[BlockRecord, unknown]>(db, [
    sql`
    INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      archived, in_trash, created_by, last_edited_by, created_at, updated_at)
    SELECT copy.value ->> '$.id', b.type, copy.value ->> '$.parent_id', copy.value ->> '$.database_id',
      b.teamspace_id, b.properties, b.content, copy.value ->> '$.position',
      0, 0, ${userId}, ${userId}, ${timestamp}, ${timestamp}
    FROM json_each(${copiesJson}) AS copy
    JOIN blocks b ON b.id = copy.value ->> '$.source_id'
    RETURNING *`,
    sql`
    INSERT INTO database_properties (id, database_id, name, type, options, position, created_at, updated_at)
    SELECT p.id, copy.value ->> '$.id', p.name, p.type, p.options, p.position, ${timestamp}, ${timestamp}
    FROM json_each(${copiesJson}) AS copy
    JOIN database_properties p ON p.database_id = copy.value ->> '$.source_id'`,
  ]);
  const rootCopy = inserted.find((record) => record.id === copyIds.get(root.id));
  if (!rootCopy) throw blockNotFound(id);
  return { block: presentBlock(rootCopy), copied: inserted.length };
}
