// The driving filter is the one the match index can list that likely keeps fewest rows: the index
// plan counts its matches and, when they are few, sorts them instead of walking (indexed-page.ts).
import { type SQL, sql } from "drizzle-orm";
import type { RowFilter } from "../../../schemas/databases";
import { propertyIdSql } from "../property-path";
import { type DatabaseSchema, INDEXED_TYPES, type PropertyDefinition } from "../property-types";
import { resolvePropertyKey } from "../row-values";
import { optionId } from "./filters";

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

/**
 * Up to this many matches the page sorts them; beyond it (up to DRIVEN_MATCHES_MAX) it walks its
 * order keeping the rows among the matches, whose seqs it reads once from the match index: a walked
 * entry then costs a check in memory, where a sorted match costs a lookup of its sort entry by key.
 * Measured on the bench's 100,000-row database (a busy machine, so as ratios): a walk of 5,000
 * entries against 1,009 matches took 1.4 ms where sorting them took 15; the walk reads about
 * `limit × rows / matches` entries, so it stays the cheaper side down to about 500 matches there.
 * At 1,000 rows every query sorts; at a million rows the walk near this bound reads 100,000 entries.
 */
export const DRIVEN_SORT_MAX = 500;

/**
 * A filter whose matches the match index lists directly (row_values_match_idx: database,
 * property, match): `condition` on the entries `m` is sargable and holds for every row the
 * filter keeps (the filter itself is still applied). A query with one reads its matches from
 * there when they are few, and counts from there: see indexed-page.ts.
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
 * Numbers sort before all text and match no date filter (filters.ts).
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
