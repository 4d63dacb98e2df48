// The filter language (operators per type, the value each takes, the condition it makes) in one
// place, read through a ValueSource, so every plan keeps exactly the same rows.
import { type SQL, sql } from "drizzle-orm";
import type { UserContext } from "../../../lib/context";
import { badRequest } from "../../../lib/errors";
import type { FilterOperator, RowFilter } from "../../../schemas/databases";
import { isActive, visibleTo } from "../../blocks/visibility";
import { IsoDateOrDateTime } from "../date-value";
import { type DatabaseSchema, isComputedType, type PropertyDefinition } from "../property-types";
import { resolvePropertyKey } from "../row-values";
import { jsonValues, type ValueSource } from "./value-sources";

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

/** The property a filter or sort at `at` (`filters[2]`) names, or a 400 listing the properties. */
export function namedProperty(
  schema: DatabaseSchema,
  key: string,
  what: "Filter" | "Sort",
  at: string,
): PropertyDefinition {
  const property = resolvePropertyKey(schema, key);
  if (!property) {
    throw badRequest(`${what} names an unknown property`, {
      path: `${at}.property`,
      property: key,
      allowed: schema.properties.map((p) => p.name),
    });
  }
  return property;
}

/** The id of the option a filter names (by id or name), or a 400 listing the options. */
export function optionId(property: PropertyDefinition, value: unknown): string {
  const wanted =
    typeof value === "string"
      ? value
      : value && typeof value === "object"
        ? ((value as { id?: string; name?: string }).id ?? (value as { name?: string }).name)
        : undefined;
  const details = { property: property.id, allowed: property.options.map((candidate) => candidate.name) };
  if (typeof wanted !== "string") {
    throw badRequest(`Expected an option name or id of property '${property.name}'`, details);
  }
  const option = property.options.find((candidate) => candidate.id === wanted || candidate.name === wanted);
  if (!option) throw badRequest(`'${wanted}' is not an option of property '${property.name}'`, details);
  return option.id;
}

/** A filter being made a condition: its property, where it sits in the request, and how its value is read. */
interface Operand {
  filter: RowFilter;
  property: PropertyDefinition;
  /** The filter's place in the request (`filters[2]`), for the paths of 400s. */
  at: string;
  source: ValueSource;
  /** The value compared (`source.value`). */
  value: SQL;
  /** Makes a condition on `value` a condition on the row. */
  about(condition: SQL): SQL;
}

/** The filter's value when `check` accepts it, else a 400 naming the value's path. */
function filterValue<T>({ filter, property, at }: Operand, check: (value: unknown) => value is T, expected: string): T {
  if (!check(filter.value)) {
    throw badRequest(`Filter value must be ${expected}`, { path: `${at}.value`, property: property.name });
  }
  return filter.value;
}

/** `is_empty` / `is_not_empty`: no value, or an empty one (a multi-select with no option). */
function emptinessCondition({ filter, property, source, value, about }: Operand): SQL {
  const empty =
    property.type === "multi_select" ? source.multiEmpty(property) : about(sql`(${value} IS NULL OR ${value} = '')`);
  return filter.operator === "is_empty" ? empty : sql`NOT ${empty}`;
}

/** A select or status equal (or not) to one option, by its exact id. */
function optionCondition({ filter, property, value, about }: Operand): SQL {
  const id = optionId(property, filter.value);
  return about(filter.operator === "equals" ? sql`${value} = ${id}` : sql`${value} IS NOT ${id}`);
}

/** A multi-select holding (or not) one option: exact canonical ids only, never substrings; older rows may hold bare names (legacy option ids). */
function multiSelectCondition({ filter, property, source }: Operand): SQL {
  const contains = source.multiContains(property, optionId(property, filter.value));
  return filter.operator === "contains" ? contains : sql`NOT ${contains}`;
}

function checkboxCondition(operand: Operand): SQL {
  const wanted = filterValue(operand, (v): v is boolean => typeof v === "boolean", "true or false");
  const { value, about } = operand;
  return about(wanted ? sql`${value} = 1` : sql`coalesce(${value}, 0) = 0`);
}

const NUMBER_COMPARISONS = { equals: "=", not_equals: "IS NOT", greater_than: ">", less_than: "<" } as const;

function numberCondition(operand: Operand): SQL {
  const wanted = filterValue(operand, (v): v is number => typeof v === "number" && Number.isFinite(v), "a number");
  // not_equals keeps rows without a value, as it does for every other type.
  const op = NUMBER_COMPARISONS[operand.filter.operator as keyof typeof NUMBER_COMPARISONS];
  return operand.about(sql`${operand.value} ${sql.raw(op)} ${wanted}`);
}

const DATE_COMPARISONS = { before: "<", after: ">", on_or_before: "<=", on_or_after: ">=" } as const;

/** Dates and the computed times: a date-only bound compares calendar days as written, a date-time bound instants. */
function dateCondition(operand: Operand): SQL {
  const wanted = filterValue(
    operand,
    (v): v is string => IsoDateOrDateTime.safeParse(v).success,
    "an ISO date or date-time",
  );
  const { filter, value, about } = operand;
  // julianday normalises offsets, so +02:00 and Z values order correctly.
  const day = wanted.slice(0, 10);
  // Only text is a date: a number left in a date property by a retype matches no bound
  // (julianday would read it as a Julian day number), in the JSON as in the index.
  const text = sql`(CASE WHEN typeof(${value}) = 'text' THEN ${value} END)`;
  const dayOf = sql`substr(${text}, 1, 10)`;
  if (filter.operator === "equals") return about(sql`${dayOf} = ${day}`);
  const op = sql.raw(DATE_COMPARISONS[filter.operator as keyof typeof DATE_COMPARISONS] ?? ">=");
  return about(wanted.length === 10 ? sql`${dayOf} ${op} ${day}` : sql`julianday(${text}) ${op} julianday(${wanted})`);
}

/** Text-like values and the computed persons: exact (case included), or a substring ignoring ASCII case. */
function textCondition(operand: Operand): SQL {
  const wanted = filterValue(operand, (v): v is string => typeof v === "string", "a string");
  const { filter, value, about } = operand;
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

/**
 * The condition a filter makes on row `b`, reading stored values through `source` (computed
 * properties read the row's columns whatever the source: the index holds no entries for them), or a
 * 400 at `location[index]` naming what is wrong: the property, the operator for its type, the value.
 */
export function filterCondition(
  schema: DatabaseSchema,
  filter: RowFilter,
  index: number,
  location = "filters",
  source: ValueSource = jsonValues,
): SQL {
  const at = `${location}[${index}]`;
  const property = namedProperty(schema, filter.property, "Filter", at);
  const allowed = OPERATORS_BY_TYPE[property.type] ?? [];
  if (!allowed.includes(filter.operator)) {
    throw badRequest(`Operator '${filter.operator}' does not apply to ${property.type} properties`, {
      path: `${at}.operator`,
      allowed,
    });
  }
  const from = readsItsRow(property) ? jsonValues : source;
  const operand: Operand = {
    filter,
    property,
    at,
    source: from,
    value: from.value(property),
    about: (condition) => from.wrap(property, condition),
  };
  if (filter.operator === "is_empty" || filter.operator === "is_not_empty") return emptinessCondition(operand);
  switch (property.type) {
    case "select":
    case "status":
      return optionCondition(operand);
    case "multi_select":
      return multiSelectCondition(operand);
    case "checkbox":
      return checkboxCondition(operand);
    case "number":
      return numberCondition(operand);
    case "date":
    case "created_time":
    case "last_edited_time":
      return dateCondition(operand);
    default:
      return textCondition(operand);
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

/** The WHERE clause of a row query: the database's active visible rows matching every filter (AND). */
export function rowConditions(
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
    ...filterConditions(schema, filters, source),
  ]);
}

/**
 * Whether a filter on `property` reads its row `b` whatever source it is given: a computed property's
 * value is a column of the row, not an entry of the index.
 */
const readsItsRow = (property: PropertyDefinition): boolean => isComputedType(property.type);

/** Whether any of `filters` reads its row `b` (see readsItsRow); an unknown property reads nothing. */
export function filtersReadTheRow(schema: DatabaseSchema, filters: readonly RowFilter[]): boolean {
  return filters.some((filter) => {
    const property = resolvePropertyKey(schema, filter.property);
    return property !== undefined && readsItsRow(property);
  });
}

/** Each filter's condition, reading values through `source`: what rowConditions adds to the row's own state. */
export const filterConditions = (schema: DatabaseSchema, filters: RowFilter[], source: ValueSource): SQL[] =>
  filters.map((filter, index) => filterCondition(schema, filter, index, "filters", source));

/** Conditions per parenthesised group in `allOf`. */
const GROUP = 8;

/**
 * The conjunction of `conditions`, parenthesised in groups: SQLite parses a chain of ANDs as a
 * tree as deep as the chain, and D1 refuses expressions deeper than 100 ("Expression tree is too
 * large"), which 50 filters with a walk's own conditions reached.
 */
export function allOf(conditions: SQL[]): SQL {
  if (conditions.length <= GROUP) return sql.join(conditions, sql` AND `);
  const groups: SQL[] = [];
  for (let i = 0; i < conditions.length; i += GROUP) {
    groups.push(sql`(${sql.join(conditions.slice(i, i + GROUP), sql` AND `)})`);
  }
  return allOf(groups);
}
