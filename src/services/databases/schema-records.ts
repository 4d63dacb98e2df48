import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { blocks, databaseProperties } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import type { Validator } from "../../lib/entity-tags";
import { notFound } from "../../lib/errors";
import { parseProperties } from "../blocks/presenter";
import { visibleTo } from "../blocks/visibility";
import { isAddressable } from "./property-path";
import {
  type DatabaseSchema,
  PROPERTY_TYPES,
  type PropertyDefinition,
  type PropertyType,
  type SelectOption,
} from "./property-types";

/** A `database_properties` row as D1 returns it (`options` as JSON text). */
export type PropertyRecord = RawRow<typeof databaseProperties>;

/**
 * A 404 for a database not visible to the caller (or no database), with `details.database_id` as
 * ever. Named by a body field, it also says which, as a body's other references do (`{field, id}`,
 * services/blocks/commands.ts).
 */
export const databaseNotFound = (id: string, field?: string) =>
  notFound("Database not found", field ? { field, id, database_id: id } : { database_id: id });

export const presentProperty = (record: PropertyRecord): PropertyDefinition => ({
  id: record.id,
  name: record.name,
  type: record.type as PropertyType,
  options: JSON.parse(record.options) as SelectOption[],
  position: record.position,
});

/** Property names are unique per database whatever their case: this is the key they are compared by. */
export const nameKey = (name: string): string => name.toLowerCase();

/**
 * Holds while the database's schema is the version `schema` was read at: the
 * guard of every write validated against it (rows, views), checked in the
 * write's own statement, so a write never lands against a schema that changed.
 */
export const schemaUnchanged = (schema: DatabaseSchema): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks sv WHERE sv.id = ${schema.databaseId} AND sv.type = 'database'
    AND sv.schema_version = ${schema.version} AND sv.created_at = ${schema.createdAt})`;

/** Inserts `properties` as the schema records of `databaseId`, in one statement that lands only while `when` holds. */
export function insertPropertyRecords(
  databaseId: string,
  properties: PropertyDefinition[],
  timestamp: string,
  when: SQL,
): SQL {
  const rows = properties.map((property) => ({
    ...property,
    key: nameKey(property.name),
    options: JSON.stringify(property.options),
  }));
  return sql`
    INSERT INTO database_properties (id, database_id, name, name_key, type, options, position, created_at, updated_at)
    SELECT p.value ->> '$.id', ${databaseId}, p.value ->> '$.name', p.value ->> '$.key', p.value ->> '$.type',
      p.value ->> '$.options', p.value ->> '$.position', ${timestamp}, ${timestamp}
    FROM json_each(${JSON.stringify(rows)}) AS p
    WHERE ${when}`;
}

/**
 * Inserts a new database's schema records (newDatabaseProperties), to run in the batch that
 * just wrote the database block: they land only when `justWritten` holds for that block (alias
 * `d`: this caller, this timestamp), it is a database and it has no schema records yet. So a
 * refused or no-op write adds nothing, and a block that was a database before keeps its records.
 */
export const newDatabaseSchemaInserts = (
  databaseId: string,
  properties: PropertyDefinition[],
  timestamp: string,
  justWritten: SQL,
): SQL =>
  insertPropertyRecords(
    databaseId,
    properties,
    timestamp,
    sql`EXISTS (SELECT 1 FROM blocks d WHERE d.id = ${databaseId} AND d.type = 'database' AND ${justWritten})
      AND NOT EXISTS (SELECT 1 FROM database_properties WHERE database_id = ${databaseId})`,
  );

/**
 * For a duplicate's batch: the schema records of every copied database, with
 * their property ids kept (ids are unique per database), so copied rows stay valid.
 * `copies` is the duplicate's JSON `[{source_id, id}]`; only copies the batch wrote (none when its
 * preconditions failed).
 */
export const copySchemaRecords = (copied: { copies: string; timestamp: string }): SQL => sql`
  INSERT INTO database_properties (id, database_id, name, name_key, type, options, position, created_at, updated_at)
  SELECT p.id, copy.value ->> '$.id', p.name, p.name_key, p.type, p.options, p.position, ${copied.timestamp},
    ${copied.timestamp}
  FROM json_each(${copied.copies}) AS copy
  JOIN database_properties p ON p.database_id = copy.value ->> '$.source_id'
  WHERE EXISTS (SELECT 1 FROM blocks c WHERE c.id = copy.value ->> '$.id')`;

/** What `loadDatabaseSchema` and `schemaOfBlockStatements` read of a database's block. */
export type DatabaseBlockRow = Pick<
  RawRow<typeof blocks>,
  "id" | "type" | "properties" | "schema_version" | "version" | "created_at"
>;

/**
 * The version parts of a database's schema, as its entity tag names them (RFC 9110 §8.8.3): the
 * `schema_version` every schema change increments and, for a legacy schema, the version of the
 * block its inline schema is part of (null once it has records). `[null, null]`: no schema.
 */
export const schemaVersionParts = (schema: DatabaseSchema | null | undefined): [number | null, number | null] =>
  schema ? [schema.version, schema.legacy ? (schema.inlineVersion ?? null) : null] : [null, null];

/** The same parts in SQL, of the database block `alias` (null, null when no row matches). */
export const schemaVersionColumns = (alias: string): [SQL, SQL] => {
  const database = sql.raw(alias);
  return [
    sql`${database}.schema_version`,
    sql`CASE WHEN EXISTS (SELECT 1 FROM database_properties sp WHERE sp.database_id = ${database}.id)
      THEN NULL ELSE ${database}.version END`,
  ];
};

/**
 * A database schema's validator: what its entity tag names (schemaVersionParts), and when the
 * database was created (a database created again with the same id starts its version over).
 */
export const schemaValidator = (schema: DatabaseSchema): Validator => ({
  kind: "d",
  id: schema.databaseId,
  parts: [...schemaVersionParts(schema), schema.createdAt],
});

/**
 * The schema of a database visible to the user: its schema records, or for an
 * older database without records, its inline `properties.schema`. One round trip.
 * `field`: the request body's field that named the database, which its 404 names.
 */
export async function loadDatabaseSchema(
  ctx: UserContext,
  databaseId: string,
  field?: string,
): Promise<DatabaseSchema> {
  const [databases, records] = await batchAll<[DatabaseBlockRow, PropertyRecord]>(ctx.db, [
    sql`SELECT b.id, b.type, b.properties, b.schema_version, b.version, b.created_at FROM blocks b
      WHERE b.id = ${databaseId} AND ${visibleTo(ctx.actor)}`,
    sql`SELECT * FROM database_properties WHERE database_id = ${databaseId} ORDER BY position, name`,
  ]);
  const schema = schemaOf(databases[0], records);
  if (!schema) throw databaseNotFound(databaseId, field);
  return schema;
}

/**
 * The statements reading the schema of the database a block belongs to, for a batch that also
 * reads the block (a row's write then costs one read round trip, not two).
 */
export const schemaOfBlockStatements = (ctx: UserContext, blockId: string): [SQL, SQL] => {
  const databaseOf = sql`(SELECT r.database_id FROM blocks r WHERE r.id = ${blockId})`;
  return [
    sql`SELECT b.id, b.type, b.properties, b.schema_version, b.version, b.created_at FROM blocks b
      WHERE b.id = ${databaseOf} AND ${visibleTo(ctx.actor)}`,
    sql`SELECT * FROM database_properties WHERE database_id = ${databaseOf} ORDER BY position, name`,
  ];
};

/** A schema from its database block and records as read; undefined when the block is not a visible database. */
export function schemaOf(
  database: DatabaseBlockRow | undefined,
  records: PropertyRecord[],
): DatabaseSchema | undefined {
  if (database?.type !== "database") return undefined;
  const { id: databaseId, schema_version: version, created_at: createdAt } = database;
  if (records.length > 0) {
    return { databaseId, properties: records.map(presentProperty), legacy: false, version, createdAt };
  }
  const inline = parseProperties(database.properties).schema;
  return {
    databaseId,
    properties: parseInlineSchema(inline),
    legacy: true,
    version,
    inlineVersion: database.version,
    createdAt,
  };
}

const isPropertyType = (value: unknown): value is PropertyType =>
  typeof value === "string" && (PROPERTY_TYPES as readonly string[]).includes(value);

/**
 * Reads an older database's inline schema. Accepted shapes: an array of
 * `{id?, name, type, options?}`, or an object keyed by property id (or name)
 * whose values are `{name?, type, options?}`. Options may be strings or
 * `{id?, name, color?}`; a legacy option without an id is identified by its name.
 * Entries that are not property definitions, and ids no JSON path can address,
 * are skipped, never guessed.
 */
export function parseInlineSchema(inline: unknown): PropertyDefinition[] {
  const seenIds = new Set<string>();
  const seenNames = new Set<string>();
  const entries: [string | undefined, unknown][] = Array.isArray(inline)
    ? inline.map((entry) => [undefined, entry])
    : inline && typeof inline === "object"
      ? Object.entries(inline)
      : [];
  const properties: PropertyDefinition[] = [];
  for (const [key, raw] of entries) {
    if (!raw || typeof raw !== "object") continue;
    const entry = raw as { id?: unknown; name?: unknown; type?: unknown; options?: unknown };
    const type = entry.type === "rich_text" ? "text" : entry.type;
    if (!isPropertyType(type)) continue;
    const id = typeof entry.id === "string" ? entry.id : key;
    const name = typeof entry.name === "string" ? entry.name : key;
    // Ids and names must identify one property each; a repeated one is skipped, not guessed.
    if (!id || !name || !isAddressable(id) || seenIds.has(id) || seenNames.has(name.toLowerCase())) continue;
    seenIds.add(id);
    seenNames.add(name.toLowerCase());
    properties.push({ id, name, type, options: parseLegacyOptions(entry.options), position: properties.length });
  }
  return properties;
}

function parseLegacyOptions(options: unknown): SelectOption[] {
  if (!Array.isArray(options)) return [];
  return options.flatMap((option): SelectOption[] => {
    if (typeof option === "string") return [{ id: option, name: option, color: "default" }];
    if (option && typeof option === "object" && typeof (option as { name?: unknown }).name === "string") {
      const { id, name, color } = option as { id?: unknown; name: string; color?: unknown };
      return [{ id: typeof id === "string" ? id : name, name, color: typeof color === "string" ? color : "default" }];
    }
    return [];
  });
}
