import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  type Listing,
  listingQueries,
  type PageWindow,
  type ResultPage,
  readPage,
  withoutKeyColumns,
} from "../../lib/pagination";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import type { SyncedBlock, SyncedBlockStatus } from "../../schemas/synced-blocks";
import { blockNotFound } from "../blocks/queries";
import { visibleTo } from "../blocks/visibility";

// Synced-block links: an instance block follows a source block. Every rule of a
// link (both blocks visible and syncable, the source at least as visible as the
// instance, one source per instance, no cycle) is a condition of the INSERT itself, so
// concurrent links cannot together break one; when the INSERT matches nothing, a
// diagnostic read says why (error path only). Every rule is judged on what the caller
// sees, so no answer depends on (or reveals) another user's private blocks or links.

/**
 * Blocks of these types are neither sources nor instances: a database's rows and schema
 * records, and a row's values under its database's schema, are not copied verbatim.
 */
export const UNSYNCABLE_TYPES = ["database", "database_row"] as const;
export const UNSYNCABLE = sql.raw(`(${UNSYNCABLE_TYPES.map((type) => `'${type}'`).join(", ")})`);

const isUnsyncable = (type: string) => (UNSYNCABLE_TYPES as readonly string[]).includes(type);

/** The link `s` is visible when the caller sees both of its blocks. */
export const linkVisible = (ctx: UserContext, alias = "s"): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks a WHERE a.id = ${sql.raw(`${alias}.source_block_id`)} AND ${visibleTo(ctx.actor, "a")})
    AND EXISTS (SELECT 1 FROM blocks a WHERE a.id = ${sql.raw(`${alias}.instance_block_id`)} AND ${visibleTo(ctx.actor, "a")})`;

const syncableVisible = (ctx: UserContext, id: string): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks a WHERE a.id = ${id} AND ${visibleTo(ctx.actor, "a")} AND a.type NOT IN ${UNSYNCABLE})`;

/**
 * True when the source block `src` is at least as visible as the instance block `inst`
 * (aliases): the source is shared, or both belong to the same user. Everyone who sees
 * such an instance sees its source, hence its link, and a propagation never puts a private
 * block's type, properties or content on a block others see. A shared instance therefore
 * needs a shared source.
 */
export const sourceCovers = (src = "src", inst = "inst"): SQL =>
  sql.raw(`(${src}.created_by IS NULL OR ${src}.created_by IS ${inst}.created_by)`);

/**
 * True when `dependent` already depends on `on`'s content, as far as the caller can see:
 * it is `on`, contains it (as an ancestor by `parent_id`, or as its database), or follows
 * (through synced links) a block that does, transitively. Walks from `on` to what depends
 * on it, its ancestors and the instances that follow it, through visible blocks only (a
 * block the caller cannot see ends the walk), so the answer reveals nothing of another
 * user's private blocks or links. Making `on` follow `dependent` would then close a cycle.
 */
export const dependsOn = (ctx: UserContext, dependent: string, on: string): SQL => sql`EXISTS (
  WITH RECURSIVE dependents(id) AS (
    SELECT ${on}
    UNION SELECT p.id FROM blocks d JOIN dependents ON d.id = dependents.id JOIN blocks p ON p.id = d.parent_id
      WHERE ${visibleTo(ctx.actor, "p")}
    UNION SELECT p.id FROM blocks d JOIN dependents ON d.id = dependents.id JOIN blocks p ON p.id = d.database_id
      WHERE ${visibleTo(ctx.actor, "p")}
    UNION SELECT p.id FROM synced_blocks f JOIN dependents ON f.source_block_id = dependents.id
      JOIN blocks p ON p.id = f.instance_block_id
      WHERE f.status = 'synced' AND ${visibleTo(ctx.actor, "p")}
  )
  SELECT 1 FROM dependents WHERE dependents.id = ${dependent})`;

/**
 * True when `outer` is an ancestor of `inner` (by `parent_id` or `database_id`, any state)
 * through blocks the caller sees: an ancestor the caller cannot see ends the walk.
 */
export const inside = (ctx: UserContext, inner: string, outer: string): SQL => sql`EXISTS (
  WITH RECURSIVE ancestors(id) AS (
    SELECT ${inner}
    UNION SELECT p.id FROM blocks d JOIN ancestors ON d.id = ancestors.id JOIN blocks p ON p.id = d.parent_id
      WHERE ${visibleTo(ctx.actor, "p")}
    UNION SELECT p.id FROM blocks d JOIN ancestors ON d.id = ancestors.id JOIN blocks p ON p.id = d.database_id
      WHERE ${visibleTo(ctx.actor, "p")}
  )
  SELECT 1 FROM ancestors WHERE ancestors.id = ${outer})`;

/**
 * The caller sees the source of the existing link `link` (alias). Its instance is the one
 * being linked, which the caller sees, so this says whether the caller sees the link.
 */
const sourceVisible = (ctx: UserContext, link: string): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks a WHERE a.id = ${sql.raw(`${link}.source_block_id`)} AND ${visibleTo(ctx.actor, "a")})`;

export interface LinkInput {
  sourceBlockId: string;
  instanceBlockId: string;
}

/**
 * Makes the instance follow the source. An instance whose earlier link was unlinked may
 * follow again (the same or another source): its record is replaced by the new link. So is
 * a link whose source the caller cannot see (one made before a shared instance needed a
 * shared source): to the caller it is no link, and it is answered as if there were none.
 */
export function linkBlocks(ctx: UserContext, input: LinkInput): Promise<SyncedBlock> {
  const { sourceBlockId: source, instanceBlockId: instance } = input;
  if (source === instance) {
    throw badRequest("A block cannot follow itself", { field: "instance_block_id", id: instance });
  }
  return retryWhileStale("synced blocks", async () => {
    const timestamp = ctx.now().toISOString();
    const record = await ctx.db.get<SyncedBlock | undefined>(sql`
      INSERT INTO synced_blocks (id, source_block_id, instance_block_id, status, last_synced_at, created_by, created_at)
      SELECT ${newId()}, ${source}, ${instance}, 'synced', NULL, ${ctx.actor.userId}, ${timestamp}
      WHERE ${syncableVisible(ctx, source)} AND ${syncableVisible(ctx, instance)}
        AND EXISTS (SELECT 1 FROM blocks src, blocks inst WHERE src.id = ${source} AND inst.id = ${instance}
          AND ${sourceCovers()})
        AND NOT ${inside(ctx, source, instance)} AND NOT ${dependsOn(ctx, source, instance)}
      ON CONFLICT (instance_block_id) DO UPDATE SET id = excluded.id, source_block_id = excluded.source_block_id,
        status = 'synced', last_synced_at = NULL, created_by = excluded.created_by, created_at = excluded.created_at
      WHERE synced_blocks.status = 'unlinked' OR NOT ${sourceVisible(ctx, "synced_blocks")}
      RETURNING *`);
    if (record) return record;
    throw await explainRefusedLink(ctx, source, instance);
  });
}

async function explainRefusedLink(ctx: UserContext, source: string, instance: string): Promise<Error> {
  const typeOf = (id: string) => sql`(SELECT a.type FROM blocks a WHERE a.id = ${id} AND ${visibleTo(ctx.actor, "a")})`;
  const row = await ctx.db.get<{
    source_type: string | null;
    instance_type: string | null;
    covers: number;
    following: number;
    source_inside_instance: number;
    instance_inside_source: number;
    cycle: number;
  }>(sql`
    SELECT ${typeOf(source)} AS source_type, ${typeOf(instance)} AS instance_type,
      EXISTS (SELECT 1 FROM blocks src, blocks inst WHERE src.id = ${source} AND inst.id = ${instance}
        AND ${sourceCovers()}) AS covers,
      EXISTS (SELECT 1 FROM synced_blocks f WHERE f.instance_block_id = ${instance} AND f.status = 'synced'
        AND ${sourceVisible(ctx, "f")}) AS following,
      ${inside(ctx, source, instance)} AS source_inside_instance,
      ${inside(ctx, instance, source)} AS instance_inside_source,
      ${dependsOn(ctx, source, instance)} AS cycle`);
  if (!row?.source_type) return notFound("Source block not found", { field: "source_block_id", id: source });
  if (!row.instance_type) return notFound("Instance block not found", { field: "instance_block_id", id: instance });
  for (const [field, id, type] of [
    ["source_block_id", source, row.source_type],
    ["instance_block_id", instance, row.instance_type],
  ] as const) {
    if (isUnsyncable(type)) {
      return badRequest("A database or a database row cannot be a synced block", { field, id, type });
    }
  }
  if (row.covers !== 1) {
    // Both blocks are visible, so this reveals nothing: the source is the caller's, the instance shared.
    return badRequest(
      "A shared instance cannot follow a private source: its content would be shown to everyone who sees the instance",
      { field: "source_block_id", id: source, reason: "source_less_visible" },
    );
  }
  if (row.following === 1) {
    return conflict("This instance already follows a source: unlink it first", {
      field: "instance_block_id",
      id: instance,
    });
  }
  if (row.source_inside_instance === 1) {
    return conflict("The source lies inside the instance: propagating would replace the source itself", {
      reason: "source_inside_instance",
    });
  }
  if (row.instance_inside_source === 1) {
    return conflict("The instance lies inside the source: it would be copied into itself", {
      reason: "instance_inside_source",
    });
  }
  if (row.cycle === 1) {
    return conflict(
      "The source already follows the instance (directly, or through other synced blocks and the blocks that contain them): linking them would form a cycle",
      { reason: "cycle" },
    );
  }
  // Nothing refuses it now: what refused it changed in the meantime (an unlink, a move). Try again.
  return new StaleWrite();
}

/** The link of an instance, when the caller sees both of its blocks. */
export async function getLink(ctx: UserContext, instanceBlockId: string): Promise<SyncedBlock> {
  const record = await ctx.db.get<SyncedBlock | undefined>(
    sql`SELECT s.* FROM synced_blocks s WHERE s.instance_block_id = ${instanceBlockId} AND ${linkVisible(ctx)}`,
  );
  if (!record) throw linkNotFound(instanceBlockId);
  return record;
}

const linkNotFound = (instanceBlockId: string) =>
  notFound("No synced block for this instance", { instance_block_id: instanceBlockId });

/** One page of a visible source's links to instances the caller sees, oldest first. */
export async function listInstances(
  ctx: UserContext,
  sourceBlockId: string,
  window: PageWindow,
  status?: SyncedBlockStatus,
): Promise<ResultPage<SyncedBlock>> {
  const listing: Listing = {
    name: "synced-blocks.instances",
    filters: { sourceBlockId, status: status ?? null },
    keys: [
      { expression: sql`s.created_at`, direction: "asc" },
      { expression: sql`s.id`, direction: "asc" },
    ],
  };
  const where = sql`s.source_block_id = ${sourceBlockId}
    AND ${status ? sql`s.status = ${status}` : sql`1`}
    AND EXISTS (SELECT 1 FROM blocks a WHERE a.id = s.instance_block_id AND ${visibleTo(ctx.actor, "a")})`;
  const [sources, records, counts] = await batchAll<[{ id: string }, SyncedBlock, { total: number }]>(ctx.db, [
    sql`SELECT b.id FROM blocks b WHERE b.id = ${sourceBlockId} AND ${visibleTo(ctx.actor)}`,
    ...(await listingQueries(
      ctx,
      listing,
      { select: sql`SELECT s.*`, from: sql`FROM synced_blocks s`, where },
      window,
    )),
  ]);
  if (sources.length === 0) throw blockNotFound(sourceBlockId);
  return readPage(ctx, listing, records, counts, window, withoutKeyColumns);
}

/** The instance stops following its source and keeps its content; unlinking twice changes nothing. */
export async function unlinkInstance(ctx: UserContext, instanceBlockId: string): Promise<SyncedBlock> {
  const record = await ctx.db.get<SyncedBlock | undefined>(sql`
    UPDATE synced_blocks AS s SET status = 'unlinked'
    WHERE s.instance_block_id = ${instanceBlockId} AND ${linkVisible(ctx)}
    RETURNING *`);
  if (!record) throw linkNotFound(instanceBlockId);
  return record;
}
