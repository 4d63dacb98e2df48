import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { Database } from "../../db/client";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { propertyPathSql } from "./property-path";
import {
  COMPUTED_PROPERTY_TYPES,
  type DatabaseSchema,
  newOptionId,
  newPropertyId,
  type PropertyDefinition,
  type PropertyType,
  SELECT_LIKE_TYPES,
  type SelectOption,
} from "./property-types";
import { loadDatabaseSchema } from "./schema-records";

// Schema changes: one read of the schema, then one atomic batch that changes the
// schema records and rewrites the affected row values, so rows never hold values
// that the schema no longer explains.

function findProperty(schema: DatabaseSchema, propertyId: string): PropertyDefinition {
  const property = schema.properties.find((candidate) => candidate.id === propertyId);
  if (!property) throw notFound("Property not found", { database_id: schema.databaseId, property_id: propertyId });
  return property;
}

function assertNameFree(schema: DatabaseSchema, name: string, except?: string): void {
  const taken = schema.properties.find(
    (property) => property.id !== except && property.name.toLowerCase() === name.toLowerCase(),
  );
  if (taken) throw conflict("A property with this name already exists", { name, property_id: taken.id });
}

/** Writes an older database's inline schema as schema records, so later changes have records to change. */
function materializeLegacy(schema: DatabaseSchema, timestamp: string): SQL[] {
  if (!schema.legacy || schema.properties.length === 0) return [];
  const rows = schema.properties.map((property) => ({ ...property, options: JSON.stringify(property.options) }));
  return [
    sql`INSERT INTO database_properties (id, database_id, name, type, options, position, created_at, updated_at)
      SELECT p.value ->> '$.id', ${schema.databaseId}, p.value ->> '$.name', p.value ->> '$.type',
        p.value ->> '$.options', p.value ->> '$.position', ${timestamp}, ${timestamp}
      FROM json_each(${JSON.stringify(rows)}) AS p`,
  ];
}

/**
 * Runs a schema change as one atomic batch: an older database's inline schema
 * is first written out as records, then `statements` (built for `timestamp`),
 * then the database block is marked as edited.
 */
async function commitSchemaChange(
  db: Database,
  schema: DatabaseSchema,
  userId: string,
  statements: (timestamp: string) => SQL[],
): Promise<void> {
  const timestamp = new Date().toISOString();
  await batchAll(db, [
    ...materializeLegacy(schema, timestamp),
    ...statements(timestamp),
    sql`UPDATE blocks SET updated_at = ${timestamp}, last_edited_by = ${userId} WHERE id = ${schema.databaseId}`,
  ]);
}

function normalizeOptions(options: { name: string; color?: string }[]): SelectOption[] {
  const seen = new Set<string>();
  return options.map((option) => {
    if (seen.has(option.name)) throw badRequest("Option names must be unique", { name: option.name });
    seen.add(option.name);
    return { id: newOptionId(), name: option.name, color: option.color ?? "default" };
  });
}

export interface NewProperty {
  name: string;
  type: PropertyType;
  options?: { name: string; color?: string }[];
}

export async function addProperty(
  db: Database,
  userId: string,
  databaseId: string,
  input: NewProperty,
): Promise<PropertyDefinition> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  assertNameFree(schema, input.name);
  if (input.type === "title" && schema.properties.some((property) => property.type === "title")) {
    throw badRequest("A database has exactly one title property", { type: input.type });
  }
  if (input.options && !SELECT_LIKE_TYPES.has(input.type)) {
    throw badRequest("Only select, multi_select and status properties have options", { type: input.type });
  }
  const property: PropertyDefinition = {
    id: newPropertyId(),
    name: input.name,
    type: input.type,
    options: normalizeOptions(input.options ?? []),
    position: Math.max(-1, ...schema.properties.map((p) => p.position)) + 1,
  };
  await commitSchemaChange(db, schema, userId, (timestamp) => [
    sql`INSERT INTO database_properties (id, database_id, name, type, options, position, created_at, updated_at)
        VALUES (${property.id}, ${databaseId}, ${property.name}, ${property.type}, ${JSON.stringify(property.options)},
          ${property.position}, ${timestamp}, ${timestamp})`,
  ]);
  return property;
}

/**
 * Renames and/or retypes a property. Retyping keeps stored values as they are
 * (nothing is discarded); new writes are validated against the new type.
 * Select-like types keep their options when retyped among themselves.
 */
export async function updateProperty(
  db: Database,
  userId: string,
  databaseId: string,
  propertyId: string,
  input: { name?: string; type?: PropertyType },
): Promise<PropertyDefinition> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const property = findProperty(schema, propertyId);
  if (input.name !== undefined) assertNameFree(schema, input.name, propertyId);
  if (input.type !== undefined && input.type !== property.type) {
    if (property.type === "title" || input.type === "title") {
      throw badRequest("The title property cannot be retyped, and no other property can become the title", {
        property_id: propertyId,
      });
    }
    if (COMPUTED_PROPERTY_TYPES.has(input.type) !== COMPUTED_PROPERTY_TYPES.has(property.type)) {
      throw badRequest("Computed properties cannot be retyped to stored ones or back", { property_id: propertyId });
    }
  }
  const updated: PropertyDefinition = {
    ...property,
    name: input.name ?? property.name,
    type: input.type ?? property.type,
    options: SELECT_LIKE_TYPES.has(input.type ?? property.type) ? property.options : [],
  };
  await commitSchemaChange(db, schema, userId, (timestamp) => [
    sql`UPDATE database_properties SET name = ${updated.name}, type = ${updated.type},
        options = ${JSON.stringify(updated.options)}, updated_at = ${timestamp}
        WHERE id = ${propertyId} AND database_id = ${databaseId}`,
  ]);
  return updated;
}

/** Removes a property and its values from every row of the database. */
export async function removeProperty(
  db: Database,
  userId: string,
  databaseId: string,
  propertyId: string,
): Promise<void> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const property = findProperty(schema, propertyId);
  if (property.type === "title") throw badRequest("The title property cannot be removed", { property_id: propertyId });
  await commitSchemaChange(db, schema, userId, () => [
    sql`DELETE FROM database_properties WHERE id = ${propertyId} AND database_id = ${databaseId}`,
    sql`UPDATE blocks SET properties = json_remove(properties, ${propertyPathSql(propertyId)})
        WHERE database_id = ${databaseId} AND json_type(properties, ${propertyPathSql(propertyId)}) IS NOT NULL`,
  ]);
}

function selectLikeProperty(schema: DatabaseSchema, propertyId: string): PropertyDefinition {
  const property = findProperty(schema, propertyId);
  if (!SELECT_LIKE_TYPES.has(property.type)) {
    throw badRequest("Only select, multi_select and status properties have options", {
      property_id: propertyId,
      type: property.type,
    });
  }
  return property;
}

const saveOptions = (schema: DatabaseSchema, property: PropertyDefinition, options: SelectOption[], at: string) =>
  sql`UPDATE database_properties SET options = ${JSON.stringify(options)}, updated_at = ${at}
    WHERE id = ${property.id} AND database_id = ${schema.databaseId}`;

/** The option id of a multi-select item: `{id, ...}`, or a bare name in older rows. */
const optionIdOf = (alias: string): SQL =>
  sql.raw(`CASE ${alias}.type WHEN 'object' THEN ${alias}.value ->> '$.id' WHEN 'text' THEN ${alias}.value END`);

/**
 * Rewrites the rows holding option `optionId` of `property`: each stored
 * `{id, name, color}` becomes `replacement` (the renamed option), or is removed
 * when `replacement` is null.
 */
function rewriteOptionValues(
  schema: DatabaseSchema,
  property: PropertyDefinition,
  optionId: string,
  replacement: SelectOption | null,
): SQL {
  const path = propertyPathSql(property.id);
  if (property.type === "multi_select") {
    const kept = replacement
      ? sql`SELECT json_group_array(CASE WHEN ${optionIdOf("e")} = ${optionId} THEN json(${JSON.stringify(replacement)}) ELSE json(e.value) END) FROM json_each(blocks.properties, ${path}) e`
      : sql`SELECT json_group_array(json(e.value)) FROM json_each(blocks.properties, ${path}) e WHERE ${optionIdOf("e")} IS NOT ${optionId}`;
    return sql`UPDATE blocks SET properties = json_set(properties, ${path}, json((${kept})))
      WHERE database_id = ${schema.databaseId}
        AND EXISTS (SELECT 1 FROM json_each(blocks.properties, ${path}) e WHERE ${optionIdOf("e")} = ${optionId})`;
  }
  const newValue = replacement
    ? sql`json_set(properties, ${path}, json(${JSON.stringify(replacement)}))`
    : sql`json_remove(properties, ${path})`;
  return sql`UPDATE blocks SET properties = ${newValue}
    WHERE database_id = ${schema.databaseId} AND properties -> ${path} ->> '$.id' = ${optionId}`;
}

export async function addOption(
  db: Database,
  userId: string,
  databaseId: string,
  propertyId: string,
  input: { name: string; color?: string },
): Promise<SelectOption> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const property = selectLikeProperty(schema, propertyId);
  if (property.options.some((option) => option.name === input.name)) {
    throw conflict("An option with this name already exists", { name: input.name });
  }
  const option: SelectOption = { id: newOptionId(), name: input.name, color: input.color ?? "default" };
  await commitSchemaChange(db, schema, userId, (timestamp) => [
    saveOptions(schema, property, [...property.options, option], timestamp),
  ]);
  return option;
}

/** Renames or recolours an option; rows holding it are rewritten in the same batch. */
export async function updateOption(
  db: Database,
  userId: string,
  databaseId: string,
  propertyId: string,
  optionId: string,
  input: { name?: string; color?: string },
): Promise<SelectOption> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const property = selectLikeProperty(schema, propertyId);
  const option = property.options.find((candidate) => candidate.id === optionId);
  if (!option) throw notFound("Option not found", { property_id: propertyId, option_id: optionId });
  if (input.name !== undefined && property.options.some((o) => o.id !== optionId && o.name === input.name)) {
    throw conflict("An option with this name already exists", { name: input.name });
  }
  const updated: SelectOption = { ...option, name: input.name ?? option.name, color: input.color ?? option.color };
  await commitSchemaChange(db, schema, userId, (timestamp) => [
    saveOptions(
      schema,
      property,
      property.options.map((o) => (o.id === optionId ? updated : o)),
      timestamp,
    ),
    rewriteOptionValues(schema, property, optionId, updated),
  ]);
  return updated;
}

/** Removes an option and clears it from every row that held it. */
export async function removeOption(
  db: Database,
  userId: string,
  databaseId: string,
  propertyId: string,
  optionId: string,
): Promise<void> {
  const schema = await loadDatabaseSchema(db, userId, databaseId);
  const property = selectLikeProperty(schema, propertyId);
  if (!property.options.some((option) => option.id === optionId)) {
    throw notFound("Option not found", { property_id: propertyId, option_id: optionId });
  }
  await commitSchemaChange(db, schema, userId, (timestamp) => [
    saveOptions(
      schema,
      property,
      property.options.filter((option) => option.id !== optionId),
      timestamp,
    ),
    rewriteOptionValues(schema, property, optionId, null),
  ]);
}
