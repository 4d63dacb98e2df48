import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { badRequest, conflict } from "../../lib/errors";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import type { PropagateResult } from "../../schemas/synced-blocks";
import { DUPLICATE_MAX_BLOCKS } from "../blocks/commands";
import type { BlockRecord } from "../blocks/presenter";
import { blockNotFound } from "../blocks/queries";
import { activeSubtree, firstOfEach, type SubtreeRow, visibleChildSteps } from "../blocks/subtree";
import { visibleTo } from "../blocks/visibility";
import { copySchemaRecords } from "../databases/schema-records";
import { sourceCovers, UNSYNCABLE, UNSYNCABLE_TYPES } from "./links";

// Propagation copies a source's type, properties, content and active subtree to every
// instance that follows it (status synced) and that the caller sees: one read (one
// round trip), then one atomic batch of a fixed number of statements whatever the
// number of instances (the instances and the subtree travel as two JSON parameters),
// led by a guard that fails the whole batch unless what was read still holds.

/** Most blocks one propagation writes: the instances plus their copies of the source's subtree. */
export const PROPAGATE_MAX_BLOCKS = DUPLICATE_MAX_BLOCKS;

/** Hazards reported at most (a 409's details). */
const MAX_HAZARDS = 100;

/**
 * The instance `b` is no more visible than the source (`sourceCovers`). Links are made so;
 * one made before that rule (a private source, a shared instance) is never propagated, so
 * a private block's type, properties and content never reach a block others see.
 */
const coveredBySource = (source: string): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks src WHERE src.id = ${source} AND ${sourceCovers("src", "b")})`;

/**
 * The sets a propagation works on, as CTEs after the source's subtree (`tree`: the source
 * in any state and its active visible descendants, as a duplicate copies them):
 * `targets`, the instances updated (linked, synced, visible, of a syncable type, no more
 * visible than the source: see `coveredBySource`), and
 * `old(id, target)`, each target's visible descendants in any state, which are replaced.
 */
const propagationSets = (ctx: UserContext, source: string): SQL => sql`
  ${activeSubtree(ctx.actor, source, true)},
  targets(id) AS (
    SELECT s.instance_block_id FROM synced_blocks s JOIN blocks b ON b.id = s.instance_block_id
    WHERE s.source_block_id = ${source} AND s.status = 'synced' AND ${visibleTo(ctx.actor)}
      AND ${coveredBySource(source)} AND b.type NOT IN ${UNSYNCABLE}
  ),
  old(id, target) AS (
    ${visibleChildSteps(ctx.actor, "targets", sql`, targets.id`)}
    UNION ${visibleChildSteps(ctx.actor, "old", sql`, old.target`)}
  )`;

/**
 * What must not be, given the sets, one reason per instance: an instance that lies in the
 * source's subtree (it would be copied into itself), an instance among another instance's
 * replaced descendants (it would be deleted and written at once), an instance whose
 * replaced descendants hold the source or part of its subtree (the propagation would
 * delete what it copies).
 */
const HAZARDS = sql.raw(`
  SELECT instance_block_id,
    CASE min(rank) WHEN 1 THEN 'instance_inside_source' WHEN 2 THEN 'inside_another_instance'
      ELSE 'contains_source' END AS reason
  FROM (
    SELECT targets.id AS instance_block_id, 1 AS rank FROM targets WHERE targets.id IN (SELECT id FROM tree)
    UNION ALL SELECT old.id, 2 FROM old WHERE old.id IN (SELECT id FROM targets)
    UNION ALL SELECT old.target, 3 FROM old WHERE old.id IN (SELECT id FROM tree)
  )
  GROUP BY instance_block_id`);

/**
 * The state a propagation was computed from: the subtree's shape, the targets, the
 * source's type. The guard compares it in the same text, computed by the same SQL.
 */
const SIGNATURE = sql.raw(`json_array(
    (SELECT json_group_array(json_array(id, parent_id, database_id))
      FROM (SELECT DISTINCT id, parent_id, database_id FROM tree ORDER BY 1, 2, 3)),
    (SELECT json_group_array(id) FROM (SELECT id FROM targets ORDER BY id)),
    (SELECT t.type FROM blocks t WHERE t.id = (SELECT id FROM tree WHERE depth = 0 LIMIT 1)))`);

/** SQLite's integer overflow: how the guard fails its batch (nothing else here computes abs()). */
const STALE_ERROR = /integer overflow/i;

const isStale = (error: unknown): boolean =>
  error instanceof Error &&
  (STALE_ERROR.test(error.message) || (error.cause instanceof Error && STALE_ERROR.test(error.cause.message)));

type NodeRow = SubtreeRow & Pick<BlockRecord, "type">;

/**
 * Copy ids: a random prefix per propagation (the first 24 characters of a v4 UUID, 74
 * random bits) and the copy's index in 12 hex digits, so every copy id is a well-formed
 * UUID that the INSERT computes itself: no id list travels as a parameter.
 */
const copyId = (prefix: string, index: number) => `${prefix}${index.toString(16).padStart(12, "0")}`;
const copyIdSql = (prefix: string, index: SQL) => sql`(${prefix} || printf('%012x', ${index}))`;

/**
 * Copies the source's type, properties and content onto every instance the caller sees
 * that follows it, and replaces each instance's descendants with fresh copies of the
 * source's active descendants, in one atomic batch. Instances keep their id, parent,
 * position, database, teamspace, owner, flags and creation time. Copies belong to the
 * instance's owner; under a shared instance each keeps its source block's owner, so a
 * private block's copy stays private to its owner and a shared block's copy is shared.
 */
export function propagate(ctx: UserContext, source: string): Promise<PropagateResult> {
  return retryWhileStale("source block or its instances", () => attempt(ctx, source));
}

/** One read, then one guarded batch; a StaleWrite when what was read changed before the write. */
async function attempt(ctx: UserContext, source: string): Promise<PropagateResult> {
  const read = await readPropagation(ctx, source);
  checkSource(read, source);
  const { targets, skipped } = splitLinks(read.links);
  const timestamp = ctx.now().toISOString();
  const result = (updated: string[], copied: number): PropagateResult => ({
    source_block_id: source,
    updated: updated.length,
    instance_block_ids: updated,
    skipped_instance_block_ids: skipped,
    copied_blocks: copied,
    last_synced_at: timestamp,
  });
  if (targets.length === 0) return result([], 0);
  if (read.hazards.length > 0) {
    throw conflict("Some instances overlap the source or each other: move or unlink them first", {
      hazards: read.hazards,
    });
  }
  const descendants = firstOfEach(read.found).slice(1);
  checkSize(read, targets, descendants);
  const copies = planCopies(source, targets, descendants);
  const updated = await writePropagation(
    ctx,
    propagationBatch(ctx, source, read.signature, copies, timestamp),
    targets,
  );
  return result(updated, copies.count * updated.length);
}

/** What a propagation reads, in one round trip. */
interface PropagationRead {
  /** The source (depth 0) and its active visible descendants, with their types; one more than the limit at most. */
  found: NodeRow[];
  /** The instances that follow the source, with their types; one more than the limit at most. */
  links: { id: string; type: string }[];
  /** The state the guard compares (SIGNATURE), as read. */
  signature: string;
  hazards: { instance_block_id: string; reason: string }[];
}

async function readPropagation(ctx: UserContext, source: string): Promise<PropagationRead> {
  const sets = propagationSets(ctx, source);
  const [found, links, signatures, hazards] = await batchAll<
    [NodeRow, { id: string; type: string }, { signature: string }, { instance_block_id: string; reason: string }]
  >(ctx.db, [
    sql`${activeSubtree(ctx.actor, source, true)}
      SELECT tree.*, (SELECT t.type FROM blocks t WHERE t.id = tree.id) AS type FROM tree
      ORDER BY tree.depth LIMIT ${PROPAGATE_MAX_BLOCKS + 1}`,
    sql`SELECT s.instance_block_id AS id, b.type FROM synced_blocks s JOIN blocks b ON b.id = s.instance_block_id
      WHERE s.source_block_id = ${source} AND s.status = 'synced' AND ${visibleTo(ctx.actor)}
        AND ${coveredBySource(source)}
      ORDER BY s.instance_block_id LIMIT ${PROPAGATE_MAX_BLOCKS + 1}`,
    sql`${sets} SELECT ${SIGNATURE} AS signature`,
    sql`${sets} ${HAZARDS} ORDER BY instance_block_id LIMIT ${MAX_HAZARDS}`,
  ]);
  return { found, links, signature: signatures[0]?.signature ?? "", hazards };
}

const isUnsyncable = (type: string): boolean => (UNSYNCABLE_TYPES as readonly string[]).includes(type);

/** The source is visible and still of a syncable type. */
function checkSource(read: PropagationRead, source: string): void {
  const root = read.found[0];
  if (root?.depth !== 0) throw blockNotFound(source);
  if (isUnsyncable(root.type)) {
    throw conflict("The source has become a database or a database row: it cannot be propagated", {
      id: source,
      type: root.type,
    });
  }
}

/** The instances updated, and those skipped for having become a database or a row since they were linked. */
function splitLinks(links: PropagationRead["links"]): { targets: string[]; skipped: string[] } {
  return {
    targets: links.filter((link) => !isUnsyncable(link.type)).map((link) => link.id),
    skipped: links.filter((link) => isUnsyncable(link.type)).map((link) => link.id),
  };
}

function checkSize(read: PropagationRead, targets: string[], descendants: NodeRow[]): void {
  const written = targets.length * (descendants.length + 1);
  if (
    read.found.length > PROPAGATE_MAX_BLOCKS ||
    read.links.length > PROPAGATE_MAX_BLOCKS ||
    written > PROPAGATE_MAX_BLOCKS
  ) {
    throw badRequest(`Cannot write more than ${PROPAGATE_MAX_BLOCKS} blocks in one propagation`, {
      instances: targets.length,
      subtree_blocks: descendants.length,
      max_blocks: PROPAGATE_MAX_BLOCKS,
    });
  }
}

/** The copies a propagation writes, as the JSON parameters and id prefix its statements take. */
interface CopyPlan {
  /** The instances, as JSON: `t.key` is a target's index. */
  targetsJson: string;
  /** Each descendant as [source id, parent, database] (see `planCopies`), as JSON: `n.key` is its index. */
  nodesJson: string;
  /** Descendants copied under each target. */
  count: number;
  prefix: string;
  /** `[{source_id, id}]` of every copied database, for its schema records; null when none is copied. */
  databaseCopies: string | null;
}

function planCopies(source: string, targets: string[], descendants: NodeRow[]): CopyPlan {
  // Each descendant as [source id, parent, database]: a reference is the index of the
  // copied block it points to, -1 for the source (the instance, in the copy), or null
  // to keep the block's own value (a reference outside the subtree).
  const index = new Map(descendants.map((node, i) => [node.id, i]));
  const ref = (id: string | null) => (id === null ? null : id === source ? -1 : (index.get(id) ?? null));
  const count = descendants.length;
  const prefix = crypto.randomUUID().slice(0, 24);
  const databases = descendants.flatMap((node, n) => (node.type === "database" ? [n] : []));
  return {
    targetsJson: JSON.stringify(targets),
    nodesJson: JSON.stringify(descendants.map((node) => [node.id, ref(node.parent_id), ref(node.database_id)])),
    count,
    prefix,
    databaseCopies:
      databases.length === 0
        ? null
        : JSON.stringify(
            targets.flatMap((_, t) =>
              databases.map((n) => ({ source_id: descendants[n]?.id, id: copyId(prefix, t * count + n) })),
            ),
          ),
  };
}

/** The batch's statement that updates the instances (RETURNING id): what `writePropagation` reads. */
const INSTANCES_UPDATE = 3;

/**
 * The batch: the guard, then each instance's replaced descendants detached or deleted, the
 * instances updated, the copies inserted (with their databases' schema records), the links stamped.
 */
function propagationBatch(
  ctx: UserContext,
  source: string,
  signature: string,
  copies: CopyPlan,
  timestamp: string,
): SQL[] {
  const { targetsJson, nodesJson, count, prefix } = copies;
  // The copy of descendant n under target t is copy number t * count + n.
  const copyRef = (slot: 1 | 2, own: SQL) => {
    const at = sql.raw(`n.value ->> '$[${slot}]'`);
    return sql`CASE WHEN ${at} IS NULL THEN ${own} WHEN ${at} < 0 THEN t.value
      ELSE ${copyIdSql(prefix, sql`t.key * ${count} + ${at}`)} END`;
  };
  // Each target's descendants that are replaced (visible ones, in any state), as a DELETE would take them.
  const old = sql`WITH RECURSIVE targets(id) AS (SELECT value FROM json_each(${targetsJson})),
    old(id) AS (
      ${visibleChildSteps(ctx.actor, "targets")}
      UNION ${visibleChildSteps(ctx.actor, "old")}
    )`;
  return [
    // The guard: fails the batch (integer overflow) unless the state read still holds and is safe.
    sql`${propagationSets(ctx, source)} SELECT abs(CASE WHEN ${SIGNATURE} = ${signature}
      AND NOT EXISTS (${HAZARDS}) THEN 0 ELSE -9223372036854775807 - 1 END) AS fresh`,
    // Blocks the caller cannot see under replaced ones are detached to the top level, as DELETE does.
    sql`${old} UPDATE blocks AS b SET
        parent_id = CASE WHEN b.parent_id IN (SELECT id FROM old) THEN NULL ELSE b.parent_id END,
        database_id = CASE WHEN b.database_id IN (SELECT id FROM old) THEN NULL ELSE b.database_id END
      WHERE (b.parent_id IN (SELECT id FROM old) OR b.database_id IN (SELECT id FROM old))
        AND NOT (${visibleTo(ctx.actor)})`,
    sql`${old} DELETE FROM blocks WHERE id IN (SELECT id FROM old)`,
    // The instances updated (INSTANCES_UPDATE): their ids returned, to count what was written.
    sql`UPDATE blocks AS b SET type = src.type, properties = src.properties, content = src.content,
        last_edited_by = ${ctx.actor.userId}, updated_at = ${timestamp}
      FROM (SELECT type, properties, content FROM blocks WHERE id = ${source}) AS src
      WHERE b.id IN (SELECT value FROM json_each(${targetsJson})) AND ${visibleTo(ctx.actor)}
      RETURNING id`,
    sql`INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
        archived, in_trash, created_by, last_edited_by, created_at, updated_at)
      SELECT ${copyIdSql(prefix, sql`t.key * ${count} + n.key`)}, b.type, ${copyRef(1, sql`b.parent_id`)},
        ${copyRef(2, sql`b.database_id`)}, i.teamspace_id, b.properties, b.content, b.position,
        0, 0, CASE WHEN i.created_by IS NULL THEN b.created_by ELSE i.created_by END, ${ctx.actor.userId},
        ${timestamp}, ${timestamp}
      FROM json_each(${targetsJson}) t JOIN blocks i ON i.id = t.value
      CROSS JOIN json_each(${nodesJson}) n JOIN blocks b ON b.id = n.value ->> '$[0]'`,
    ...(copies.databaseCopies !== null ? [copySchemaRecords({ copies: copies.databaseCopies, timestamp })] : []),
    sql`UPDATE synced_blocks SET last_synced_at = ${timestamp}
      WHERE source_block_id = ${source} AND status = 'synced'
        AND instance_block_id IN (SELECT value FROM json_each(${targetsJson}))`,
  ];
}

/** Runs the batch; the targets it updated, in order. A guard that failed is a StaleWrite (retried). */
async function writePropagation(ctx: UserContext, batch: SQL[], targets: string[]): Promise<string[]> {
  try {
    const results = await batchAll<unknown[]>(ctx.db, batch);
    const returned = new Set((results[INSTANCES_UPDATE] as { id: string }[]).map((row) => row.id));
    return targets.filter((id) => returned.has(id));
  } catch (error) {
    if (isStale(error)) throw new StaleWrite();
    throw error;
  }
}
