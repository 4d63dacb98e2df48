import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import type { Expected } from "../../lib/entity-tags";
import { conflict, notFound } from "../../lib/errors";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { Block } from "../../schemas/blocks";
import { BLOCK_VERSION_TYPES } from "../../schemas/changes";
import { updateTypedBlock, visibleBlockWithSchemaOf, visibleBlockWithSchemaStatements } from "../block-writes/writes";
import type { BlockRecord } from "../blocks/presenter";
import { blockNotFound } from "../blocks/queries";
import { visibleTo } from "../blocks/visibility";
import type { DatabaseBlockRow, PropertyRecord } from "../databases/schema-records";
import { type BlockVersion, type ChangeEventRecord, presentBlockVersion, versionedBlock } from "./events";

// A block's versions are its change-log events that hold it (created, updated), newest first: what
// it was right after each change, kept as long as the log keeps events. A restore writes one back
// through the block write service, with every rule a write meets, as a new change: itself a version,
// so a restore can be undone the same way. Visibility is the block's: another user's is a 404.

const isVersion = sql`e.type IN (${sql.join(
  BLOCK_VERSION_TYPES.map((type) => sql`${type}`),
  sql`, `,
)})`;

/**
 * An event of the block's present life. Callers choose block ids, and a permanent delete frees one
 * for anybody to take again: the events up to its last `block.deleted` are of the block it was
 * before, someone else's perhaps, never this block's versions.
 */
const ofPresentLife = (blockId: string) =>
  sql`e.id > coalesce((SELECT max(d.id) FROM change_events d WHERE d.object_id = ${blockId} AND d.type = 'block.deleted'), 0)`;

const historyListing = (blockId: string): Listing => ({
  name: "blocks.history",
  filters: { block_id: blockId },
  keys: [{ expression: sql`e.id`, direction: "desc" }],
});

/** The versions of a block the caller sees (in any state), newest first; 404 when they do not see it. */
export async function listBlockHistory(
  ctx: UserContext,
  blockId: string,
  window: PageWindow,
): Promise<ResultPage<BlockVersion>> {
  const listing = historyListing(blockId);
  const [page, count] = await listingQueries(
    ctx,
    listing,
    {
      select: sql`SELECT e.*`,
      from: sql`FROM change_events e`,
      where: sql`e.object_id = ${blockId} AND ${isVersion} AND ${ofPresentLife(blockId)}`,
    },
    window,
  );
  const [visible, rows, counts] = await batchAll<[{ seen: number }, ChangeEventRecord, { total: number }]>(ctx.db, [
    sql`SELECT 1 AS seen FROM blocks b WHERE b.id = ${blockId} AND ${visibleTo(ctx.actor)}`,
    page,
    count,
  ]);
  if (visible.length === 0) throw blockNotFound(blockId);
  return readPage(ctx, listing, rows, counts, window, presentBlockVersion);
}

const versionNotFound = (blockId: string, eventId: number) =>
  notFound("No such version of this block (or it is older than the change log keeps)", {
    id: blockId,
    event_id: eventId,
  });

/**
 * Writes the properties (whole) and content of the version `eventId` back to the block, as a
 * change of the caller's: validated as any write of the block's type is (a row's values against its
 * database's schema as it is now). The block must still be of the version's type and, for a row, in
 * its database: otherwise a 409 (convert or move it back first). `expected` is the request's
 * preconditions, checked in the write (a 412 when they fail). One read (block, schema, version) and
 * one write.
 */
export async function restoreBlockVersion(
  ctx: UserContext,
  blockId: string,
  eventId: number,
  expected?: Expected,
): Promise<Block> {
  const [blocks, databases, records, versions] = await batchAll<
    [BlockRecord, DatabaseBlockRow, PropertyRecord, ChangeEventRecord]
  >(ctx.db, [
    ...visibleBlockWithSchemaStatements(ctx, blockId),
    sql`SELECT e.* FROM change_events e
      WHERE e.id = ${eventId} AND e.object_id = ${blockId} AND ${isVersion} AND ${ofPresentLife(blockId)}`,
  ]);
  const known = visibleBlockWithSchemaOf(blockId, [blocks, databases, records]);
  const record = versions[0];
  if (!record) throw versionNotFound(blockId, eventId);
  const version = versionedBlock(record);
  if (version.type !== known.block.type || version.database_id !== known.block.database_id) {
    throw conflict("This version is of another type or database than the block is now: convert or move it back first", {
      event_id: eventId,
      version: { type: version.type, database_id: version.database_id },
      block: { type: known.block.type, database_id: known.block.database_id },
    });
  }
  const { block } = await updateTypedBlock(
    ctx,
    blockId,
    { properties: version.properties, content: version.content, replaceProperties: true },
    known,
    expected,
  );
  return block;
}
