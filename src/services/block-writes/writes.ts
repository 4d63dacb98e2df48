import { type SQL, sql } from "drizzle-orm";
import { internalBlockTypeRefusal, refuseInternalBlockType } from "../../auth/policies";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import type { Expected } from "../../lib/entity-tags";
import { retryWhileStale } from "../../lib/stale-write-retry";
import type { Block } from "../../schemas/blocks";
import {
  type CreateBlockInput,
  createBlock,
  duplicateBlock,
  type UpdateBlockInput,
  updateBlock,
  type WriteOptions,
} from "../blocks/commands";
import { type BlockRecord, presentBlock } from "../blocks/presenter";
import { blockNotFound, findVisibleBlock } from "../blocks/queries";
import { visibleTo } from "../blocks/visibility";
import type { DatabaseSchema } from "../databases/property-types";
import {
  copySchemaRecords,
  type DatabaseBlockRow,
  newDatabaseSchemaInserts,
  type PropertyRecord,
  schemaOf,
  schemaOfBlockStatements,
  schemaUnchanged,
} from "../databases/schema-records";
import { normalizeTypedFields } from "./typed-fields";

// Block writes with the rules their types carry, over services/blocks (which
// knows nothing of databases) and services/databases: rows are validated
// against their database's schema and land only while that schema holds, a
// new database gets its default schema in the same batch, page bodies are
// canonical. Routes and the pages service write blocks through here.

export interface TypedWrite {
  block: Block;
  /** A row's database schema as validated against (to present the row without reading it again). */
  schema?: DatabaseSchema;
}

export interface TypedCreateInput extends Omit<CreateBlockInput, "properties"> {
  properties?: Record<string, unknown>;
  title?: string;
}

/**
 * Creates a block of any type with its type's rules. `alsoInBatch` adds statements to the
 * create's atomic batch (they must check that the block was written), and `guard` a condition
 * the insert must meet: a quick task's reminder, and that what it needs is still there.
 */
export function createTypedBlock(
  ctx: UserContext,
  input: TypedCreateInput,
  extra: Pick<WriteOptions, "alsoInBatch" | "guard"> = {},
): Promise<TypedWrite> {
  refuseInternalBlockType(input.type);
  return retryWhileStale("database schema", async () => {
    const fields = await normalizeTypedFields(
      ctx,
      { type: input.type, databaseId: input.databaseId, databaseNamed: true },
      { properties: input.properties ?? {}, title: input.title, content: input.content },
    );
    const block = await createBlock(
      ctx,
      { ...input, properties: fields.properties ?? {}, content: fields.content },
      {
        guard: combinedGuard(fields.schema ? schemaUnchanged(fields.schema) : undefined, extra.guard),
        // A database gets its schema records in the same atomic batch (contract, Block rule 8).
        alsoInBatch: (written) => [
          ...(fields.databaseProperties
            ? [
                newDatabaseSchemaInserts(
                  written.id,
                  fields.databaseProperties,
                  written.timestamp,
                  sql`d.created_by = ${ctx.actor.userId} AND d.created_at = ${written.timestamp}`,
                ),
              ]
            : []),
          ...(extra.alsoInBatch?.(written) ?? []),
        ],
      },
    );
    return { block, schema: fields.schema };
  });
}

const combinedGuard = (...guards: (SQL | undefined)[]): SQL | undefined => {
  const given = guards.filter((guard): guard is SQL => guard !== undefined);
  return given.length > 0 ? sql.join(given, sql` AND `) : undefined;
};

export interface TypedChange extends Omit<UpdateBlockInput, "propertiesMode"> {
  title?: string;
  /** The validated `properties` replace the stored ones whole (a version restored), instead of patching them. */
  replaceProperties?: boolean;
}

const touchesTypedFields = (change: TypedChange) =>
  change.type !== undefined ||
  change.databaseId !== undefined ||
  change.properties !== undefined ||
  change.content !== undefined ||
  change.title !== undefined;

/**
 * Changes a visible block (in any state). When the change touches what its
 * type governs (type, database, properties, content, title), it is validated
 * against the block as it will be; `known` is the stored block when the
 * caller has just read it. `expected` is the request's preconditions, checked in the write itself
 * (a 412 when they fail, never retried).
 */
export function updateTypedBlock(
  ctx: UserContext,
  id: string,
  change: TypedChange,
  known?: BlockWithSchema,
  expected?: Expected,
): Promise<TypedWrite> {
  const internalType = internalBlockTypeRefusal(change.type);
  // A block the caller cannot see is a 404 before any policy decides what may be done with it.
  if (internalType) return findVisibleBlock(ctx, id).then(() => Promise.reject(internalType));
  const { title, replaceProperties, ...update } = change;
  if (!touchesTypedFields(change)) return updateBlock(ctx, id, update, { expected }).then((block) => ({ block }));
  let reuse = known;
  return retryWhileStale("database schema", async () => {
    // The block and its database's schema in one read: a row's write is then one read and one write.
    const { block: stored, schema: storedSchema } = reuse ?? (await findVisibleBlockWithSchema(ctx, id));
    reuse = undefined;
    const target = {
      type: change.type ?? stored.type,
      databaseId: change.databaseId !== undefined ? change.databaseId : stored.database_id,
      databaseNamed: change.databaseId !== undefined,
    };
    const fields = await normalizeTypedFields(ctx, target, { ...change, title }, stored, storedSchema);
    const guards: SQL[] = [];
    if (fields.schema) {
      // Validated against this schema, for the block as read: it must still be that
      // schema, and the block still what it was (a row of that database stays one).
      guards.push(
        schemaUnchanged(fields.schema),
        sql`b.type = ${stored.type} AND b.database_id IS ${stored.database_id}`,
      );
    }
    // A row's values named by its schema as read: a schema change since (a property deleted or
    // renamed, an option renamed) rewrites what they are, so it must still be that schema.
    if (fields.carriedSchema) guards.push(schemaUnchanged(fields.carriedSchema));
    // Values carried over from the stored block (a block becoming a row, content
    // becoming a page body, an inline schema becoming a database's records) were
    // read: they apply only to the block as read.
    const carriesStored =
      fields.propertiesMode === "all" ||
      (change.content === undefined && fields.content !== undefined) ||
      (fields.databaseProperties !== undefined && stored.properties.schema !== undefined);
    if (carriesStored) guards.push(sql`b.updated_at = ${stored.updated_at}`);
    const { databaseProperties } = fields;
    const block = await updateBlock(
      ctx,
      id,
      {
        ...update,
        properties: fields.properties,
        propertiesMode: replaceProperties ? "all" : fields.propertiesMode,
        content: fields.content,
      },
      {
        guard: guards.length > 0 ? sql.join(guards, sql` AND `) : undefined,
        expected,
        alsoInBatch: databaseProperties
          ? ({ timestamp }) => [
              newDatabaseSchemaInserts(
                id,
                databaseProperties,
                timestamp,
                sql`d.last_edited_by = ${ctx.actor.userId} AND d.updated_at = ${timestamp}`,
              ),
            ]
          : undefined,
      },
    );
    return { block, schema: fields.schema };
  });
}

/** A block as read, with its database's schema when it is a row of a visible database. */
export interface BlockWithSchema {
  block: Block;
  schema: DatabaseSchema | undefined;
}

/** What `findVisibleBlockWithSchema` reads, for a batch that reads more beside it (its three statements first). */
export const visibleBlockWithSchemaStatements = (ctx: UserContext, id: string): [SQL, SQL, SQL] => [
  sql`SELECT b.* FROM blocks b WHERE b.id = ${id} AND ${visibleTo(ctx.actor)}`,
  ...schemaOfBlockStatements(ctx, id),
];

/** The results of `visibleBlockWithSchemaStatements` as the block with its schema; 404 when it is not visible. */
export function visibleBlockWithSchemaOf(
  id: string,
  [blocks, databases, records]: [BlockRecord[], DatabaseBlockRow[], PropertyRecord[]],
): BlockWithSchema {
  const record = blocks[0];
  if (!record) throw blockNotFound(id);
  return { block: presentBlock(record), schema: schemaOf(databases[0], records) };
}

/** A visible block (any state) with its database's schema when it is a row of a visible database; 404 otherwise. */
export async function findVisibleBlockWithSchema(ctx: UserContext, id: string): Promise<BlockWithSchema> {
  const read = await batchAll<[BlockRecord, DatabaseBlockRow, PropertyRecord]>(
    ctx.db,
    visibleBlockWithSchemaStatements(ctx, id),
  );
  return visibleBlockWithSchemaOf(id, read);
}

/** Duplicates a block and its subtree; copied databases keep their schema records (and so their rows' values). */
export function duplicateTypedBlock(
  ctx: UserContext,
  id: string,
  options: { includeChildren: boolean; expected?: Expected },
) {
  return duplicateBlock(ctx, id, { ...options, alsoInBatch: (copied) => [copySchemaRecords(copied)] });
}
