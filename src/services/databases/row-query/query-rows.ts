import { type SQL, sql } from "drizzle-orm";
import { batchAll, parameterCount } from "../../../db/batch";
import type { UserContext } from "../../../lib/context";
import { cursorRefused } from "../../../lib/cursor";
import { badRequest } from "../../../lib/errors";
import type { RowFilter } from "../../../schemas/databases";
import type { BlockRecord } from "../../blocks/record";
import type { DatabaseSchema } from "../property-types";
import { loadDatabaseSchema } from "../schema-records";
import { openRowCursor } from "./cursors";
import { allOf, filterCondition, rowConditions } from "./filters";
import { jsonPage } from "./json-scan";
import { ROW_COUNT_CAP, type RowPage, type RowQuery, rowPage } from "./page";
import { drivingEntryValues, indexedValuesFor } from "./value-sources";
import {
  drivingEntries,
  drivingFilter,
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
    ? await openRowCursor(ctx, databaseId, query.filters, query.sorts, query.cursor)
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
  return rowPage(ctx, schema, query, records, total, (last) => ({ keys: walk.valuesOf(last) }));
}
