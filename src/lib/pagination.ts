import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Context } from "hono";
import { type CursorContext, type CursorScope, cursorRefused, type KeyValue, openCursor, sealCursor } from "./cursor";
import { badRequest } from "./errors";
import { integerParameter } from "./integer-parameter";
import { CURSOR_EXAMPLE, TOTAL_COUNT_CAP } from "./pagination-headers";

// The headers live apart (pagination-headers.ts) so that CORS reads their names without this module.
export { PAGINATION_HEADER_NAMES, paginationHeaders, TOTAL_COUNT_CAP } from "./pagination-headers";

// One listing behaviour for every paginated endpoint, now and later: the same
// `limit`/`offset`/`cursor` parameters and rule, the same headers, the same queries.
//
// Two ways through a listing. `offset` skips items (page N reads the N-1 pages before it).
// `cursor` continues after the last item of the previous page: its order-key values are in
// the cursor (signed, and bound to the caller, the listing and its filters: lib/cursor.ts), and
// the page is `WHERE (keys) after (values) ORDER BY keys LIMIT n+1`, an index seek that costs
// what page 1 costs. Every listing orders by keys that end in a unique column, so the keys order
// items totally and a cursor names one position.

export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 100;
/** The longest cursor accepted (a cursor carries a few key values: ids, instants, a title). */
export const CURSOR_MAX_LENGTH = 4_000;

const limitDescription = `Page size, default ${PAGE_DEFAULT_LIMIT}. Values above ${PAGE_MAX_LIMIT} are lowered to ${PAGE_MAX_LIMIT} (X-Pagination-Limit says which was used).`;
const offsetDescription = "Zero-based index of the first item, default 0";
const cursorDescription =
  "The X-Next-Cursor of the previous page, sent by the same user with the same filters: the page after it, at the cost of the first page. Opaque and signed by the server: another user's cursor, another listing's or other filters', or an altered one is a 400 (`details.parameter` `cursor`). Not together with a non-zero `offset`.";

const cursorField = z
  .string()
  .max(CURSOR_MAX_LENGTH)
  .optional()
  .openapi({ description: cursorDescription, examples: [CURSOR_EXAMPLE] });

/**
 * `limit`, `offset` and `cursor` as query parameters (integers in decimal digits only). Strict, and
 * so is every listing's query that extends it: an unknown parameter (a misspelt filter) is a 400.
 */
export const PaginationQuery = z.strictObject({
  limit: integerParameter((integer) => integer.min(1))
    .optional()
    .openapi({ description: limitDescription, example: 50 }),
  offset: integerParameter((integer) => integer.min(0))
    .optional()
    .openapi({ description: offsetDescription, example: 0 }),
  cursor: cursorField,
});

/** `limit`, `offset` and `cursor` as JSON body fields (for listings queried with POST). */
export const PaginationBody = z.object({
  limit: z.number().int().min(1).optional().openapi({ description: limitDescription, example: 50 }),
  offset: z.number().int().min(0).optional().openapi({ description: offsetDescription, example: 0 }),
  cursor: cursorField,
});

export interface PageWindow {
  limit: number;
  /** 0 when `cursor` is given. */
  offset: number;
  /** An X-Next-Cursor: continue after the item it names (instead of skipping `offset` items). */
  cursor?: string;
}

/**
 * The window a request asks for, under the one rule: default 50, above 100 lowered to 100;
 * a cursor with a non-zero offset is a 400 naming both.
 */
export function pageWindow(input: { limit?: number; offset?: number; cursor?: string }): PageWindow {
  const offset = input.offset ?? 0;
  if (input.cursor !== undefined && offset !== 0) {
    throw badRequest("Give either cursor or offset, not both", { parameters: ["cursor", "offset"] });
  }
  const window: PageWindow = { limit: Math.min(input.limit ?? PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT), offset };
  if (input.cursor !== undefined) window.cursor = input.cursor;
  return window;
}

/** One page of a listing's results (not a page document: that is `Page` in schemas/pages.ts). */
export interface ResultPage<T> {
  items: T[];
  /** Exact number of matches, or null when there are more than TOTAL_COUNT_CAP. */
  total: number | null;
  hasMore: boolean;
  /** The cursor of the page after this one; null on the last page. */
  nextCursor: string | null;
}

// ---------------------------------------------------------------------------------------------
// Order keys and the keyset condition

export type { KeyValue };

/** One term of a listing's ORDER BY. */
export interface OrderKey {
  /** The key as SQL, exactly as it is ordered by (a column, or an expression with its COLLATE). */
  expression: SQL;
  direction: "asc" | "desc";
  /**
   * Given when the key may be NULL: where NULLs sort (SQLite's default is first for asc, last for
   * desc). Absent: the key is never NULL, and the conditions need no NULL tests (which an index
   * range could not serve).
   */
  nulls?: "first" | "last";
}

const nullsOf = (key: OrderKey): "first" | "last" => key.nulls ?? (key.direction === "asc" ? "first" : "last");

/** ORDER BY terms of `keys` (NULLS FIRST/LAST written only where it is not SQLite's default). */
export function orderByKeys(keys: readonly OrderKey[]): SQL {
  return sql.join(
    keys.map((key) => {
      const direction = key.direction === "asc" ? "ASC" : "DESC";
      const defaultNulls = key.direction === "asc" ? "first" : "last";
      const nulls = key.nulls && key.nulls !== defaultNulls ? ` NULLS ${key.nulls.toUpperCase()}` : "";
      return sql`${key.expression} ${sql.raw(direction + nulls)}`;
    }),
    sql`, `,
  );
}

/** The key equals the value (NULL included). */
const equalTo = (key: OrderKey, value: KeyValue): SQL =>
  value === null ? sql`${key.expression} IS NULL` : sql`${key.expression} = ${value}`;

/** The conditions, in the key's order, of the key's values strictly after `value`. */
function strictlyAfter(key: OrderKey, value: KeyValue): SQL[] {
  const nulls = nullsOf(key);
  if (value === null) return nulls === "first" ? [sql`${key.expression} IS NOT NULL`] : [];
  const beyond = sql`${key.expression} ${sql.raw(key.direction === "asc" ? ">" : "<")} ${value}`;
  return key.nulls !== undefined && nulls === "last" ? [beyond, sql`${key.expression} IS NULL`] : [beyond];
}

function checkValues(keys: readonly OrderKey[], values: readonly KeyValue[]): void {
  if (keys.length === 0 || values.length !== keys.length) {
    throw new Error(`keyset: ${values.length} values for ${keys.length} keys`);
  }
}

/**
 * The rows after `values` in the order of `keys`, as conditions each an index seek, in the order
 * the rows come: segment i keeps keys 0..i-1 equal to their values and puts key i after its value
 * (a nullable key's NULLs that sort last are a segment of their own). Their union is everything
 * after the cursor; for a query run segment by segment (UNION ALL of `ORDER BY ... LIMIT n`).
 */
export function afterSegments(keys: readonly OrderKey[], values: readonly KeyValue[]): SQL[] {
  checkValues(keys, values);
  const segments: SQL[] = [];
  for (let i = keys.length - 1; i >= 0; i--) {
    const equal = keys.slice(0, i).map((key, j) => equalTo(key, values[j] as KeyValue));
    for (const after of strictlyAfter(keys[i] as OrderKey, values[i] as KeyValue)) {
      segments.push(equal.length === 0 ? after : sql.join([...equal, after], sql` AND `));
    }
  }
  return segments;
}

/**
 * A bound on the first key that an index range serves (`k >= v`, `k <= v`, `k IS NULL`) and every
 * row after `values` meets; null when the first key's NULLs sit after its non-NULL value (then
 * only segments seek: `afterSegments`).
 */
function leadingBound(key: OrderKey, value: KeyValue): SQL | null {
  const nulls = nullsOf(key);
  if (value === null) return nulls === "last" ? sql`${key.expression} IS NULL` : null;
  if (key.nulls !== undefined && nulls === "last") return null;
  return sql`${key.expression} ${sql.raw(key.direction === "asc" ? ">=" : "<=")} ${value}`;
}

/**
 * The condition "the row comes after `values`" in the order of `keys`, for a WHERE clause:
 * all keys in one direction and never NULL, the row value `(a, b) > (?, ?)` (`<` for desc);
 * otherwise the comparison expanded by hand (mixed directions, NULLs where `nulls` says), led by a
 * range on the first key so that the index serving the ORDER BY seeks to the cursor.
 */
export function afterCondition(keys: readonly OrderKey[], values: readonly KeyValue[]): SQL {
  checkValues(keys, values);
  const direction = keys[0]?.direction;
  if (
    keys.length > 1 &&
    keys.every((key, i) => key.direction === direction && key.nulls === undefined && values[i] !== null)
  ) {
    const left = sql.join(
      keys.map((key) => key.expression),
      sql`, `,
    );
    const right = sql.join(
      values.map((value) => sql`${value}`),
      sql`, `,
    );
    return sql`(${left}) ${sql.raw(direction === "asc" ? ">" : "<")} (${right})`;
  }
  const segments = afterSegments(keys, values);
  if (segments.length === 0) return sql`0`;
  const any = segments.length === 1 ? segments[0] : sql`(${sql.join(segments, sql` OR `)})`;
  const bound = keys.length > 1 ? leadingBound(keys[0] as OrderKey, values[0] as KeyValue) : null;
  return bound ? sql`${bound} AND ${any}` : (any as SQL);
}

/** Whether `afterCondition` lets an index seek (a range on the first key) rather than filter from the start. */
const seeksAlone = (keys: readonly OrderKey[], values: readonly KeyValue[]): boolean =>
  leadingBound(keys[0] as OrderKey, values[0] as KeyValue) !== null;

// ---------------------------------------------------------------------------------------------
// Cursors (lib/cursor.ts: signed, bound to the caller, the listing and its filters)

/** The cursor binding of a listing: its name and filters. */
const scopeOf = (listing: Listing): CursorScope => ({ listing: listing.name, filters: listing.filters });

/** A listing's cursor continuing after `values`, for this caller. */
export const encodeCursor = (ctx: CursorContext, listing: Listing, values: readonly KeyValue[]): Promise<string> =>
  sealCursor(ctx, scopeOf(listing), { keys: [...values] });

/**
 * The order-key values a cursor continues after. A 400 `validation_failed` with
 * `details: {parameter: "cursor"}` when it is not this caller's cursor of this listing and
 * filters (lib/cursor.ts), or (never for a cursor this service gave) holds no key values, another
 * number of them than the listing has keys, or NULL for a key declared never NULL.
 */
export async function decodeCursor(ctx: CursorContext, listing: Listing, cursor: string): Promise<KeyValue[]> {
  const position = await openCursor(ctx, scopeOf(listing), cursor);
  const refuse = () => cursorRefused("is not a cursor this service gave");
  if (!("keys" in position) || position.keys.length !== listing.keys.length) throw refuse();
  // A key declared never NULL (no `nulls`) holds a value in every cursor this service gives.
  if (listing.keys.some((key, index) => key.nulls === undefined && position.keys[index] === null)) throw refuse();
  return position.keys;
}

// ---------------------------------------------------------------------------------------------
// Listings

/** What a listing is, for its queries and cursors. */
export interface Listing {
  /** Names the listing in its cursors (`comments.block`): a cursor continues only its own listing. */
  name: string;
  /** Every parameter that shapes the listing but the window (scope ids, filters, sort): hashed into cursors. */
  filters: unknown;
  /** The ORDER BY, ending in a unique column (id, seq, rowid) so that the keys order items totally. */
  keys: readonly OrderKey[];
}

/** The parts of a listing's statement; the page and the count are built from them. */
export interface ListingSql {
  /** A WITH clause both statements start with. */
  with?: SQL;
  /** SELECT and its columns (the key columns are added). */
  select: SQL;
  /** FROM and its joins. */
  from: SQL;
  /** The WHERE condition (without WHERE) of the whole listing. */
  where: SQL;
}

/** Key values travel in these selected columns, and are taken off the rows by `readPage`. */
const KEY_COLUMN = "_key";
/** `expression AS _key0, ...`: the keys' values as columns of the selected rows (for `readPage`'s cursor). */
export const selectKeys = (keys: readonly OrderKey[]): SQL =>
  sql.join(
    keys.map((key, i) => sql`${key.expression} AS ${sql.raw(`${KEY_COLUMN}${i}`)}`),
    sql`, `,
  );

/** The cursor's key values, when the window has one (a 400 when it is not this caller's of this listing). */
export const cursorValues = async (
  ctx: CursorContext,
  listing: Listing,
  window: PageWindow,
): Promise<KeyValue[] | undefined> =>
  window.cursor === undefined ? undefined : decodeCursor(ctx, listing, window.cursor);

/** D1 binds at most 100 parameters a statement: past this, segments are joined by OR in one query. */
const SEGMENTED_PARAMETER_BUDGET = 90;
const dialect = new SQLiteAsyncDialect();
const parameterCount = (query: SQL): number => dialect.sqlToQuery(query).params.length;

/**
 * The two statements of a listing, for one batch (one round trip): the page, fetching one row more
 * than asked to learn whether more follow (with the order keys' values as extra columns, for the
 * next cursor), and a count of the whole listing that stops at TOTAL_COUNT_CAP + 1 so counting
 * never scans without bound. With a cursor, the page starts after it: one query whose first key's
 * range the index seeks to, or, when the first key's NULLs come after its values (no one range
 * holds the rest), one seek per segment, in order (`afterSegments`).
 */
export async function listingQueries(
  ctx: CursorContext,
  listing: Listing,
  parts: ListingSql,
  window: PageWindow,
): Promise<[page: SQL, count: SQL]> {
  const head = parts.with ? sql`${parts.with} ` : sql``;
  const select = sql`${parts.select}, ${selectKeys(listing.keys)} ${parts.from}`;
  const order = orderByKeys(listing.keys);
  const fetch = window.limit + 1;
  const count = sql`${head}${cappedCount(sql`${parts.from} WHERE ${parts.where}`)}`;
  const values = await cursorValues(ctx, listing, window);
  if (values === undefined) {
    return [sql`${head}${select} WHERE ${parts.where} ORDER BY ${order} LIMIT ${fetch} OFFSET ${window.offset}`, count];
  }
  if (!seeksAlone(listing.keys, values)) {
    const segments = afterSegments(listing.keys, values);
    const seeks = segments.map(
      (segment) => sql`SELECT * FROM (${select} WHERE ${parts.where} AND ${segment} ORDER BY ${order} LIMIT ${fetch})`,
    );
    const page = sql`${head}${sql.join(seeks, sql` UNION ALL `)} LIMIT ${fetch}`;
    if (segments.length > 0 && parameterCount(page) <= SEGMENTED_PARAMETER_BUDGET) return [page, count];
  }
  const after = afterCondition(listing.keys, values);
  return [sql`${head}${select} WHERE ${parts.where} AND ${after} ORDER BY ${order} LIMIT ${fetch}`, count];
}

/** The rows of `from` (FROM ... WHERE ...) a count reads: no more than one past TOTAL_COUNT_CAP. */
const rowsUpToCap = (from: SQL): SQL => sql`(SELECT 1 ${from} LIMIT ${TOTAL_COUNT_CAP + 1})`;

/** A count of the rows of `from` (FROM ... WHERE ...), stopping past TOTAL_COUNT_CAP. */
export const cappedCount = (from: SQL): SQL => sql`SELECT count(*) AS total FROM ${rowsUpToCap(from)}`;

/**
 * The sum of capped counts of disjoint parts of a listing, in one statement (each part stops past
 * TOTAL_COUNT_CAP, so the sum is exact up to the cap and past it whatever it is).
 */
export const cappedCountOfParts = (froms: readonly [SQL, ...SQL[]]): SQL =>
  sql`SELECT ${sql.join(
    froms.map((from) => sql`(SELECT count(*) FROM ${rowsUpToCap(from)})`),
    sql` + `,
  )} AS total`;

/**
 * A row without the key columns `listingQueries` added: for a presenter that answers a row's columns
 * whole (a spread, the row itself). A presenter that names the fields it answers needs none of it.
 */
export function withoutKeyColumns<R>(row: R): R {
  const record = row as Record<string, unknown>;
  const clean: Record<string, unknown> = {};
  for (const name in record) if (!name.startsWith(KEY_COLUMN)) clean[name] = record[name];
  return clean as R;
}

/**
 * Turns the rows of `listingQueries` into a page: the items (presented), the total (the sum of the
 * count rows given), and the next page's cursor. `present` receives each row with the key columns
 * (`_key0`, ...) still on it, and answers with the fields it names: one that answers the row's
 * columns whole takes them off with `withoutKeyColumns`. Not copying every row first saves a listing
 * of 50 blocks about 1% of its work (callgrind: docs/performance.md).
 */
export async function readPage<R, T>(
  ctx: CursorContext,
  listing: Listing,
  rows: R[],
  counts: { total: number }[],
  window: PageWindow,
  present: (row: R) => T,
): Promise<ResultPage<T>> {
  const total = counts.reduce((sum, row) => sum + row.total, 0);
  const items = rows.slice(0, window.limit);
  const hasMore = rows.length > window.limit;
  const last = items.at(-1) as Record<string, unknown> | undefined;
  return {
    items: items.map((row) => present(row)),
    total: total > TOTAL_COUNT_CAP ? null : total,
    hasMore,
    nextCursor:
      hasMore && last
        ? await encodeCursor(
            ctx,
            listing,
            listing.keys.map((_, i) => (last[`${KEY_COLUMN}${i}`] ?? null) as KeyValue),
          )
        : null,
  };
}

/** Sets the headers of `paginationHeaders` on a listing response. */
export function setPaginationHeaders(c: Context, page: ResultPage<unknown>, window: PageWindow): void {
  if (page.total !== null) c.header("X-Total-Count", String(page.total));
  c.header("X-Pagination-Limit", String(window.limit));
  c.header("X-Pagination-Offset", String(window.offset));
  c.header("X-Has-More", String(page.hasMore));
  if (page.nextCursor) c.header("X-Next-Cursor", page.nextCursor);
}
