import { type SQL, sql } from "drizzle-orm";
import { batchAll, parameterCount } from "../../../db/batch";
import type { UserContext } from "../../../lib/context";
import { cursorRefused } from "../../../lib/cursor";
import { badRequest } from "../../../lib/errors";
import type { Page, PageWindow } from "../../../lib/pagination";
import type { FilterOperator, Row, RowFilter, RowSort } from "../../../schemas/databases";
import type { BlockRecord } from "../../blocks/record";
import { isActive, visibleTo } from "../../blocks/visibility";
import { IsoDateOrDateTime } from "../date-value";
import { propertyPathSql } from "../property-path";
import {
  COMPUTED_PROPERTY_COLUMNS,
  type DatabaseSchema,
  isComputedType,
  type PropertyDefinition,
} from "../property-types";
import { optionId, resolvePropertyKey } from "../row-values";
import { presentRow } from "../rows";
import { loadDatabaseSchema } from "../schema-records";
import {
  decodeRowCursor,
  drivingEntries,
  drivingFilter,
  encodeRowCursor,
  indexedValuesFor,
  indexServes,
  type KeyValue,
  keysFit,
  segmentsAfter,
  sortKeyBounds,
  type Walk,
  walkFor,
  walkOrder,
  walkOutputOrder,
} from "./walk";

export type { RowFilter, RowSort };

const OPERATORS_BY_TYPE: Record<string, readonly FilterOperator[]> = {
  select: ["equals", "not_equals", "is_empty", "is_not_empty"],
  status: ["equals", "not_equals", "is_empty", "is_not_empty"],
  multi_select: ["contains", "not_contains", "is_empty", "is_not_empty"],
  date: ["equals", "before", "after", "on_or_before", "on_or_after", "is_empty", "is_not_empty"],
  created_time: ["equals", "before", "after", "on_or_before", "on_or_after"],
  last_edited_time: ["equals", "before", "after", "on_or_before", "on_or_after"],
  checkbox: ["equals"],
  number: ["equals", "not_equals", "greater_than", "less_than", "is_empty", "is_not_empty"],
  title: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
  text: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
  url: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
  email: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
  phone_number: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
  created_by: ["equals", "not_equals"],
  last_edited_by: ["equals", "not_equals"],
};

/** The SQL value of a property on row `b`, in a form that compares and sorts naturally. */
function valueExpression(property: PropertyDefinition): SQL {
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

/**
 * Where a filter reads a property's value: the row's JSON (`jsonValues`), or the row-value index
 * (`indexedValuesFor`, services/databases/row-index.ts), whose entries hold the same values.
 */
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

/** The driving filter's own entry `m` (row-index.ts, drivingFilter): its value is at hand. */
const drivingEntryValues: ValueSource = {
  value: () => sql`m.match`,
  wrap: (_property, condition) => condition,
  multiContains: (_property, id) => sql`m.match = ${id}`,
  multiEmpty: () => sql`m.match IS NULL`,
};

export const jsonValues: ValueSource = {
  value: valueExpression,
  wrap: (_property, condition) => condition,
  // Options of an array only: a select's object or a text left by a retype holds none (as indexed).
  multiContains: (property, id) => sql`(json_type(b.properties, ${propertyPathSql(property.id)}) = 'array'
    AND EXISTS (SELECT 1 FROM json_each(b.properties, ${propertyPathSql(property.id)}) e
        WHERE CASE e.type WHEN 'object' THEN e.value ->> '$.id' WHEN 'text' THEN e.value END = ${id}))`,
  multiEmpty: (property) => sql`coalesce(json_array_length(b.properties, ${propertyPathSql(property.id)}), 0) = 0`,
};

function filterCondition(
  schema: DatabaseSchema,
  filter: RowFilter,
  index: number,
  location = "filters",
  source: ValueSource = jsonValues,
): SQL {
  const property = resolvePropertyKey(schema, filter.property);
  if (!property) {
    throw badRequest("Filter names an unknown property", {
      path: `${location}[${index}].property`,
      property: filter.property,
      allowed: schema.properties.map((p) => p.name),
    });
  }
  const allowed = OPERATORS_BY_TYPE[property.type] ?? [];
  if (!allowed.includes(filter.operator)) {
    throw badRequest(`Operator '${filter.operator}' does not apply to ${property.type} properties`, {
      path: `${location}[${index}].operator`,
      allowed,
    });
  }
  const from = isComputedType(property.type) ? jsonValues : source;
  const value = from.value(property);
  const about = (condition: SQL) => from.wrap(property, condition);
  const needs = (check: (v: unknown) => boolean, expected: string) => {
    if (!check(filter.value)) {
      throw badRequest(`Filter value must be ${expected}`, {
        path: `${location}[${index}].value`,
        property: property.name,
      });
    }
    return filter.value;
  };
  const isString = (v: unknown) => typeof v === "string";

  if (filter.operator === "is_empty" || filter.operator === "is_not_empty") {
    const empty =
      property.type === "multi_select" ? from.multiEmpty(property) : about(sql`(${value} IS NULL OR ${value} = '')`);
    return filter.operator === "is_empty" ? empty : sql`NOT ${empty}`;
  }
  switch (property.type) {
    case "select":
    case "status": {
      const id = optionId(property, filter.value);
      return about(filter.operator === "equals" ? sql`${value} = ${id}` : sql`${value} IS NOT ${id}`);
    }
    case "multi_select": {
      // Exact canonical option ids only, never substrings; older rows may hold bare names (legacy option ids).
      const contains = from.multiContains(property, optionId(property, filter.value));
      return filter.operator === "contains" ? contains : sql`NOT ${contains}`;
    }
    case "checkbox": {
      const wanted = needs((v) => typeof v === "boolean", "true or false");
      return about(wanted ? sql`${value} = 1` : sql`coalesce(${value}, 0) = 0`);
    }
    case "number": {
      const wanted = needs((v) => typeof v === "number" && Number.isFinite(v), "a number") as number;
      // not_equals keeps rows without a value, as it does for every other type.
      const op = { equals: "=", not_equals: "IS NOT", greater_than: ">", less_than: "<" }[
        filter.operator as "equals" | "not_equals" | "greater_than" | "less_than"
      ];
      return about(sql`${value} ${sql.raw(op)} ${wanted}`);
    }
    case "date":
    case "created_time":
    case "last_edited_time": {
      const wanted = needs((v) => IsoDateOrDateTime.safeParse(v).success, "an ISO date or date-time") as string;
      // A date-only bound compares calendar days as written; a date-time bound compares
      // instants (julianday normalises offsets, so +02:00 and Z values order correctly).
      const day = wanted.slice(0, 10);
      // Only text is a date: a number left in a date property by a retype matches no bound
      // (julianday would read it as a Julian day number), in the JSON as in the index.
      const text = sql`(CASE WHEN typeof(${value}) = 'text' THEN ${value} END)`;
      const dayOf = sql`substr(${text}, 1, 10)`;
      const instant = sql`julianday(${text})`;
      const dateOnly = wanted.length === 10;
      const compare = (op: string) =>
        dateOnly ? sql`${dayOf} ${sql.raw(op)} ${day}` : sql`${instant} ${sql.raw(op)} julianday(${wanted})`;
      switch (filter.operator) {
        case "equals":
          return about(sql`${dayOf} = ${day}`);
        case "before":
          return about(compare("<"));
        case "after":
          return about(compare(">"));
        case "on_or_before":
          return about(compare("<="));
        default:
          return about(compare(">="));
      }
    }
    default: {
      const wanted = needs(isString, "a string") as string;
      switch (filter.operator) {
        case "equals":
          return about(sql`${value} = ${wanted}`);
        case "not_equals":
          return about(sql`${value} IS NOT ${wanted}`);
        case "contains":
          return about(sql`instr(lower(${value}), lower(${wanted})) > 0`);
        default:
          return about(sql`coalesce(instr(lower(${value}), lower(${wanted})), 0) = 0`);
      }
    }
  }
}

/**
 * Checks filters against the schema exactly as a query would (property,
 * operator for its type, value, options) and returns them with canonical ids:
 * what a saved view stores.
 */
export function canonicalFilters(schema: DatabaseSchema, filters: RowFilter[], path = "filters"): RowFilter[] {
  return filters.map((filter, index) => {
    filterCondition(schema, filter, index, path);
    const property = resolvePropertyKey(schema, filter.property) as PropertyDefinition;
    return { ...filter, property: property.id };
  });
}

export function canonicalSorts(schema: DatabaseSchema, sorts: RowSort[], path = "sorts"): RowSort[] {
  return sorts.map((sort, index) => {
    sortExpression(schema, sort, index, path);
    return { ...sort, property: (resolvePropertyKey(schema, sort.property) as PropertyDefinition).id };
  });
}

function sortExpression(schema: DatabaseSchema, sort: RowSort, index: number, location = "sorts"): SQL {
  const property = resolvePropertyKey(schema, sort.property);
  if (!property) {
    throw badRequest("Sort names an unknown property", {
      path: `${location}[${index}].property`,
      property: sort.property,
      allowed: schema.properties.map((p) => p.name),
    });
  }
  const path = propertyPathSql(property.id);
  // Options sort by name, multi-select by its first option's name, dates as instants.
  const key =
    property.type === "select" || property.type === "status"
      ? sql`(b.properties -> ${path} ->> '$.name')`
      : property.type === "multi_select"
        ? sql`(b.properties -> ${path} ->> '$[0].name')`
        : property.type === "date"
          ? sql`julianday(${valueExpression(property)})`
          : valueExpression(property);
  return sql`${key} ${sql.raw(sort.direction === "asc" ? "ASC" : "DESC")} NULLS LAST`;
}

export interface RowQuery extends PageWindow {
  filters: RowFilter[];
  sorts: RowSort[];
  /** An `X-Next-Cursor` of the same query: the page after it (instead of `offset`). */
  cursor?: string;
}

/** A page of rows, and the cursor of the page after it (null on the last page). */
export interface RowPage extends Page<Row> {
  nextCursor: string | null;
}

/**
 * Totals of a row query are counted up to this many (X-Total-Count is left out beyond): a count
 * reads every match it counts, so a bound keeps a query at 100,000 rows as cheap as at 1,000.
 * Cursors walk the rest.
 */
export const ROW_COUNT_CAP = 1_000;

/** The WHERE clause of a row query: the database's active visible rows matching every filter (AND). */
function rowConditions(
  ctx: UserContext,
  schema: DatabaseSchema,
  filters: RowFilter[],
  source: ValueSource = jsonValues,
): SQL {
  return allOf([
    sql`b.database_id = ${schema.databaseId}`,
    sql`b.type = 'database_row'`,
    visibleTo(ctx.actor),
    isActive(),
    ...filters.map((filter, index) => filterCondition(schema, filter, index, "filters", source)),
  ]);
}

/** Conditions per parenthesised group in `allOf`. */
const GROUP = 8;

/**
 * The conjunction of `conditions`, parenthesised in groups: SQLite parses a chain of ANDs as a
 * tree as deep as the chain, and D1 refuses expressions deeper than 100 ("Expression tree is too
 * large"), which 50 filters with a walk's own conditions reached.
 */
function allOf(conditions: SQL[]): SQL {
  if (conditions.length <= GROUP) return sql.join(conditions, sql` AND `);
  const groups: SQL[] = [];
  for (let i = 0; i < conditions.length; i += GROUP) {
    groups.push(sql`(${sql.join(conditions.slice(i, i + GROUP), sql` AND `)})`);
  }
  return allOf(groups);
}

const cappedRowCount = (rows: SQL): SQL =>
  sql`SELECT count(*) AS total FROM (SELECT 1 FROM blocks b WHERE ${rows} LIMIT ${ROW_COUNT_CAP + 1})`;

const totalOf = (counts: { total: number }[]): number | null => {
  const total = counts[0]?.total ?? 0;
  return total > ROW_COUNT_CAP ? null : total;
};

/**
 * One page of a database's active visible rows matching every filter (AND), sorted by `sorts`
 * then by position, with the total (up to ROW_COUNT_CAP) and the next page's cursor. Served by
 * the row-value index when it can be (row-index.ts), else by reading the rows' JSON. The cursor
 * is checked (lib/cursor.ts) before anything is read.
 */
export async function queryRows(ctx: UserContext, databaseId: string, query: RowQuery): Promise<RowPage> {
  if (query.cursor !== undefined && query.offset > 0) {
    throw badRequest("Give either cursor or offset, not both", { parameters: ["cursor", "offset"] });
  }
  const position = query.cursor
    ? await decodeRowCursor(ctx, databaseId, query.filters, query.sorts, query.cursor)
    : undefined;
  const schema = await loadDatabaseSchema(ctx, databaseId);
  if (indexServes(schema, query.filters, query.sorts)) {
    if (position && "offset" in position) throw cursorRefused("belongs to another query");
    const walk = walkFor(schema, query.sorts[0]);
    const keys =
      position && ("row" in position ? await keysOfRow(ctx, schema, query, walk, position.row) : position.keys);
    if (keys && !keysFit(walk, keys)) throw cursorRefused("is not a cursor this service gave");
    return indexedPage(ctx, schema, query, walk, keys);
  }
  if (position && !("offset" in position)) throw cursorRefused("belongs to another query");
  return jsonPage(ctx, schema, { ...query, offset: position?.offset ?? query.offset });
}

/**
 * The walk keys the row `seq` has now, for a cursor that names its last row (its sort value was
 * too long to carry): one more read before the page. The row is read under the query's own
 * conditions (this database, a row the caller sees, active, matching every filter), so a cursor
 * reveals nothing of a row the query would not return. A row no longer among them (deleted,
 * trashed, moved, edited out of the filters) leaves nothing to continue after: a 400 asking to
 * start again.
 */
async function keysOfRow(
  ctx: UserContext,
  schema: DatabaseSchema,
  query: RowQuery,
  walk: Walk,
  seq: number,
): Promise<KeyValue[]> {
  const rows = rowConditions(ctx, schema, query.filters, indexedValuesFor(walk.rowKey));
  const where = allOf([...(walk.where ? [walk.where] : []), sql`${walk.rowKey} = ${seq}`, rows]);
  const record = await ctx.db.get<Record<string, unknown>>(sql`SELECT ${walk.keyColumns} ${walk.from} WHERE ${where}`);
  if (!record) throw cursorRefused("names a row that is no longer in this query", "start again without a cursor");
  return walk.valuesOf(record);
}

/**
 * The rows of the match index's entries, read from the narrow index of their state
 * (migrations/0013): what a count or a sort of matches checks, without reading the rows.
 */
const rowState = sql.raw("blocks b INDEXED BY blocks_row_state_idx");

/** D1 binds at most this many values per statement. */
const D1_MAX_PARAMETERS = 100;

/**
 * A query whose driving filter matches at most this many rows reads those matches from the match
 * index, sorts them and counts them in the same pass; with more, it walks its order (matches are
 * then dense enough that a page is near: at 100,000 rows, one in fifty or more). Either way a page
 * reads a bounded number of entries: up to this many, or about `limit × rows / this` for the walk.
 * Measured on the bench's 100,000-row database, a sorted read of a match costs about what a
 * walked entry costs, so the two sides cost the same where matches ≈ sqrt(limit × rows): 2,000
 * at 100,000 rows with pages of 50.
 */
export const DRIVEN_MATCHES_MAX = 2_000;

async function indexedPage(
  ctx: UserContext,
  schema: DatabaseSchema,
  query: RowQuery,
  walk: Walk,
  after: KeyValue[] | undefined,
): Promise<RowPage> {
  const rows = rowConditions(ctx, schema, query.filters, indexedValuesFor(walk.rowKey));
  // Bounds bind values too: with many filters (D1 binds at most 100 per statement) the walk goes unbounded.
  const bounds = query.filters.length <= 10 ? sortKeyBounds(schema, query.filters, walk, query.sorts[0]) : [];
  const where = allOf([...(walk.where ? [walk.where] : []), ...bounds, rows]);
  const select = sql`SELECT b.*, ${walk.keyColumns}`;
  const order = walkOrder(walk);
  const fetch = query.limit + 1;
  const segments = after ? segmentsAfter(walk, after) : undefined;
  const afterCursor = segments?.length
    ? sql`(${sql.join(
        segments.map((segment) => sql`(${segment})`),
        sql` OR `,
      )})`
    : undefined;

  // Every side answers the same columns: the row, its walk keys, the total of a side that counted
  // its matches (else NULL), and the cursor segment it came from.
  const walkedSelect = sql`${select}, NULL AS key_total`;
  /** The page by walking the order, at most `limit` rows: one seek, or one per cursor segment. */
  const walked = (limit: SQL): SQL => {
    if (!segments) {
      return sql`${walkedSelect}, 0 AS key_segment ${walk.from} WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${query.offset}`;
    }
    if (segments.length === 0) return sql`${walkedSelect}, 0 AS key_segment ${walk.from} WHERE 0`;
    // One seek per segment, each ordered by its index and limited; the union is ordered by
    // segment and key (at most segments × limit rows to sort, whatever the database's size).
    const parts = segments.map(
      (segment, index) =>
        sql`SELECT * FROM (${walkedSelect}, ${index} AS key_segment ${walk.from} WHERE ${where} AND ${segment}
          ORDER BY ${order} LIMIT ${limit})`,
    );
    const seeks = sql`${sql.join(parts, sql` UNION ALL `)} ORDER BY key_segment, ${walkOutputOrder(walk)} LIMIT ${fetch}`;
    if (parameterCount(seeks) <= D1_MAX_PARAMETERS) return seeks;
    // Too many values to bind once per segment: one condition (a seek on the first key only).
    return sql`${walkedSelect}, 0 AS key_segment ${walk.from} WHERE ${where} AND ${afterCursor} ORDER BY ${order} LIMIT ${limit}`;
  };

  let page = walked(sql`${fetch}`);
  let count = sql`SELECT NULL AS driven, count(*) AS total FROM (SELECT 1 FROM blocks b
    WHERE ${rowConditions(ctx, schema, query.filters, indexedValuesFor(sql`b.seq`))} LIMIT ${ROW_COUNT_CAP + 1})`;
  const driver = drivingFilter(schema, query.filters);
  /** All the driving filter's matches that pass the query, counted (for a page past the last). */
  let everyMatch: SQL | undefined;
  if (driver) {
    // The driving filter's matches, counted (up to one more than DRIVEN_MATCHES_MAX) in `driven`.
    // Each side is limited to 0 rows unless it is the one to read: SQLite skips a select whose
    // LIMIT is 0 before reading anything (a guard in WHERE was evaluated per row: both sides ran).
    const entries = drivingEntries(schema.databaseId, driver);
    // The other filters probed by key; the driving one checked on its entry `m` itself.
    const others = query.filters.filter((_, index) => index !== driver.filterIndex);
    const driving = query.filters[driver.filterIndex] as RowFilter;
    const matchedRows = sql`${rowConditions(ctx, schema, others, indexedValuesFor(sql`m.row_seq`))}
      AND ${filterCondition(schema, driving, driver.filterIndex, "filters", drivingEntryValues)}`;
    everyMatch = sql`SELECT count(*) AS total FROM row_values m CROSS JOIN ${rowState} ON b.seq = m.row_seq
      WHERE ${entries} AND ${matchedRows}`;
    const driven = sql`WITH driven(matches) AS (
      SELECT count(*) FROM (SELECT 1 FROM row_values m WHERE ${entries} LIMIT ${DRIVEN_MATCHES_MAX + 1}))`;
    const few = sql`(SELECT matches <= ${DRIVEN_MATCHES_MAX} FROM driven)`;
    const onlyIfFew = (limit: SQL | number) => sql`(SELECT CASE WHEN ${few} THEN ${limit} ELSE 0 END)`;
    const onlyIfMany = (limit: SQL | number) => sql`(SELECT CASE WHEN ${few} THEN 0 ELSE ${limit} END)`;
    // Few: every match's sort keys and their count (narrow records, one pass), then the cursor,
    // the order and the page; the page's rows are read by key.
    const aliased: Walk = { ...walk, keys: walk.keys.map((key) => ({ ...key, expression: sql.raw(key.alias) })) };
    const aliasedSegments = after ? segmentsAfter(aliased, after) : [];
    const allMatches = sql`SELECT ${walk.keyColumns}, count(*) OVER () AS key_total
      FROM row_values m CROSS JOIN ${rowState} ON b.seq = m.row_seq ${walk.entryJoin}
      WHERE ${entries} AND ${allOf([...(walk.where ? [walk.where] : []), ...bounds, matchedRows])}
      LIMIT ${onlyIfFew(-1)}`;
    const afterAliased = after
      ? sql`WHERE ${
          aliasedSegments.length
            ? sql.join(
                aliasedSegments.map((segment) => sql`(${segment})`),
                sql` OR `,
              )
            : sql`0`
        }`
      : sql``;
    const keys = sql`SELECT * FROM (${allMatches}) ${afterAliased}
      ORDER BY ${walkOutputOrder(walk)} LIMIT ${onlyIfFew(fetch)} OFFSET ${query.offset}`;
    const fromMatches = sql`SELECT b.*, k.*, 0 AS key_segment FROM (${keys}) k CROSS JOIN blocks b ON b.seq = k.key_seq`;
    const hybrid = sql`${driven} SELECT * FROM (${fromMatches}) UNION ALL SELECT * FROM (${walked(onlyIfMany(fetch))})
      ORDER BY key_segment, ${walkOutputOrder(walk)} LIMIT ${fetch}`;
    if (parameterCount(hybrid) <= D1_MAX_PARAMETERS) {
      page = hybrid;
      // Counted by the page when matches are few; else the driving filter's matches, checked.
      count = sql`${driven} SELECT (SELECT matches FROM driven) AS driven, count(*) AS total FROM (
        SELECT 1 FROM row_values m CROSS JOIN ${rowState} ON b.seq = m.row_seq
        WHERE ${entries} AND ${matchedRows} LIMIT ${onlyIfMany(ROW_COUNT_CAP + 1)})`;
    } else {
      count = sql`SELECT NULL AS driven, count(*) AS total FROM (SELECT 1 FROM row_values m CROSS JOIN ${rowState} ON b.seq = m.row_seq
        WHERE ${entries} AND ${matchedRows} LIMIT ${ROW_COUNT_CAP + 1})`;
    }
  }
  const [records, counts] = await batchAll<
    [BlockRecord & Record<string, unknown>, { driven: number | null; total: number }]
  >(ctx.db, [page, count]);
  const counted = counts[0];
  let total = counted?.total ?? 0;
  if (counted?.driven !== null && counted?.driven !== undefined && counted.driven <= DRIVEN_MATCHES_MAX) {
    const fromPage = records[0]?.key_total;
    // A page past the last match has no row to carry the total: counted on its own (rare).
    total =
      typeof fromPage === "number"
        ? fromPage
        : query.offset > 0 || after
          ? ((await ctx.db.get<{ total: number }>(everyMatch as SQL))?.total ?? 0)
          : 0;
  }
  const items = records.slice(0, query.limit);
  const hasMore = records.length > query.limit;
  const last = items.at(-1);
  return {
    items: items.map((record) => presentRow(schema, record)),
    total: total > ROW_COUNT_CAP ? null : total,
    hasMore,
    nextCursor:
      hasMore && last
        ? await encodeRowCursor(ctx, schema.databaseId, query.filters, query.sorts, { keys: walk.valuesOf(last) })
        : null,
  };
}

/** A query the index cannot serve (an older inline schema, several sorts): the rows' JSON, by offset. */
async function jsonPage(ctx: UserContext, schema: DatabaseSchema, query: RowQuery): Promise<RowPage> {
  const order = sql.join(
    [
      ...query.sorts.map((sort, index) => sortExpression(schema, sort, index)),
      sql`b.position ASC NULLS LAST`,
      sql`b.seq`,
    ],
    sql`, `,
  );
  const rows = rowConditions(ctx, schema, query.filters);
  const [records, counts] = await batchAll<[BlockRecord, { total: number }]>(ctx.db, [
    sql`SELECT b.* FROM blocks b WHERE ${rows} ORDER BY ${order} LIMIT ${query.limit + 1} OFFSET ${query.offset}`,
    cappedRowCount(rows),
  ]);
  const hasMore = records.length > query.limit;
  return {
    items: records.slice(0, query.limit).map((record) => presentRow(schema, record)),
    total: totalOf(counts),
    hasMore,
    nextCursor: hasMore
      ? await encodeRowCursor(ctx, schema.databaseId, query.filters, query.sorts, {
          offset: query.offset + query.limit,
        })
      : null,
  };
}

/** Rows one read of `allRows` fetches. */
const ROWS_PER_READ = 2_000;

/**
 * Every active visible row of a database in its default order (by position,
 * unpositioned rows last, then by creation), at most `max`, read a chunk at a
 * time by keyset (never by offset, so each read costs the same), for exports
 * that stream however many rows there are.
 */
export async function* allRows(ctx: UserContext, schema: DatabaseSchema, max: number): AsyncGenerator<Row[]> {
  const rows = rowConditions(ctx, schema, []);
  let left = max;
  // Positioned rows first, by (position, seq); the index on (database_id, position) serves it.
  let after: { position: number; seq: number } | null = null;
  while (left > 0) {
    const records: BlockRecord[] = await ctx.db.all(sql`
      SELECT b.* FROM blocks b WHERE ${rows} AND b.position IS NOT NULL
        ${after ? sql`AND (b.position > ${after.position} OR (b.position = ${after.position} AND b.seq > ${after.seq}))` : sql``}
      ORDER BY b.position, b.seq LIMIT ${Math.min(ROWS_PER_READ, left)}`);
    if (records.length > 0) yield records.map((record) => presentRow(schema, record));
    left -= records.length;
    const last = records.at(-1);
    if (records.length < ROWS_PER_READ || !last || last.position === null) break;
    after = { position: last.position, seq: last.seq };
  }
  // Then unpositioned rows, by seq.
  let afterSeq = 0;
  while (left > 0) {
    const records: BlockRecord[] = await ctx.db.all(sql`
      SELECT b.* FROM blocks b WHERE ${rows} AND b.position IS NULL AND b.seq > ${afterSeq}
      ORDER BY b.seq LIMIT ${Math.min(ROWS_PER_READ, left)}`);
    if (records.length > 0) yield records.map((record) => presentRow(schema, record));
    left -= records.length;
    const last = records.at(-1);
    if (records.length < ROWS_PER_READ || !last) return;
    afterSeq = last.seq;
  }
}

/** How many active visible rows the database has, counting no further than `cap`. */
export async function countRows(ctx: UserContext, schema: DatabaseSchema, cap: number): Promise<number> {
  const row = await ctx.db.get<{ total: number }>(
    sql`SELECT count(*) AS total FROM (SELECT 1 FROM blocks b WHERE ${rowConditions(ctx, schema, [])} LIMIT ${cap})`,
  );
  return row?.total ?? 0;
}
