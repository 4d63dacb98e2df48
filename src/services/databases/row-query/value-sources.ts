// Where a filter reads values (row JSON, index entries probed by key, the driving entry): the index
// holds the very expressions the JSON computes, so the source never changes which rows match.
import { type SQL, sql } from "drizzle-orm";
import { propertyIdSql, propertyPathSql } from "../property-path";
import { COMPUTED_PROPERTY_COLUMNS, isComputedType, type PropertyDefinition } from "../property-types";

/** How a filter's condition reads the values of one property (filters.ts, filterCondition). */
export interface ValueSource {
  /** The value compared, for a condition that `wrap` makes about one row. */
  value(property: PropertyDefinition): SQL;
  /** Makes a condition on `value(property)` a condition on the row `b`. */
  wrap(property: PropertyDefinition, condition: SQL): SQL;
  /** The row's multi-select holds the option (an exact id). */
  multiContains(property: PropertyDefinition, optionId: string): SQL;
  /** The row's multi-select holds no option. */
  multiEmpty(property: PropertyDefinition): SQL;
}

/**
 * The SQL value of a property on row `b`, in a form that compares and sorts naturally: a computed
 * property's column, else the value in the row's JSON.
 */
export function valueExpression(property: PropertyDefinition): SQL {
  if (isComputedType(property.type)) return sql.raw(`b.${COMPUTED_PROPERTY_COLUMNS[property.type]}`);
  const path = propertyPathSql(property.id);
  switch (property.type) {
    case "select":
    case "status":
      // {id, name, color}, or a bare option name in older rows (a legacy option's id is its name).
      return sql`(CASE json_type(b.properties, ${path}) WHEN 'object' THEN b.properties -> ${path} ->> '$.id' ELSE b.properties ->> ${path} END)`;
    case "date":
      // A date value is an ISO string or an object with `start`.
      return sql`(CASE json_type(b.properties, ${path}) WHEN 'object' THEN b.properties -> ${path} ->> '$.start' ELSE b.properties ->> ${path} END)`;
    default:
      return sql`(b.properties ->> ${path})`;
  }
}

/** The row's own JSON (and columns, for computed properties): what the JSON scan reads. */
export const jsonValues: ValueSource = {
  value: valueExpression,
  wrap: (_property, condition) => condition,
  // Options of an array only: a select's object or a text left by a retype holds none (as indexed).
  multiContains: (property, id) => sql`(json_type(b.properties, ${propertyPathSql(property.id)}) = 'array'
    AND EXISTS (SELECT 1 FROM json_each(b.properties, ${propertyPathSql(property.id)}) e
        WHERE CASE e.type WHEN 'object' THEN e.value ->> '$.id' WHEN 'text' THEN e.value END = ${id}))`,
  multiEmpty: (property) => sql`coalesce(json_array_length(b.properties, ${propertyPathSql(property.id)}), 0) = 0`,
};

/**
 * The row-value index: each condition probes one row's entry by its key, the row's seq as `row`
 * gives it. A walk passes the seq of the entry it walks (`s.row_seq`, `m.row_seq`), not `b.seq`:
 * SQLite then probes before it reads the row itself, and reads only the rows that match.
 */
export function indexedValuesFor(row: SQL): ValueSource {
  /** The row's entry for `property` (ordinal 0), as filters read it: `f.match` holds the value. */
  const entryOf = (property: PropertyDefinition, condition: SQL): SQL =>
    sql`EXISTS (SELECT 1 FROM row_values f WHERE f.row_seq = ${row} AND f.property_id = ${propertyIdSql(property.id)}
      AND f.ordinal = 0 AND ${condition})`;
  return {
    value: () => sql`f.match`,
    wrap: entryOf,
    multiContains: (property, optionId) =>
      sql`EXISTS (SELECT 1 FROM row_values f WHERE f.row_seq = ${row} AND f.property_id = ${propertyIdSql(property.id)}
        AND f.match = ${optionId})`,
    multiEmpty: (property) => entryOf(property, sql`f.match IS NULL`),
  };
}

/** The driving filter's own entry `m` (driving-filter.ts), as the plan walks it: its value is at hand. */
export const drivingEntryValues: ValueSource = {
  value: () => sql`m.match`,
  wrap: (_property, condition) => condition,
  multiContains: (_property, id) => sql`m.match = ${id}`,
  multiEmpty: () => sql`m.match IS NULL`,
};
