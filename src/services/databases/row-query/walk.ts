import { type SQL, sql } from "drizzle-orm";
import type { CursorPosition, KeyValue } from "../../../lib/cursor";
import type { RowFilter, RowSort } from "../../../schemas/databases";
import { propertyIdSql } from "../property-path";
import {
  COMPUTED_PROPERTY_TYPES,
  type DatabaseSchema,
  type PropertyDefinition,
  type PropertyType,
} from "../property-types";
import { resolvePropertyKey } from "../row-values";
import { optionId } from "./filters";

// The row-value index (`row_values`, migrations/0012_row_values.sql, kept by triggers): what a row
// query reads instead of every row's JSON. A sorted query walks the sort property's entries in
// index order and probes each row's filter entries by key; an unsorted one walks the rows in
// their default order (blocks_database_order_idx) with the same probes. Either way a page reads
// about `limit / selectivity` entries, whatever the database's size. Keyset cursors continue a
// walk from where the last page stopped, so page 2,000 costs what page 1 costs.

/**
 * Property types with index entries: every stored type, as migrations/0012 lists them. Computed
 * types (COMPUTED_PROPERTY_TYPES: timestamps, users) read the row's columns.
 */
export const INDEXED_TYPES: ReadonlySet<PropertyType> = new Set([
  "title",
  "text",
  "url",
  "email",
  "phone_number",
  "number",
  "checkbox",
  "select",
  "status",
  "date",
  "multi_select",
]);

/**
 * Whether a query can be answered from the index: a database with schema records (an older
 * inline schema has no entries), filters on indexed or computed properties, and at most one sort,
 * on an indexed property. Unknown properties answer false: the JSON path reports them (400).
 */
export function indexServes(schema: DatabaseSchema, filters: RowFilter[], sorts: RowSort[]): boolean {
  if (schema.legacy || sorts.length > 1) return false;
  const typeOf = (key: string) => resolvePropertyKey(schema, key)?.type;
  const filtersServed = filters.every((filter) => {
    const type = typeOf(filter.property);
    return type !== undefined && (INDEXED_TYPES.has(type) || COMPUTED_PROPERTY_TYPES.has(type));
  });
  const sortType = sorts[0] ? typeOf(sorts[0].property) : undefined;
  return filtersServed && (sorts.length === 0 || (sortType !== undefined && INDEXED_TYPES.has(sortType)));
}

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
  /** Joins the sort entry `s` to a row `b` found another way (empty when unsorted). */
  entryJoin: SQL;
  /** The walked row's seq, as the walk has it before it reads the row (see indexedValuesFor). */
  rowKey: SQL;
  keys: KeyColumn[];
  /** The SELECT list's extra columns: the keys under their aliases. */
  keyColumns: SQL;
  /** The cursor values of a fetched record (the key columns; the sort value raw, NULL when absent). */
  valuesOf(record: Record<string, unknown>): KeyValue[];
}

export type { CursorPosition, KeyValue };

/** The largest float: where unpositioned rows sort (blocks.position_key, row_values.position_key). */
export const UNPOSITIONED = Number.MAX_VALUE;

/** The walk of a query: by the sort property's entries, or by the rows' default order. */
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
    entryJoin: sql`CROSS JOIN row_values s ON s.row_seq = b.seq AND s.property_id = ${propertyIdSql(property.id)} AND s.ordinal = 0`,
    rowKey: sql`s.row_seq`,
    keys: [
      sortKey,
      { expression: sql`s.position_key`, direction: "asc", alias: "key_position" },
      { expression: sql`s.row_seq`, direction: "asc", alias: "key_seq" },
    ],
    keyColumns: sql`s.sort AS key_sort, s.sort_asc AS key_sort_asc, s.position_key AS key_position, s.row_seq AS key_seq`,
    valuesOf: (record) => [record.key_sort as KeyValue, record.key_position as number, record.key_seq as number],
  };
}

/**
 * A filter whose matches the match index lists directly (row_values_match_idx: database,
 * property, match): `condition` on the entries `m` is sargable and holds for every row the
 * filter keeps (the filter itself is still applied). A query with one reads its matches from
 * there when they are few, and counts from there: see `queryRows`.
 */
export interface DrivingFilter {
  property: PropertyDefinition;
  condition: SQL;
  /** A multi-select's option: a row may have entries at several ordinals. */
  anyOrdinal: boolean;
  /** The filter's index in the query's filters. */
  filterIndex: number;
}

/** Filters likelier to match few rows rank lower: exact values, then options, then ranges, then a checkbox. */
const EXACT = 0;
const OPTION = 1;
const RANGE = 2;
const FLAG = 3;

/**
 * The first string after every string that starts with `day` ("2026-10-01" -> "2026-10-02",
 * "2026-10-09" -> "2026-10-0:"): text written on that day lies in [day, afterDay(day)).
 * Numbers sort before all text and match no date filter (row-query.ts).
 */
const afterDay = (day: string) => day.slice(0, -1) + String.fromCharCode(day.charCodeAt(day.length - 1) + 1);

function drivingCandidate(
  schema: DatabaseSchema,
  filter: RowFilter,
  filterIndex: number,
): { rank: number; driver: DrivingFilter } | null {
  const property = resolvePropertyKey(schema, filter.property);
  if (!property || !INDEXED_TYPES.has(property.type)) return null;
  const at = (rank: number, condition: SQL, anyOrdinal = false) => ({
    rank,
    driver: {
      property,
      condition: anyOrdinal ? condition : sql`m.ordinal = 0 AND ${condition}`,
      anyOrdinal,
      filterIndex,
    },
  });
  const { operator, value } = filter;
  switch (property.type) {
    case "select":
    case "status":
      return operator === "equals" ? at(OPTION, sql`m.match = ${optionId(property, value)}`) : null;
    case "multi_select":
      return operator === "contains" ? at(OPTION, sql`m.match = ${optionId(property, value)}`, true) : null;
    case "checkbox":
      return value === true ? at(FLAG, sql`m.match = 1`) : null;
    case "number": {
      if (typeof value !== "number") return null;
      if (operator === "equals") return at(EXACT, sql`m.match = ${value}`);
      if (operator === "greater_than") return at(RANGE, sql`m.match > ${value}`);
      return operator === "less_than" ? at(RANGE, sql`m.match < ${value}`) : null;
    }
    case "date": {
      // Day bounds compare the written day, a prefix of the value: bounds on the whole string.
      if (typeof value !== "string" || value.length !== 10) return null;
      switch (operator) {
        case "equals":
          return at(EXACT, sql`m.match >= ${value} AND m.match < ${afterDay(value)}`);
        case "on_or_after":
          return at(RANGE, sql`m.match >= ${value}`);
        case "after":
          return at(RANGE, sql`m.match >= ${afterDay(value)}`);
        case "before":
          return at(RANGE, sql`m.match < ${value}`);
        case "on_or_before":
          return at(RANGE, sql`m.match < ${afterDay(value)}`);
        default:
          return null;
      }
    }
    default:
      return operator === "equals" && typeof value === "string" ? at(EXACT, sql`m.match = ${value}`) : null;
  }
}

/** The filter to read matches from: the likeliest to match fewest rows (the first of equals). */
export function drivingFilter(schema: DatabaseSchema, filters: RowFilter[]): DrivingFilter | null {
  let best: { rank: number; driver: DrivingFilter } | null = null;
  for (const [index, filter] of filters.entries()) {
    const candidate = drivingCandidate(schema, filter, index);
    if (candidate && (!best || candidate.rank < best.rank)) best = candidate;
  }
  return best?.driver ?? null;
}

/**
 * The driving filter's entries: one per row (a multi-select has one entry per option it holds,
 * even when its value names an option twice: migrations/0013).
 */
export function drivingEntries(databaseId: string, driver: DrivingFilter): SQL {
  return sql`m.database_id = ${databaseId} AND m.property_id = ${propertyIdSql(driver.property.id)} AND ${driver.condition}`;
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
