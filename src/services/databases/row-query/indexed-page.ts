// The index plan: a page and its count in one batch; with a driving filter the page statement holds
// both the walk and the sort of its matches, and the count of matches picks one inside SQLite.
import { type SQL, sql } from "drizzle-orm";
import { batchAll, parameterCount } from "../../../db/batch";
import type { UserContext } from "../../../lib/context";
import { cursorRefused, type KeyValue } from "../../../lib/cursor";
import type { RowFilter } from "../../../schemas/databases";
import type { BlockRecord } from "../../blocks/presenter";
import { entryVisibleTo } from "../../blocks/visibility";
import type { DatabaseSchema } from "../property-types";
import {
  DRIVEN_MATCHES_MAX,
  DRIVEN_SORT_MAX,
  type DrivingFilter,
  drivingEntries,
  drivingFilter,
} from "./driving-filter";
import { allOf, filterCondition, filterConditions, filtersReadTheRow, rowConditions } from "./filters";
import { ROW_COUNT_CAP, type RowPage, type RowQuery, rowPage } from "./page";
import { drivingEntryValues, indexedValuesFor } from "./value-sources";
import { segmentsAfter, sortKeyBounds, type Walk, walkOrder, walkOutputOrder } from "./walk";

/** D1 binds at most this many values per statement. */
const D1_MAX_PARAMETERS = 100;

/**
 * The driving filter's entries `m` joined to their rows, through the narrow index of their state
 * (migrations/0013, named: the planner prefers the rowid lookup into the much wider row): only for
 * what reads the row (a filter on a computed property, the default order's keys). The entries carry
 * the rest of what a match is checked for (migrations/0024).
 */
const MATCHED_ROWS = sql`row_values m CROSS JOIN ${sql.raw("blocks b INDEXED BY blocks_row_state_idx")} ON b.seq = m.row_seq`;

/** The walk's own access path, as conditions beside the others. */
const walkWhere = (walk: Walk): SQL[] => (walk.where ? [walk.where] : []);

/** Segments of a cursor as one condition (any of them). */
const anyOf = (segments: SQL[]): SQL =>
  sql.join(
    segments.map((segment) => sql`(${segment})`),
    sql` OR `,
  );

/**
 * The walk keys the row `seq` has now, for a cursor that names its last row (its sort value was
 * too long to carry): one more read before the page. The row is read under the query's own
 * conditions (this database, a row the caller sees, active, matching every filter), so a cursor
 * reveals nothing of a row the query would not return. A row no longer among them (deleted,
 * trashed, moved, edited out of the filters) leaves nothing to continue after: a 400 asking to
 * start again.
 */
export async function keysOfRow(
  ctx: UserContext,
  schema: DatabaseSchema,
  query: RowQuery,
  walk: Walk,
  seq: number,
): Promise<KeyValue[]> {
  const rows = rowConditions(ctx, schema, query.filters, indexedValuesFor(walk.rowKey));
  const where = allOf([...walkWhere(walk), sql`${walk.rowKey} = ${seq}`, rows]);
  const record = await ctx.db.get<Record<string, unknown>>(sql`SELECT ${walk.keyColumns} ${walk.from} WHERE ${where}`);
  if (!record) throw cursorRefused("names a row that is no longer in this query", "start again without a cursor");
  return walk.valuesOf(record);
}

/** A query the index serves, with what the statements of its page share. */
interface IndexedQuery {
  ctx: UserContext;
  schema: DatabaseSchema;
  query: RowQuery;
  walk: Walk;
  /** The cursor's walk keys: the page is the rows after them. */
  after: KeyValue[] | undefined;
  /** Bounds on the walk's sort key that the filters imply (sortKeyBounds). */
  bounds: SQL[];
  /** The walked rows' conditions: the walk's access path, the bounds, and the row conditions probed by key. */
  where: SQL;
  /** Rows a page reads: one past the limit, to know whether more follow. */
  fetch: number;
}

/** The statements of one page. */
interface PageStatements {
  /** The rows, each with its walk keys, `key_total` and `key_segment`. */
  page: SQL;
  /** One record: `driving_matches` (the driving filter's matches, up to one past DRIVEN_MATCHES_MAX; NULL when not counted) and `total`. */
  count: SQL;
  /** Every match that passes the query, counted: for a page past the last of the sorted matches. */
  everyMatch?: SQL;
}

type PageRecord = BlockRecord & Record<string, unknown>;
type PageCount = { driving_matches: number | null; total: number };

/**
 * One page of a query the index serves, after the cursor's keys `after` when given: the page and
 * its count in one batch, then the page with its total and the cursor of the next one.
 */
export async function indexedPage(
  ctx: UserContext,
  schema: DatabaseSchema,
  query: RowQuery,
  walk: Walk,
  after: KeyValue[] | undefined,
): Promise<RowPage> {
  const rows = rowConditions(ctx, schema, query.filters, indexedValuesFor(walk.rowKey));
  // Bounds bind values too: with many filters (D1 binds at most 100 per statement) the walk goes unbounded.
  const bounds = query.filters.length <= 10 ? sortKeyBounds(schema, query.filters, walk, query.sorts[0]) : [];
  const where = allOf([...walkWhere(walk), ...bounds, rows]);
  const indexed: IndexedQuery = { ctx, schema, query, walk, after, bounds, where, fetch: query.limit + 1 };
  const driver = drivingFilter(schema, query.filters);
  const statements = driver ? drivenStatements(indexed, driver) : walkStatements(indexed);
  const [records, counts] = await batchAll<[PageRecord, PageCount]>(ctx.db, [statements.page, statements.count]);
  const total = await pageTotal(indexed, statements, records, counts[0]);
  return rowPage(ctx, schema, query, records, total, (last) => ({ keys: walk.valuesOf(last) }));
}

/**
 * The page by walking the order, at most `limit` rows: from the start (skipping `offset`), or after
 * the cursor as one seek per segment, each ordered by its index and limited, their union ordered by
 * segment and key (at most segments × limit rows to sort, whatever the database's size). Every way
 * answers the same columns: the row, its walk keys, `key_total` (NULL: a walk counts nothing) and
 * `key_segment`, the cursor segment the row came from.
 */
function walkStatement({ walk, query, after, where, fetch }: IndexedQuery, limit: SQL): SQL {
  const select = sql`SELECT b.*, ${walk.keyColumns}, NULL AS key_total`;
  const order = walkOrder(walk);
  if (!after) {
    return sql`${select}, 0 AS key_segment ${walk.from} WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${query.offset}`;
  }
  const segments = segmentsAfter(walk, after);
  if (segments.length === 0) return sql`${select}, 0 AS key_segment ${walk.from} WHERE 0`;
  const seeks = segments.map(
    (segment, index) =>
      sql`SELECT * FROM (${select}, ${index} AS key_segment ${walk.from} WHERE ${where} AND ${segment}
          ORDER BY ${order} LIMIT ${limit})`,
  );
  const union = sql`${sql.join(seeks, sql` UNION ALL `)} ORDER BY key_segment, ${walkOutputOrder(walk)} LIMIT ${fetch}`;
  if (parameterCount(union) <= D1_MAX_PARAMETERS) return union;
  // Too many values to bind once per segment: one condition (a seek on the first key only).
  return sql`${select}, 0 AS key_segment ${walk.from} WHERE ${where} AND (${anyOf(segments)}) ORDER BY ${order} LIMIT ${limit}`;
}

/** A query with no driving filter: the walk, and a count that probes each row's entries. */
function walkStatements(indexed: IndexedQuery): PageStatements {
  const { ctx, schema, query, fetch } = indexed;
  return {
    page: walkStatement(indexed, sql`${fetch}`),
    count: sql`SELECT NULL AS driving_matches, count(*) AS total FROM (SELECT 1 FROM blocks b
    WHERE ${rowConditions(ctx, schema, query.filters, indexedValuesFor(sql`b.seq`))} LIMIT ${ROW_COUNT_CAP + 1})`,
  };
}

/** The driving filter's matches: its entries `m`, and what a match's row must pass besides. */
interface DrivingMatches {
  /** The driving filter's entries of active rows the caller sees: the match index alone answers them (migrations/0024). */
  entries: SQL;
  /** The driving filter checked on its entry `m` itself. */
  driving: SQL;
  /** The other filters, probed by key. */
  others: RowFilter[];
  /** The other filters' conditions and the driving one's, on the entry's row `m.row_seq`. */
  passing: SQL;
  /** Whether `passing` reads the row `b` itself (a filter on a computed property). */
  readsRow: boolean;
}

function drivingMatches({ ctx, schema, query }: IndexedQuery, driver: DrivingFilter): DrivingMatches {
  const entries = sql`${drivingEntries(schema.databaseId, driver)} AND ${entryVisibleTo(ctx.actor, "m")}`;
  const others = query.filters.filter((_, index) => index !== driver.filterIndex);
  const drivingOne = query.filters[driver.filterIndex] as RowFilter;
  const driving = filterCondition(schema, drivingOne, driver.filterIndex, "filters", drivingEntryValues);
  const passing = allOf([...filterConditions(schema, others, indexedValuesFor(sql`m.row_seq`)), driving]);
  return { entries, driving, others, passing, readsRow: filtersReadTheRow(schema, others) };
}

/**
 * Where matches are read: their entries alone, or joined to their rows' state (narrow, named:
 * migrations/0013) when a condition or a walk key reads the row.
 */
const matchesFrom = (readsRow: boolean): SQL => (readsRow ? MATCHED_ROWS : sql`row_values m`);

/** The driving filter's matches counted in the match index, up to one past DRIVEN_MATCHES_MAX: a CTE. */
const countDrivingMatches = ({ entries }: DrivingMatches): SQL => sql`WITH driving_matches(matches) AS (
      SELECT count(*) FROM (SELECT 1 FROM row_values m WHERE ${entries} LIMIT ${DRIVEN_MATCHES_MAX + 1}))`;

/** How the page reads, by the count of the driving filter's matches (the CTE). */
const PLAN_WHEN = {
  /** Few: sort them. */
  sorting: sql`matches <= ${DRIVEN_SORT_MAX}`,
  /** Some: walk the order, keeping the rows among them. */
  walkingAgainstMatches: sql`matches > ${DRIVEN_SORT_MAX} AND matches <= ${DRIVEN_MATCHES_MAX}`,
  /** Many: walk the order, probing each row's entry. */
  probing: sql`matches > ${DRIVEN_MATCHES_MAX}`,
  /** Either walk: the count reads the matches on its own. */
  walking: sql`matches > ${DRIVEN_SORT_MAX}`,
} as const;

/** A LIMIT that is `limit` when `plan` holds, else 0 (SQLite then reads nothing of that select). */
const limitWhen = (plan: SQL, limit: SQL | number): SQL =>
  sql`(SELECT CASE WHEN (SELECT ${plan} FROM driving_matches) THEN ${limit} ELSE 0 END)`;

/** The matching rows, up to `limit`: what the counts count. */
const matchesUpTo = ({ entries, passing, readsRow }: DrivingMatches, limit: SQL | number): SQL =>
  sql`SELECT 1 FROM ${matchesFrom(readsRow)} WHERE ${entries} AND ${passing} LIMIT ${limit}`;

/**
 * The walk that keeps only rows among the driving filter's matches: their seqs, read from the match
 * index once (SQLite keeps them in a temporary index with a Bloom filter), are what each walked entry
 * is checked against, instead of a probe by key into the entries; the other filters are probed.
 * The unary `+` keeps SQLite from reading the walk through that list (it would sort the matches).
 */
function walkAgainstMatches(indexed: IndexedQuery, matches: DrivingMatches): IndexedQuery {
  const { ctx, schema, walk, bounds } = indexed;
  const rows = rowConditions(ctx, schema, matches.others, indexedValuesFor(walk.rowKey));
  const among = sql`+${walk.rowKey} IN (SELECT m.row_seq FROM row_values m WHERE ${matches.entries} AND ${matches.driving})`;
  return { ...indexed, where: allOf([...walkWhere(walk), ...bounds, rows, among]) };
}

/**
 * A query with a driving filter. Its matches are counted in the match index; with at most
 * DRIVEN_SORT_MAX the page sorts them (`sortedMatchesPage`) and counts them in the same pass; with
 * at most DRIVEN_MATCHES_MAX it walks the order against them (`walkAgainstMatches`); with more it
 * walks probing each row's entries. A walk's count reads the driving filter's matches. The ways sit
 * in one statement, each limited to 0 rows unless it is the one to read: SQLite skips a select
 * whose LIMIT is 0 before reading anything (a guard in WHERE was evaluated per row: all ran).
 */
function drivenStatements(indexed: IndexedQuery, driver: DrivingFilter): PageStatements {
  const matches = drivingMatches(indexed, driver);
  const everyMatch = sql`SELECT count(*) AS total FROM ${matchesFrom(matches.readsRow)}
      WHERE ${matches.entries} AND ${matches.passing}`;
  const counted = countDrivingMatches(matches);
  const { fetch, walk } = indexed;
  const ways = (selects: SQL[]) =>
    sql`${counted} ${sql.join(
      selects.map((select) => sql`SELECT * FROM (${select})`),
      sql` UNION ALL `,
    )} ORDER BY key_segment, ${walkOutputOrder(walk)} LIMIT ${fetch}`;
  const sorted = sortedMatchesPage(indexed, matches);
  const allWays = ways([
    sorted,
    walkStatement(walkAgainstMatches(indexed, matches), limitWhen(PLAN_WHEN.walkingAgainstMatches, fetch)),
    walkStatement(indexed, limitWhen(PLAN_WHEN.probing, fetch)),
  ]);
  // Too many values to bind three ways: beyond the sorted matches, the walk that probes.
  const page =
    parameterCount(allWays) <= D1_MAX_PARAMETERS
      ? allWays
      : ways([sorted, walkStatement(indexed, limitWhen(PLAN_WHEN.walking, fetch))]);
  if (parameterCount(page) <= D1_MAX_PARAMETERS) {
    return {
      page,
      // Counted by the page when the matches are sorted; else the driving filter's matches, checked.
      count: sql`${counted} SELECT (SELECT matches FROM driving_matches) AS driving_matches, count(*) AS total FROM (
        ${matchesUpTo(matches, limitWhen(PLAN_WHEN.walking, ROW_COUNT_CAP + 1))})`,
      everyMatch,
    };
  }
  // Too many values to bind two ways in one statement: the walk, counted from the driving filter's matches.
  return {
    page: walkStatement(indexed, sql`${fetch}`),
    count: sql`SELECT NULL AS driving_matches, count(*) AS total FROM (${matchesUpTo(matches, ROW_COUNT_CAP + 1)})`,
    everyMatch,
  };
}

/**
 * The page from the driving filter's matches, when they are few: every match's walk keys and
 * their count in one pass (narrow records, from the entries alone when the query is sorted and no
 * filter reads the row), then the cursor, the order and the window on those keys; the page's rows
 * are then read by seq.
 */
function sortedMatchesPage(indexed: IndexedQuery, matches: DrivingMatches): SQL {
  const { walk, bounds, query, fetch } = indexed;
  const { entries, passing, readsRow } = matches;
  // Unsorted, the walk's keys are the row's (position, seq).
  const from = matchesFrom(readsRow || query.sorts.length === 0);
  const matchKeys = sql`SELECT ${walk.keyColumns}, count(*) OVER () AS key_total
      FROM ${from} ${walk.entryJoin}
      WHERE ${entries} AND ${allOf([...walkWhere(walk), ...bounds, passing])}
      LIMIT ${limitWhen(PLAN_WHEN.sorting, -1)}`;
  const pageKeys = sql`SELECT * FROM (${matchKeys}) ${afterCursorOnKeys(indexed)}
      ORDER BY ${walkOutputOrder(walk)} LIMIT ${limitWhen(PLAN_WHEN.sorting, fetch)} OFFSET ${query.offset}`;
  return sql`SELECT b.*, k.*, 0 AS key_segment FROM (${pageKeys}) k CROSS JOIN blocks b ON b.seq = k.key_seq`;
}

/** The cursor as a WHERE clause on the keys a sorted match carries (the walk's output columns); nothing without a cursor. */
function afterCursorOnKeys({ walk, after }: IndexedQuery): SQL {
  if (!after) return sql``;
  const onKeys: Walk = { ...walk, keys: walk.keys.map((key) => ({ ...key, expression: sql.raw(key.alias) })) };
  const segments = segmentsAfter(onKeys, after);
  return sql`WHERE ${segments.length ? anyOf(segments) : sql`0`}`;
}

/**
 * The query's total: the count's, or, where the page sorted the driving filter's matches, the
 * count every sorted row carries. A page past the last match has no row to carry it: counted on
 * its own (rare, a third statement).
 */
async function pageTotal(
  { ctx, query, after }: IndexedQuery,
  statements: PageStatements,
  records: PageRecord[],
  counted: PageCount | undefined,
): Promise<number> {
  const matches = counted?.driving_matches;
  if (matches === null || matches === undefined || matches > DRIVEN_SORT_MAX) return counted?.total ?? 0;
  const carried = records[0]?.key_total;
  if (typeof carried === "number") return carried;
  if (query.offset > 0 || after) return (await ctx.db.get<{ total: number }>(statements.everyMatch as SQL))?.total ?? 0;
  return 0;
}
