import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import { listingQueries, type Page, type PageWindow, readPage } from "../../lib/pagination";
import type { FilterOperator, Row, RowFilter, RowSort } from "../../schemas/databases";
import type { BlockRecord } from "../blocks/record";
import { isActive, visibleTo } from "../blocks/visibility";
import { IsoDateOrDateTime } from "./date-value";
import { propertyPathSql } from "./property-path";
import type { DatabaseSchema, PropertyDefinition, PropertyType } from "./property-types";
import { resolvePropertyKey } from "./row-values";
import { presentRow } from "./rows";

export type { RowFilter, RowSort };

const OPERATORS_BY_TYPE: Record<string, readonly FilterOperator[]> = {
  select: ["equals", "not_equals", "is_empty", "is_not_empty"],
  status: ["equals", "not_equals", "is_empty", "is_not_empty"],
  multi_select: ["contains", "not_contains", "is_empty", "is_not_empty"],
  date: ["equals", "before", "after", "on_or_before", "on_or_after", "is_empty", "is_not_empty"],
  created_time: ["before", "after", "on_or_before", "on_or_after"],
  last_edited_time: ["before", "after", "on_or_before", "on_or_after"],
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
  const path = propertyPathSql(property.id);
  const computed: Partial<Record<PropertyType, SQL>> = {
    created_time: sql`b.created_at`,
    last_edited_time: sql`b.updated_at`,
    created_by: sql`b.created_by`,
    last_edited_by: sql`b.last_edited_by`,
  };
  const direct = computed[property.type];
  if (direct) return direct;
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

function optionId(property: PropertyDefinition, value: unknown): string {
  const wanted =
    typeof value === "string"
      ? value
      : value && typeof value === "object"
        ? ((value as { id?: string; name?: string }).id ?? (value as { name?: string }).name)
        : undefined;
  const option = property.options.find((candidate) => candidate.id === wanted || candidate.name === wanted);
  if (!option) {
    throw badRequest(`'${String(wanted)}' is not an option of property '${property.name}'`, {
      property: property.id,
      allowed: property.options.map((candidate) => candidate.name),
    });
  }
  return option.id;
}

function filterCondition(schema: DatabaseSchema, filter: RowFilter, index: number, location = "filters"): SQL {
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
  const value = valueExpression(property);
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
  const path = propertyPathSql(property.id);

  if (filter.operator === "is_empty" || filter.operator === "is_not_empty") {
    const empty =
      property.type === "multi_select"
        ? sql`coalesce(json_array_length(b.properties, ${path}), 0) = 0`
        : sql`(${value} IS NULL OR ${value} = '')`;
    return filter.operator === "is_empty" ? empty : sql`NOT ${empty}`;
  }
  switch (property.type) {
    case "select":
    case "status": {
      const id = optionId(property, filter.value);
      return filter.operator === "equals" ? sql`${value} = ${id}` : sql`${value} IS NOT ${id}`;
    }
    case "multi_select": {
      // Exact canonical option ids only, never substrings.
      const id = optionId(property, filter.value);
      // Stored options are {id, name, color}; older rows may hold bare names (legacy option ids).
      const contains = sql`EXISTS (SELECT 1 FROM json_each(b.properties, ${path}) e
        WHERE CASE e.type WHEN 'object' THEN e.value ->> '$.id' WHEN 'text' THEN e.value END = ${id})`;
      return filter.operator === "contains" ? contains : sql`NOT ${contains}`;
    }
    case "checkbox": {
      const wanted = needs((v) => typeof v === "boolean", "true or false");
      return wanted ? sql`${value} = 1` : sql`coalesce(${value}, 0) = 0`;
    }
    case "number": {
      const wanted = needs((v) => typeof v === "number" && Number.isFinite(v), "a number") as number;
      const op = { equals: "=", not_equals: "<>", greater_than: ">", less_than: "<" }[
        filter.operator as "equals" | "not_equals" | "greater_than" | "less_than"
      ];
      return sql`${value} ${sql.raw(op)} ${wanted}`;
    }
    case "date":
    case "created_time":
    case "last_edited_time": {
      const wanted = needs((v) => IsoDateOrDateTime.safeParse(v).success, "an ISO date or date-time") as string;
      // A date-only bound compares calendar days as written; a date-time bound compares
      // instants (julianday normalises offsets, so +02:00 and Z values order correctly).
      const day = wanted.slice(0, 10);
      const dayOf = sql`substr(${value}, 1, 10)`;
      const instant = sql`julianday(${value})`;
      const dateOnly = wanted.length === 10;
      const compare = (op: string) =>
        dateOnly ? sql`${dayOf} ${sql.raw(op)} ${day}` : sql`${instant} ${sql.raw(op)} julianday(${wanted})`;
      switch (filter.operator) {
        case "equals":
          return sql`${dayOf} = ${day}`;
        case "before":
          return compare("<");
        case "after":
          return compare(">");
        case "on_or_before":
          return compare("<=");
        default:
          return compare(">=");
      }
    }
    default: {
      const wanted = needs(isString, "a string") as string;
      switch (filter.operator) {
        case "equals":
          return sql`${value} = ${wanted}`;
        case "not_equals":
          return sql`${value} IS NOT ${wanted}`;
        case "contains":
          return sql`instr(lower(${value}), lower(${wanted})) > 0`;
        default:
          return sql`coalesce(instr(lower(${value}), lower(${wanted})), 0) = 0`;
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
}

/** The WHERE clause of a row query: the database's active visible rows matching every filter (AND). */
function rowConditions(ctx: UserContext, schema: DatabaseSchema, filters: RowFilter[]): SQL {
  return sql.join(
    [
      sql`b.database_id = ${schema.databaseId}`,
      sql`b.type = 'database_row'`,
      visibleTo(ctx.actor),
      isActive(),
      ...filters.map((filter, index) => filterCondition(schema, filter, index)),
    ],
    sql` AND `,
  );
}

/** One page of a database's active visible rows matching every filter (AND), with the total. */
export async function queryRows(ctx: UserContext, schema: DatabaseSchema, query: RowQuery): Promise<Page<Row>> {
  const order = sql.join(
    [
      ...query.sorts.map((sort, index) => sortExpression(schema, sort, index)),
      sql`b.position ASC NULLS LAST`,
      sql`b.seq`,
    ],
    sql`, `,
  );
  const from = sql`FROM blocks b WHERE ${rowConditions(ctx, schema, query.filters)}`;
  const [records, counts] = await batchAll<[BlockRecord, { total: number }]>(
    ctx.db,
    listingQueries(sql`SELECT b.*`, from, order, query),
  );
  return readPage(records, counts, query, (record) => presentRow(schema, record));
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
