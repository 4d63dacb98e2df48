import { type SQL, sql } from "drizzle-orm";
import { refuseInternalBlockType } from "../../auth/policies";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { type Expected, expectedSql, preconditionFailed, tagOfParts, versionPartsSql } from "../../lib/entity-tags";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { StaleWrite } from "../../lib/stale-write-retry";
import { afterLastSibling, rightAfter } from "./positions";
import { type Block, type BlockRecord, presentBlock } from "./presenter";
import { blockNotFound } from "./queries";
import { activeSubtree, firstOfEach, type SubtreeRow, visibleChildSteps } from "./subtree";
import { visibleTo } from "./visibility";

// Every write is one statement (or one batch) whose WHERE clause carries the
// ownership and reference checks, so a request costs one round trip after auth.
// When a write matches nothing, a diagnostic read explains why (error path only).

const toJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** What a caller adds to a block write, so rules about other records travel with it atomically. */
export interface WriteOptions {
  /**
   * A condition the write must also meet, evaluated in the same statement: it
   * holds when what the write was validated against is unchanged. When only it
   * fails, the write throws StaleWrite.
   */
  guard?: SQL;
  /** Statements for the same atomic batch, after the block write (they must check that it happened). */
  alsoInBatch?: (written: { id: string; timestamp: string }) => SQL[];
  /**
   * The request's preconditions on the block (If-Match, If-None-Match: RFC 9110 §13.1), checked in
   * the write's own WHERE clause; when only they fail, the write throws a 412 with the current tag.
   */
  expected?: Expected;
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

const visibleExists = (ctx: UserContext, id: string | null): SQL =>
  id === null ? sql`1` : sql`EXISTS (SELECT 1 FROM blocks r WHERE r.id = ${id} AND ${visibleTo(ctx.actor, "r")})`;

/** Runs a block write, alone or first in a batch with what the options add; returns the written row. */
async function runWrite(
  ctx: UserContext,
  write: SQL,
  written: { id: string; timestamp: string },
  options: WriteOptions,
): Promise<BlockRecord | undefined> {
  const extra = options.alsoInBatch?.(written) ?? [];
  if (extra.length === 0) return ctx.db.get<BlockRecord | undefined>(write);
  const [records] = await batchAll<[BlockRecord, ...unknown[]]>(ctx.db, [write, ...extra]);
  return records[0];
}

/** Creates a block owned by the caller; without a position it goes after its last sibling. */
export async function createBlock(
  ctx: UserContext,
  input: CreateBlockInput,
  options: WriteOptions = {},
): Promise<Block> {
  refuseInternalBlockType(input.type);
  const id = input.id ?? newId();
  const timestamp = ctx.now().toISOString();
  const position = input.position ?? afterLastSibling(ctx.actor, input.parentId);
  const insert = sql`
    INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      created_by, last_edited_by, created_at, updated_at)
    SELECT ${id}, ${input.type}, ${input.parentId}, ${input.databaseId}, ${input.teamspaceId},
      ${JSON.stringify(input.properties)}, ${toJson(input.content)}, ${position},
      ${ctx.actor.userId}, ${ctx.actor.userId}, ${timestamp}, ${timestamp}
    WHERE ${visibleExists(ctx, input.parentId)} AND ${visibleExists(ctx, input.databaseId)}
      AND ${options.guard ?? sql`1`}
    ON CONFLICT (id) DO NOTHING
    RETURNING *`;
  const record = await runWrite(ctx, insert, { id, timestamp }, options);
  if (record) return presentBlock(record);
  throw await explainRefusedCreate(ctx, { id, parentId: input.parentId, databaseId: input.databaseId }, options.guard);
}

async function explainRefusedCreate(
  ctx: UserContext,
  refs: { id: string; parentId: string | null; databaseId: string | null },
  guard: SQL | undefined,
): Promise<Error> {
  const row = await ctx.db.get<{ id_taken: number; parent_ok: number; database_ok: number; guard_ok: number }>(sql`
    SELECT EXISTS (SELECT 1 FROM blocks WHERE id = ${refs.id}) AS id_taken,
      ${visibleExists(ctx, refs.parentId)} AS parent_ok,
      ${visibleExists(ctx, refs.databaseId)} AS database_ok,
      ${guard ?? sql`1`} AS guard_ok`);
  if (row?.parent_ok === 0) return notFound("Parent block not found", { field: "parent_id", id: refs.parentId });
  if (row?.database_ok === 0)
    return notFound("Database block not found", { field: "database_id", id: refs.databaseId });
  if (row?.id_taken === 1) return conflict("A block with this id already exists", { field: "id", id: refs.id });
  if (row?.guard_ok === 0) return new StaleWrite();
  return new Error("Block insert matched nothing for an unknown reason");
}

export interface UpdateBlockInput {
  type?: string;
  /** Applied as an RFC 7396 merge patch: given keys replace, null removes, objects merge. */
  properties?: Record<string, unknown>;
  /**
   * How `properties` applies: `merge` (RFC 7396, the default), `values` (each given
   * key's value replaces the stored value whole: row values), or `all` (the given
   * object replaces the stored properties entirely).
   */
  propertiesMode?: "merge" | "values" | "all";
  parentId?: string | null;
  databaseId?: string | null;
  teamspaceId?: string | null;
  content?: unknown;
  /**
   * How `content` applies: `replace` (the default) or `append`: its items (an array) go after
   * the stored body's, in the UPDATE itself.
   */
  contentMode?: "replace" | "append";
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

function propertiesAssignment(properties: Record<string, unknown>, mode: UpdateBlockInput["propertiesMode"]): SQL {
  const patch = JSON.stringify(properties);
  if (mode === "all") return sql`properties = ${patch}`;
  if (mode === "values") {
    // Replacing whole values: first a patch that removes the given keys (null in a
    // merge patch removes), then the values. Two parameters, however many keys.
    const cleared = JSON.stringify(Object.fromEntries(Object.keys(properties).map((key) => [key, null])));
    return sql`properties = json_patch(json_patch(properties, ${cleared}), ${patch})`;
  }
  return sql`properties = json_patch(properties, ${patch})`;
}

/**
 * The stored body with `items` (a JSON array) after its own, computed by the UPDATE from the row it
 * changes: no read of the body first, so two appends at once both land, in the order they were
 * applied. A body that is not an array (an editor block's spans object, a bare value) becomes the
 * first item; no body is `items` alone. `json()` writes both minified, so the body's closing
 * bracket is its last character and the items' opening one their first.
 */
const appendedContent = (items: string): SQL => {
  const body = sql`(CASE
    WHEN b.content IS NULL OR json_type(b.content) = 'null' THEN '[]'
    WHEN json_type(b.content) = 'array' THEN json(b.content)
    ELSE json_array(json(b.content))
  END)`;
  // The items are bound once, in a subquery; the body is read from the row being updated.
  return sql`(SELECT CASE
      WHEN items = '[]' THEN ${body}
      WHEN ${body} = '[]' THEN items
      ELSE substr(${body}, 1, length(${body}) - 1) || ',' || substr(items, 2)
    END FROM (SELECT json(${items}) AS items))`;
};

function contentAssignment(content: unknown, mode: UpdateBlockInput["contentMode"]): SQL {
  if (mode === "append" && Array.isArray(content)) return sql`content = ${appendedContent(JSON.stringify(content))}`;
  return sql`content = ${toJson(content)}`;
}

/** Applies an update to a visible block in any state; server-controlled fields are not part of the input. */
export async function updateBlock(
  ctx: UserContext,
  id: string,
  input: UpdateBlockInput,
  options: WriteOptions = {},
): Promise<Block> {
  refuseInternalBlockType(input.type);
  const timestamp = ctx.now().toISOString();
  const assignments: SQL[] = [
    sql`last_edited_by = ${ctx.actor.userId}`,
    sql`updated_at = ${timestamp}`,
    sql`version = b.version + 1`,
  ];
  if (input.type !== undefined) assignments.push(sql`type = ${input.type}`);
  if (input.properties !== undefined) assignments.push(propertiesAssignment(input.properties, input.propertiesMode));
  if (input.parentId !== undefined) assignments.push(sql`parent_id = ${input.parentId}`);
  if (input.databaseId !== undefined) assignments.push(sql`database_id = ${input.databaseId}`);
  if (input.teamspaceId !== undefined) assignments.push(sql`teamspace_id = ${input.teamspaceId}`);
  if (input.content !== undefined) assignments.push(contentAssignment(input.content, input.contentMode));
  if (input.position !== undefined) assignments.push(sql`position = ${input.position}`);
  if (input.archived !== undefined) assignments.push(sql`archived = ${input.archived ? 1 : 0}`);
  if (input.inTrash !== undefined) assignments.push(sql`in_trash = ${input.inTrash ? 1 : 0}`);

  const conditions: SQL[] = [sql`b.id = ${id}`, visibleTo(ctx.actor)];
  if (input.parentId) {
    conditions.push(visibleExists(ctx, input.parentId), sql`NOT ${wouldCycle(id, input.parentId)}`);
  }
  if (input.databaseId) conditions.push(visibleExists(ctx, input.databaseId));
  if (options.guard) conditions.push(options.guard);
  const expected = expectedSql(options.expected);
  if (expected) conditions.push(expected);

  const update = sql`
    UPDATE blocks AS b SET ${sql.join(assignments, sql`, `)}
    WHERE ${sql.join(conditions, sql` AND `)}
    RETURNING *`;
  const record = await runWrite(ctx, update, { id, timestamp }, options);
  if (record) return presentBlock(record);
  throw await explainRefusedUpdate(ctx, id, input, options);
}

async function explainRefusedUpdate(ctx: UserContext, id: string, input: UpdateBlockInput, options: WriteOptions) {
  const { guard } = options;
  const parentId = input.parentId ?? null;
  const databaseId = input.databaseId ?? null;
  const row = await ctx.db.get<{
    block_ok: number;
    parent_ok: number;
    database_ok: number;
    cycle: number;
    guard_ok: number;
    expected_ok: number | null;
    current_version: string | null;
  }>(sql`
    SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)}) AS block_ok,
      ${visibleExists(ctx, parentId)} AS parent_ok,
      ${visibleExists(ctx, databaseId)} AS database_ok,
      ${parentId === null ? sql`0` : wouldCycle(id, parentId)} AS cycle,
      (SELECT ${guard ?? sql`1`} FROM blocks b WHERE b.id = ${id}) AS guard_ok,
      ${expectedChecks(options.expected, id)}`);
  if (row?.block_ok !== 1) return blockNotFound(id);
  if (row.expected_ok === 0 && options.expected) {
    return preconditionFailed(tagOfParts(options.expected.versioned, row.current_version));
  }
  if (row.parent_ok === 0) return notFound("Parent block not found", { field: "parent_id", id: parentId });
  if (row.database_ok === 0) return notFound("Database block not found", { field: "database_id", id: databaseId });
  if (row.cycle === 1) {
    return badRequest("A block cannot be moved under itself or one of its descendants", {
      field: "parent_id",
      id: parentId,
    });
  }
  if (row.guard_ok === 0) return new StaleWrite();
  return new Error("Block update matched nothing for an unknown reason");
}

/** Columns `expected_ok` and `current_version` of a refused write's explanation: did the preconditions hold, and the block's version. */
const expectedChecks = (expected: Expected | undefined, id: string): SQL =>
  expected
    ? sql`(SELECT ${expectedSql(expected) ?? sql`1`} FROM blocks b WHERE b.id = ${id}) AS expected_ok,
      (SELECT ${versionPartsSql(expected.versioned)} FROM blocks b WHERE b.id = ${id}) AS current_version`
    : sql`1 AS expected_ok, NULL AS current_version`;

/**
 * Permanently deletes a visible block and its visible descendants (children and,
 * for a database, its rows) in one atomic batch, so nothing is left orphaned:
 * descendants the caller cannot see (other users' blocks under a shared page)
 * are not deleted but detached to the top level, and keep their own subtrees.
 */
export async function deleteBlock(ctx: UserContext, id: string, expected?: Expected): Promise<number> {
  const tree = sql`WITH RECURSIVE tree(id) AS (
      SELECT b.id FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)} AND ${expectedSql(expected) ?? sql`1`}
      UNION ${visibleChildSteps(ctx.actor, "tree")}
    )`;
  const [, deleted] = await batchAll<[unknown, { id: string }]>(ctx.db, [
    sql`${tree}
      UPDATE blocks AS b SET
        parent_id = CASE WHEN b.parent_id IN (SELECT id FROM tree) THEN NULL ELSE b.parent_id END,
        database_id = CASE WHEN b.database_id IN (SELECT id FROM tree) THEN NULL ELSE b.database_id END
      WHERE (b.parent_id IN (SELECT id FROM tree) OR b.database_id IN (SELECT id FROM tree))
        AND NOT (${visibleTo(ctx.actor)})`,
    sql`${tree} DELETE FROM blocks WHERE id IN (SELECT id FROM tree) RETURNING id`,
  ]);
  if (deleted.length === 0) throw await explainRefusedWrite(ctx, id, expected);
  return deleted.length;
}

/** Why a delete or duplicate wrote nothing: the block is not visible (404), or the preconditions did not hold (412). */
async function explainRefusedWrite(ctx: UserContext, id: string, expected: Expected | undefined): Promise<Error> {
  if (!expected) return blockNotFound(id);
  const row = await ctx.db.get<{ block_ok: number; expected_ok: number | null; current_version: string | null }>(sql`
    SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)}) AS block_ok,
      ${expectedChecks(expected, id)}`);
  if (row?.block_ok !== 1) return blockNotFound(id);
  if (row.expected_ok === 0) return preconditionFailed(tagOfParts(expected.versioned, row.current_version));
  return new Error("Block write matched nothing for an unknown reason");
}

/** Upper bound on the blocks one duplicate copies. */
export const DUPLICATE_MAX_BLOCKS = 10_000;

/**
 * Copies a visible block (and by default its active descendants) in one INSERT,
 * placing the copy right after the original. The copies are active and owned by
 * the caller; references inside the copied subtree (parent, database) point to
 * the copies.
 */
export async function duplicateBlock(
  ctx: UserContext,
  id: string,
  options: {
    includeChildren: boolean;
    /**
     * Statements for the same batch that copy what belongs to the copied blocks:
     * `copies` is JSON `[{source_id, id, ...}]`, one entry per copied block.
     */
    alsoInBatch?: (copied: { copies: string; timestamp: string }) => SQL[];
    /**
     * The request's preconditions, on the block copied (the request's target, RFC 9110 §13.1.1),
     * checked in the INSERT itself: when they fail nothing is copied and the answer is a 412.
     */
    expected?: Expected;
  },
): Promise<{ block: Block; copied: number }> {
  const found = await ctx.db.all<SubtreeRow>(sql`
    ${activeSubtree(ctx.actor, id, options.includeChildren)}
    SELECT tree.* FROM tree
    ORDER BY tree.depth
    LIMIT ${DUPLICATE_MAX_BLOCKS + 1}`);
  // A row reached both as a child and as a row of a copied database appears twice: keep the first.
  const nodes = firstOfEach(found);
  const root = nodes[0];
  if (root?.depth !== 0) throw blockNotFound(id);
  if (nodes.length > DUPLICATE_MAX_BLOCKS) {
    throw badRequest(`Cannot duplicate more than ${DUPLICATE_MAX_BLOCKS} blocks at once`, { id });
  }

  const copyIds = new Map(nodes.map((node) => [node.id, newId()]));
  // Descendants keep their positions among their (copied) siblings; the root's is read in the
  // INSERT itself (rightAfter), so concurrent duplicates of one block each get their own place.
  const copies = nodes.map((node) => ({
    source_id: node.id,
    id: copyIds.get(node.id),
    parent_id: node.depth === 0 ? node.parent_id : (copyIds.get(node.parent_id ?? "") ?? node.parent_id),
    database_id: node.database_id === null ? null : (copyIds.get(node.database_id) ?? node.database_id),
    position: node.position,
  }));
  const timestamp = ctx.now().toISOString();
  const copiesJson = JSON.stringify(copies);
  // One atomic batch: the blocks, then what the caller copies along with them.
  const [inserted] = await batchAll<[BlockRecord, ...unknown[]]>(ctx.db, [
    sql`
    INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      archived, in_trash, created_by, last_edited_by, created_at, updated_at)
    SELECT copy.value ->> '$.id', b.type, copy.value ->> '$.parent_id', copy.value ->> '$.database_id',
      b.teamspace_id, b.properties, b.content,
      CASE WHEN b.id = ${root.id} THEN ${rightAfter(ctx.actor, "b")} ELSE copy.value ->> '$.position' END,
      0, 0, ${ctx.actor.userId}, ${ctx.actor.userId}, ${timestamp}, ${timestamp}
    FROM json_each(${copiesJson}) AS copy
    JOIN blocks b ON b.id = copy.value ->> '$.source_id'
    WHERE (SELECT ${expectedSql(options.expected) ?? sql`1`} FROM blocks b WHERE b.id = ${root.id})
    RETURNING *`,
    ...(options.alsoInBatch?.({ copies: copiesJson, timestamp }) ?? []),
  ]);
  const rootCopy = inserted.find((record) => record.id === copyIds.get(root.id));
  if (!rootCopy) throw await explainRefusedWrite(ctx, id, options.expected);
  return { block: presentBlock(rootCopy), copied: inserted.length };
}
