import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import { rowsRewrittenForSchemaOf } from "../../db/write-context";
import type { UserContext } from "../../lib/context";
import { assertPreconditions, type Preconditions, type Validator } from "../../lib/entity-tags";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import { isAddressable, propertyPathSql } from "./property-path";
import {
  COMPUTED_PROPERTY_TYPES,
  DATE_LIKE_TYPES,
  type DatabaseSchema,
  MAX_OPTIONS,
  MAX_PROPERTIES,
  newOptionId,
  newPropertyId,
  type PropertyDefinition,
  type PropertyType,
  SELECT_LIKE_TYPES,
  type SelectOption,
} from "./property-types";
import { insertPropertyRecords, loadDatabaseSchema, nameKey, schemaUnchanged, schemaValidator } from "./schema-records";

// Schema changes are validated against the schema as read, then written in one
// atomic batch whose every statement holds only while the database's schema
// version is still the one read; the batch's last statement increments it. A
// change that lost a race to another one writes nothing and is validated again
// against the new schema (retryWhileStale). So concurrent changes never undo each
// other, names stay unique, and rows are rewritten in the same batch as the
// schema change that affects them: rows never hold values the schema no longer explains.

function findProperty(schema: DatabaseSchema, propertyId: string): PropertyDefinition {
  const property = schema.properties.find((candidate) => candidate.id === propertyId);
  if (!property) throw notFound("Property not found", { database_id: schema.databaseId, property_id: propertyId });
  return property;
}

function assertNameFree(schema: DatabaseSchema, name: string, except?: string): void {
  const taken = schema.properties.find(
    (property) => property.id !== except && nameKey(property.name) === nameKey(name),
  );
  if (taken) throw conflict("A property with this name already exists", { name, property_id: taken.id });
  // Properties are named by id or by name, ids first: a name equal to another property's id
  // (an older schema's ids are any string) could never be reached by that name.
  const shadowed = schema.properties.find((property) => property.id !== except && property.id === name);
  if (shadowed) throw conflict("Another property has this name as its id", { name, property_id: shadowed.id });
}

/** An option's name may not be another option's name, nor (options are named by id or name) another option's id. */
function assertOptionNameFree(property: PropertyDefinition, name: string, except?: string): void {
  const taken = property.options.find((option) => option.id !== except && option.name === name);
  if (taken) throw conflict("An option with this name already exists", { name, option_id: taken.id });
  const shadowed = property.options.find((option) => option.id !== except && option.id === name);
  if (shadowed) throw conflict("Another option has this name as its id", { name, option_id: shadowed.id });
}

/** Writes an older database's inline schema out as records, so later changes have records to change. */
function materializeLegacy(schema: DatabaseSchema, timestamp: string, when: SQL): SQL[] {
  if (!schema.legacy || schema.properties.length === 0) return [];
  return [insertPropertyRecords(schema.databaseId, schema.properties, timestamp, when)];
}

interface SchemaChange {
  /** Statements of the change; each must include `when` in its WHERE clause. */
  statements: (timestamp: string, when: SQL) => SQL[];
  /** A further condition the whole change needs, checked in the same statements (beyond the version). */
  requires?: SQL;
}

/**
 * Writes a validated schema change as one atomic batch: the legacy inline
 * schema written out as records (when still legacy), the change, then the
 * version increment (with the database marked as edited), which the change log
 * records as one `database.schema_updated`. Throws StaleWrite when the schema
 * changed since `schema` was read: nothing was written.
 */
async function commitSchemaChange(ctx: UserContext, schema: DatabaseSchema, change: SchemaChange): Promise<void> {
  const timestamp = ctx.now().toISOString();
  const conditions = [schemaUnchanged(schema), ...(change.requires ? [change.requires] : [])];
  if (schema.legacy) {
    // A legacy schema is part of its block: it holds while the block is the version it was read at.
    conditions.push(sql`EXISTS (SELECT 1 FROM blocks lv WHERE lv.id = ${schema.databaseId}
      AND lv.version = ${schema.inlineVersion ?? null})`);
  }
  const when = sql.join(conditions, sql` AND `);
  const results = await batchAll<unknown[]>(ctx.db, [
    ...materializeLegacy(schema, timestamp, when),
    // The rows the change rewrites are part of its one change-log event, not events of their own.
    rowsRewrittenForSchemaOf(schema.databaseId, when),
    ...change.statements(timestamp, when),
    sql`UPDATE blocks SET schema_version = schema_version + 1, updated_at = ${timestamp},
        last_edited_by = ${ctx.actor.userId}
      WHERE id = ${schema.databaseId} AND ${when}
      RETURNING schema_version`,
  ]);
  if ((results.at(-1) ?? []).length === 0) throw new StaleWrite();
}

/** What a schema change answers: its own result, and the validator of the schema it left (its new version). */
export interface SchemaChanged<T> {
  result: T;
  schema: Validator;
}

/**
 * Loads the schema, runs `change` against it, and repeats both if the schema changed meanwhile.
 * The request's preconditions (If-Match, If-None-Match: RFC 9110 §13.1) are held to the schema as
 * loaded; the change is written only while that version holds, so they hold for what it changes.
 */
async function changeSchema<T>(
  ctx: UserContext,
  databaseId: string,
  preconditions: Preconditions,
  change: (schema: DatabaseSchema, commit: (change: SchemaChange) => Promise<void>) => Promise<T>,
): Promise<SchemaChanged<T>> {
  return retryWhileStale("database schema", async () => {
    const schema = await loadDatabaseSchema(ctx, databaseId);
    assertPreconditions(preconditions, schemaValidator(schema));
    let written = false;
    const result = await change(schema, async (statements) => {
      await commitSchemaChange(ctx, schema, statements);
      written = true;
    });
    // A change that was written incremented the version it was written against, in the same batch,
    // and left the schema in records (a legacy one is written out first). One that changed nothing
    // (a name given its own name) wrote nothing: the schema is still the version it was read at,
    // and its validator says so, or a client holding it would match a later writer's version.
    const left = written ? { ...schema, version: schema.version + 1, legacy: false } : schema;
    return { result, schema: schemaValidator(left) };
  });
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

export function addProperty(
  ctx: UserContext,
  databaseId: string,
  input: NewProperty,
  preconditions: Preconditions = {},
): Promise<SchemaChanged<PropertyDefinition>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    if (schema.properties.length >= MAX_PROPERTIES) {
      throw conflict(`A database has at most ${MAX_PROPERTIES} properties: remove one first`, {
        maximum: MAX_PROPERTIES,
      });
    }
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
    await commit({
      statements: (timestamp, when) => [
        sql`INSERT INTO database_properties (id, database_id, name, name_key, type, options, position, created_at,
            updated_at)
          SELECT ${property.id}, ${databaseId}, ${property.name}, ${nameKey(property.name)}, ${property.type},
            ${JSON.stringify(property.options)}, ${property.position}, ${timestamp}, ${timestamp}
          WHERE ${when}`,
      ],
    });
    return property;
  });
}

/** Views that lay a calendar or timeline out by `propertyId`: they cannot lose it or have it retyped. */
const laidOutBy = (databaseId: string, propertyId: string): SQL =>
  sql`EXISTS (SELECT 1 FROM database_views lv WHERE lv.database_id = ${databaseId}
    AND (lv.date_property = ${propertyId} OR lv.start_date_property = ${propertyId}))`;

/**
 * Runs a change that requires no saved view to be laid out by `property`;
 * when its batch wrote nothing, tells a layout use (a 409 naming the views)
 * from a lost race (StaleWrite, retried). The views are read only then.
 */
async function unlessLaidOut(
  ctx: UserContext,
  schema: DatabaseSchema,
  property: PropertyDefinition,
  doing: string,
  commit: () => Promise<void>,
): Promise<void> {
  try {
    await commit();
  } catch (error) {
    if (!(error instanceof StaleWrite)) throw error;
    const views = await ctx.db.all<{ id: string; name: string }>(sql`
      SELECT v.id, v.name FROM database_views v WHERE v.database_id = ${schema.databaseId}
        AND (v.date_property = ${property.id} OR v.start_date_property = ${property.id})`);
    if (views.length > 0) {
      throw conflict(`Saved views lay themselves out by '${property.name}': change those views before ${doing} it`, {
        property_id: property.id,
        views: views.map((view) => ({ id: view.id, name: view.name })),
      });
    }
    throw error;
  }
}

/**
 * A filter array (JSON text column `column` of database_views) without the filters `drop` matches (alias `f`).
 * Only a true match drops a filter: `drop` is NULL for a filter lacking a field it reads (a string value read
 * as `$.value.id`, an `is_empty` filter without a value), and such a filter is kept.
 */
const filtersWithout = (column: string, drop: SQL): SQL =>
  sql`(SELECT json_group_array(json(f.value) ORDER BY f.key) FROM json_each(${sql.raw(column)}) f
    WHERE NOT coalesce((${drop}), 0))`;

const filtersHave = (column: string, match: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM json_each(${sql.raw(column)}) f WHERE ${match})`;

/**
 * Takes a property out of every saved view of the database, in the schema
 * change's batch: its filters and sorts, its place among visible properties, its
 * use as a timeline's end date. (Layout uses are refused before this runs.)
 */
function removeFromViews(databaseId: string, propertyId: string, timestamp: string, when: SQL): SQL {
  const onProperty = sql`f.value ->> '$.property' = ${propertyId}`;
  return sql`UPDATE database_views SET
      filters = ${filtersWithout("filters", onProperty)},
      sorts = ${filtersWithout("sorts", onProperty)},
      visible_properties = CASE WHEN visible_properties IS NULL THEN NULL ELSE
        (SELECT json_group_array(f.value ORDER BY f.key) FROM json_each(visible_properties) f
          WHERE f.value IS NOT ${propertyId}) END,
      end_date_property = CASE WHEN end_date_property = ${propertyId} THEN NULL ELSE end_date_property END,
      version = version + 1, updated_at = ${timestamp}
    WHERE database_id = ${databaseId} AND ${when}
      AND (${filtersHave("filters", onProperty)} OR ${filtersHave("sorts", onProperty)}
        OR end_date_property = ${propertyId}
        OR (visible_properties IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(visible_properties) f
          WHERE f.value = ${propertyId})))`;
}

/** Drops the filters on a property from every saved view (they may not fit its new type). */
function removeFiltersFromViews(databaseId: string, propertyId: string, timestamp: string, when: SQL): SQL {
  const onProperty = sql`f.value ->> '$.property' = ${propertyId}`;
  return sql`UPDATE database_views SET filters = ${filtersWithout("filters", onProperty)},
      version = version + 1, updated_at = ${timestamp}
    WHERE database_id = ${databaseId} AND ${when} AND ${filtersHave("filters", onProperty)}`;
}

/**
 * Renames and/or retypes a property. Retyping keeps stored values as they are
 * (nothing is discarded); new writes are validated against the new type, and
 * saved views drop their filters on it (their operators and values may not fit
 * the new type). Select-like types keep their options when retyped among themselves.
 */
export function updateProperty(
  ctx: UserContext,
  databaseId: string,
  propertyId: string,
  input: { name?: string; type?: PropertyType },
  preconditions: Preconditions = {},
): Promise<SchemaChanged<PropertyDefinition>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    const property = findProperty(schema, propertyId);
    const renamed = input.name !== undefined && input.name !== property.name;
    const retyped = input.type !== undefined && input.type !== property.type;
    if (!renamed && !retyped) return property;
    if (renamed && input.name !== undefined) assertNameFree(schema, input.name, propertyId);
    if (retyped && input.type !== undefined) {
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
    // A calendar or timeline laid out by a date stops being one if the date stops being a date.
    const losesDate = retyped && DATE_LIKE_TYPES.has(property.type) && !DATE_LIKE_TYPES.has(updated.type);
    const write = () =>
      commit({
        requires: losesDate ? sql`NOT ${laidOutBy(databaseId, propertyId)}` : undefined,
        statements: (timestamp, when) => [
          // The key is written only with a new name: a key the migration gave an older collision stays.
          sql`UPDATE database_properties SET name = ${updated.name},
              ${renamed ? sql`name_key = ${nameKey(updated.name)},` : sql``}
              type = ${updated.type}, options = ${JSON.stringify(updated.options)}, updated_at = ${timestamp}
            WHERE id = ${propertyId} AND database_id = ${databaseId} AND ${when}`,
          ...(retyped ? [removeFiltersFromViews(databaseId, propertyId, timestamp, when)] : []),
        ],
      });
    await (losesDate ? unlessLaidOut(ctx, schema, property, "retyping", write) : write());
    return updated;
  });
}

/**
 * Removes a property and its values from every row of the database, and from
 * every saved view's filters, sorts and visible properties. A view laid out by
 * it (a calendar's date, a timeline's start) is a 409: change the view first.
 */
export function removeProperty(
  ctx: UserContext,
  databaseId: string,
  propertyId: string,
  preconditions: Preconditions = {},
): Promise<SchemaChanged<void>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    const property = findProperty(schema, propertyId);
    if (property.type === "title") {
      throw badRequest("The title property cannot be removed", { property_id: propertyId });
    }
    // Values under an id no JSON path can address cannot be removed by path: the property goes, and
    // its values stay in the rows' JSON, where no query or named value (properties_by_name) reaches them.
    const path = isAddressable(propertyId) ? propertyPathSql(propertyId) : null;
    await unlessLaidOut(ctx, schema, property, "removing", () =>
      commit({
        requires: sql`NOT ${laidOutBy(databaseId, propertyId)}`,
        statements: (timestamp, when) => [
          sql`DELETE FROM database_properties WHERE id = ${propertyId} AND database_id = ${databaseId} AND ${when}`,
          ...(path
            ? [
                sql`UPDATE blocks SET properties = json_remove(properties, ${path})
                  WHERE database_id = ${databaseId} AND json_type(properties, ${path}) IS NOT NULL AND ${when}`,
              ]
            : []),
          removeFromViews(databaseId, propertyId, timestamp, when),
        ],
      }),
    );
  });
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

const saveOptions = (
  schema: DatabaseSchema,
  property: PropertyDefinition,
  options: SelectOption[],
  at: string,
  when: SQL,
) =>
  sql`UPDATE database_properties SET options = ${JSON.stringify(options)}, updated_at = ${at}
    WHERE id = ${property.id} AND database_id = ${schema.databaseId} AND ${when}`;

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
  when: SQL,
): SQL {
  const path = propertyPathSql(property.id);
  if (property.type === "multi_select") {
    // Each kept element as the JSON it is (`->`): `json(e.value)` would read a plain string
    // element, as older rows hold them, as JSON text and fail.
    const kept = replacement
      ? sql`SELECT json_group_array(CASE WHEN ${optionIdOf("e")} = ${optionId} THEN json(${JSON.stringify(replacement)}) ELSE json(blocks.properties -> e.fullkey) END ORDER BY e.key) FROM json_each(blocks.properties, ${path}) e`
      : sql`SELECT json_group_array(json(blocks.properties -> e.fullkey) ORDER BY e.key) FROM json_each(blocks.properties, ${path}) e WHERE ${optionIdOf("e")} IS NOT ${optionId}`;
    return sql`UPDATE blocks SET properties = json_set(properties, ${path}, json((${kept})))
      WHERE database_id = ${schema.databaseId} AND ${when}
        AND EXISTS (SELECT 1 FROM json_each(blocks.properties, ${path}) e WHERE ${optionIdOf("e")} = ${optionId})`;
  }
  const newValue = replacement
    ? sql`json_set(properties, ${path}, json(${JSON.stringify(replacement)}))`
    : sql`json_remove(properties, ${path})`;
  return sql`UPDATE blocks SET properties = ${newValue}
    WHERE database_id = ${schema.databaseId} AND ${when}
      AND CASE json_type(properties, ${path}) WHEN 'object' THEN properties -> ${path} ->> '$.id'
        ELSE properties ->> ${path} END = ${optionId}`;
}

/** Saved-view filters on `property` whose value names `option` (by id or name). */
const filterNamesOption = (property: PropertyDefinition, option: SelectOption): SQL =>
  sql`f.value ->> '$.property' = ${property.id} AND (f.value ->> '$.value' = ${option.id}
    OR f.value ->> '$.value' = ${option.name} OR f.value ->> '$.value.id' = ${option.id}
    OR f.value ->> '$.value.name' = ${option.name})`;

export function addOption(
  ctx: UserContext,
  databaseId: string,
  propertyId: string,
  input: { name: string; color?: string },
  preconditions: Preconditions = {},
): Promise<SchemaChanged<SelectOption>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    const property = selectLikeProperty(schema, propertyId);
    if (property.options.length >= MAX_OPTIONS) {
      throw conflict(`A property has at most ${MAX_OPTIONS} options: remove one first`, {
        property_id: propertyId,
        maximum: MAX_OPTIONS,
      });
    }
    assertOptionNameFree(property, input.name);
    const option: SelectOption = { id: newOptionId(), name: input.name, color: input.color ?? "default" };
    await commit({
      statements: (timestamp, when) => [saveOptions(schema, property, [...property.options, option], timestamp, when)],
    });
    return option;
  });
}

/**
 * Renames or recolours an option; rows holding it are rewritten in the same
 * batch, and saved-view filters naming it by its old name follow the new one.
 */
export function updateOption(
  ctx: UserContext,
  databaseId: string,
  propertyId: string,
  optionId: string,
  input: { name?: string; color?: string },
  preconditions: Preconditions = {},
): Promise<SchemaChanged<SelectOption>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    const property = selectLikeProperty(schema, propertyId);
    const option = property.options.find((candidate) => candidate.id === optionId);
    if (!option) throw notFound("Option not found", { property_id: propertyId, option_id: optionId });
    if (input.name !== undefined) assertOptionNameFree(property, input.name, optionId);
    const updated: SelectOption = { ...option, name: input.name ?? option.name, color: input.color ?? option.color };
    const renamed = updated.name !== option.name;
    if (!renamed && updated.color === option.color) return option;
    // A filter may name the option as a string or as {name}; {id} needs no change.
    const onProperty = sql`f.value ->> '$.property' = ${property.id}`;
    const asString = sql`${onProperty} AND f.value ->> '$.value' = ${option.name}`;
    const asObject = sql`${onProperty} AND f.value ->> '$.value.name' = ${option.name}`;
    await commit({
      statements: (timestamp, when) => [
        saveOptions(
          schema,
          property,
          property.options.map((o) => (o.id === optionId ? updated : o)),
          timestamp,
          when,
        ),
        rewriteOptionValues(schema, property, optionId, updated, when),
        ...(renamed
          ? [
              sql`UPDATE database_views SET filters = (SELECT json_group_array(CASE
                    WHEN ${asString} THEN json_set(f.value, '$.value', ${updated.name})
                    WHEN ${asObject} THEN json_set(f.value, '$.value.name', ${updated.name})
                    ELSE json(f.value) END ORDER BY f.key)
                  FROM json_each(filters) f),
                  version = version + 1, updated_at = ${timestamp}
                WHERE database_id = ${databaseId} AND ${when}
                  AND ${filtersHave("filters", sql`(${asString}) OR (${asObject})`)}`,
            ]
          : []),
      ],
    });
    return updated;
  });
}

/** Removes an option, clears it from every row that held it and drops saved-view filters on it. */
export function removeOption(
  ctx: UserContext,
  databaseId: string,
  propertyId: string,
  optionId: string,
  preconditions: Preconditions = {},
): Promise<SchemaChanged<void>> {
  return changeSchema(ctx, databaseId, preconditions, async (schema, commit) => {
    const property = selectLikeProperty(schema, propertyId);
    const option = property.options.find((candidate) => candidate.id === optionId);
    if (!option) throw notFound("Option not found", { property_id: propertyId, option_id: optionId });
    const onOption = filterNamesOption(property, option);
    await commit({
      statements: (timestamp, when) => [
        saveOptions(
          schema,
          property,
          property.options.filter((candidate) => candidate.id !== optionId),
          timestamp,
          when,
        ),
        rewriteOptionValues(schema, property, optionId, null, when),
        sql`UPDATE database_views SET filters = ${filtersWithout("filters", onOption)},
            version = version + 1, updated_at = ${timestamp}
          WHERE database_id = ${databaseId} AND ${when} AND ${filtersHave("filters", onOption)}`,
      ],
    });
  });
}
