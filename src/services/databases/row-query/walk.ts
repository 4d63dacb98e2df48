// The walk is the order the index plan reads in (sort entries, or rows' default order), probing
// filters by key; keyset cursors resume it, so page 2,000 costs what page 1 does.
import { type SQL, sql } from "drizzle-orm";
import type { KeyValue } from "../../../lib/cursor";
import type { RowFilter, RowSort } from "../../../schemas/databases";
import { propertyIdSql } from "../property-path";
import type { DatabaseSchema, PropertyDefinition, PropertyType } from "../property-types";
import { resolvePropertyKey } from "../row-values";

/** One column of a walk's order. */
export interface KeyColumn {
  expression: SQL;
  direction: "asc" | "desc";
  /**
   * How the column holds a row without a value: `sentinel` (the ascending sort column writes
   * NULL as X'FF', after every value), `last` (the descending sort column keeps NULL, the smallest
   * value, so last), or never NULL when absent.
   */
  nulls?: "sentinel" | "last";
  /** The column's name in the walk's SELECT list (for ordering a union of seeks). */
  alias: string;
}

/** How a walk is ordered, and where it reads. */
export interface Walk {
  /** FROM ... (aliases `b` for the row, and `s` for the sort entry when sorted). */
  from: SQL;
  /** Conditions of the walk's own access path, beside the row conditions. */
  where: SQL | undefined;
  /** Joins the sort entry `s` to a driving filter's entry `m` (empty when unsorted). */
  entryJoin: SQL;
  /** The walked row's seq, as the walk has it before it reads the row (see indexedValuesFor). */
  rowKey: SQL;
  keys: KeyColumn[];
  /** The SELECT list's extra columns: the keys under their aliases. */
  keyColumns: SQL;
  /** The cursor values of a fetched record (the key columns; the sort value raw, NULL when absent). */
  valuesOf(record: Record<string, unknown>): KeyValue[];
}

/**
 * The walk of a query: by the sort property's entries, or by the rows' default order. Either way a
 * page reads about `limit / selectivity` entries, whatever the database's size.
 */
export function walkFor(schema: DatabaseSchema, sort: RowSort | undefined): Walk {
  if (!sort) {
    return {
      from: sql`FROM blocks b`,
      where: undefined,
      entryJoin: sql``,
      rowKey: sql`b.seq`,
      keys: [
        { expression: sql`b.position_key`, direction: "asc", alias: "key_position" },
        { expression: sql`b.seq`, direction: "asc", alias: "key_seq" },
      ],
      keyColumns: sql`b.position_key AS key_position, b.seq AS key_seq`,
      valuesOf: (record) => [record.key_position as number, record.key_seq as number],
    };
  }
  const property = resolvePropertyKey(schema, sort.property) as PropertyDefinition;
  const descending = sort.direction === "desc";
  const sortKey: KeyColumn = descending
    ? { expression: sql`s.sort`, direction: "desc", nulls: "last", alias: "key_sort" }
    : { expression: sql`s.sort_asc`, direction: "asc", nulls: "sentinel", alias: "key_sort_asc" };
  return {
    from: sql`FROM row_values s JOIN blocks b ON b.seq = s.row_seq`,
    where: sql`s.database_id = ${schema.databaseId} AND s.property_id = ${propertyIdSql(property.id)} AND s.ordinal = 0`,
    entryJoin: sql`CROSS JOIN row_values s ON s.row_seq = m.row_seq AND s.property_id = ${propertyIdSql(property.id)} AND s.ordinal = 0`,
    rowKey: sql`s.row_seq`,
    keys: [
      sortKey,
      { expression: sql`s.position_key`, direction: "asc", alias: "key_position" },
      { expression: sql`s.row_seq`, direction: "asc", alias: "key_seq" },
    ],
    // From the walked index alone (each has the other sort column's value): a column outside it would
    // be read from the table for every walked entry (row_values is WITHOUT ROWID: no deferred read),
    // which made a walk reading 5,000 entries 30 times slower. `sort` is never a blob, so X'FF' in
    // `sort_asc` is a missing value.
    keyColumns: descending
      ? sql`s.sort AS key_sort, coalesce(s.sort, X'FF') AS key_sort_asc, s.position_key AS key_position, s.row_seq AS key_seq`
      : sql`nullif(s.sort_asc, X'FF') AS key_sort, s.sort_asc AS key_sort_asc, s.position_key AS key_position, s.row_seq AS key_seq`,
    valuesOf: (record) => [record.key_sort as KeyValue, record.key_position as number, record.key_seq as number],
  };
}

/**
 * Bounds on the walk's sort key implied by filters on the sort property, so a walk sorted by a
 * number filtered to `> 900` seeks to 900 instead of stepping over every smaller value. Only
 * where the sort key is the match value itself (numbers, text, checkboxes): each bound holds
 * for every row the filter keeps (rows without a value sort as X'FF' or NULL, and fail it).
 */
export function sortKeyBounds(
  schema: DatabaseSchema,
  filters: RowFilter[],
  walk: Walk,
  sort: RowSort | undefined,
): SQL[] {
  const sortKey = walk.keys[0];
  if (!sort || !sortKey) return [];
  const sorted = resolvePropertyKey(schema, sort.property);
  const bounds: SQL[] = [];
  for (const filter of filters) {
    const property = resolvePropertyKey(schema, filter.property);
    if (!property || property.id !== sorted?.id) continue;
    const key = sortKey.expression;
    const { operator, value } = filter;
    if (property.type === "number" && typeof value === "number") {
      if (operator === "equals") bounds.push(sql`${key} = ${value}`);
      if (operator === "greater_than") bounds.push(sql`${key} > ${value}`);
      if (operator === "less_than") bounds.push(sql`${key} < ${value}`);
    } else if (property.type === "checkbox" && value === true) {
      bounds.push(sql`${key} = 1`);
    } else if (operator === "equals" && typeof value === "string" && TEXT_TYPES.has(property.type)) {
      bounds.push(sql`${key} = ${value}`);
    }
  }
  return bounds;
}

const TEXT_TYPES: ReadonlySet<PropertyType> = new Set(["title", "text", "url", "email", "phone_number"]);

const directionSql = (key: KeyColumn) => sql.raw(key.direction === "asc" ? "ASC" : "DESC");

/** ORDER BY of a walk: its key columns in index order. */
export const walkOrder = (walk: Walk): SQL =>
  sql.join(
    walk.keys.map((key) => sql`${key.expression} ${directionSql(key)}`),
    sql`, `,
  );

/** The same order on the walk's output columns (a union of seeks is ordered by segment, then this). */
export const walkOutputOrder = (walk: Walk): SQL =>
  sql.join(
    walk.keys.map((key) => sql`${sql.raw(key.alias)} ${directionSql(key)}`),
    sql`, `,
  );

/** `key` equal to a cursor value (a missing value as the column holds it). */
function equalTo(key: KeyColumn, value: KeyValue): SQL {
  if (value !== null) return sql`${key.expression} = ${value}`;
  return key.nulls === "sentinel" ? sql`${key.expression} = X'FF'` : sql`${key.expression} IS NULL`;
}

/**
 * The conditions of the rows after `values` in the walk's order, as segments each an index seek:
 * segment i keeps the first i keys equal and puts key i after its value (and, for the descending
 * sort column, a further segment for the rows without a value, which come last). In order, their
 * union is everything after the cursor. Nothing comes after a missing value in its column.
 */
export function segmentsAfter(walk: Walk, values: KeyValue[]): SQL[] {
  const segments: SQL[] = [];
  for (let i = walk.keys.length - 1; i >= 0; i--) {
    const key = walk.keys[i] as KeyColumn;
    const value = values[i] ?? null;
    if (value === null) continue;
    const prefix = walk.keys.slice(0, i).map((earlier, j) => equalTo(earlier, values[j] ?? null));
    const after = sql`${key.expression} ${sql.raw(key.direction === "asc" ? ">" : "<")} ${value}`;
    segments.push(sql.join([...prefix, after], sql` AND `));
    if (key.nulls === "last") segments.push(sql.join([...prefix, sql`${key.expression} IS NULL`], sql` AND `));
  }
  return segments;
}

/**
 * Whether a cursor's key values have the shape of `walk`'s keys, as `valuesOf` gives them: one per
 * key, ending in the row's position key (a number) and seq (an integer).
 */
export function keysFit(walk: Walk, keys: readonly KeyValue[]): boolean {
  if (keys.length !== walk.keys.length) return false;
  const [position, seq] = keys.slice(-2);
  return typeof position === "number" && Number.isSafeInteger(seq);
}
