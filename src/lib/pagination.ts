import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { Context } from "hono";

// One listing behaviour for every paginated endpoint, now and later: the same
// `limit`/`offset` parameters and rule, the same headers, the same queries.

export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 100;
/** Totals above this are not counted exactly; the listing then omits X-Total-Count. */
export const TOTAL_COUNT_CAP = 10_000;

const limitDescription = `Page size, default ${PAGE_DEFAULT_LIMIT}. Values above ${PAGE_MAX_LIMIT} are lowered to ${PAGE_MAX_LIMIT} (X-Pagination-Limit says which was used).`;
const offsetDescription = "Zero-based index of the first item, default 0";

/** `limit` and `offset` as query parameters (strings coerced to integers). */
export const PaginationQuery = z.object({
  limit: z.coerce.number().int().min(1).optional().openapi({ description: limitDescription, example: 50 }),
  // `type` is given because the generator reads a coerced minimum of 0 as "null accepted" (null coerces to 0).
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ type: "integer", description: offsetDescription, example: 0 }),
});

/** `limit` and `offset` as JSON body fields (for listings queried with POST). */
export const PaginationBody = z.object({
  limit: z.number().int().min(1).optional().openapi({ description: limitDescription, example: 50 }),
  offset: z.number().int().min(0).optional().openapi({ description: offsetDescription, example: 0 }),
});

export interface PageWindow {
  limit: number;
  offset: number;
}

/** The window a request asks for, under the one rule: default 50, above 100 lowered to 100. */
export const pageWindow = (input: { limit?: number; offset?: number }): PageWindow => ({
  limit: Math.min(input.limit ?? PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT),
  offset: input.offset ?? 0,
});

export interface Page<T> {
  items: T[];
  /** Exact number of matches, or null when there are more than TOTAL_COUNT_CAP. */
  total: number | null;
  hasMore: boolean;
}

/**
 * The two statements of a listing, for one batch (one round trip): the page,
 * fetching one row more than asked to learn whether more follow, and a count
 * that stops at TOTAL_COUNT_CAP + 1 so counting never scans without bound.
 * `from` is everything from FROM on (FROM ... WHERE ...), `order` the ORDER BY terms.
 */
export function listingQueries(select: SQL, from: SQL, order: SQL, window: PageWindow): [page: SQL, count: SQL] {
  return [
    sql`${select} ${from} ORDER BY ${order} LIMIT ${window.limit + 1} OFFSET ${window.offset}`,
    cappedCount(from),
  ];
}

/** A count of the rows of `from` (FROM ... WHERE ...), stopping past TOTAL_COUNT_CAP. */
export const cappedCount = (from: SQL): SQL =>
  sql`SELECT count(*) AS total FROM (SELECT 1 ${from} LIMIT ${TOTAL_COUNT_CAP + 1})`;

/** Turns the rows of `listingQueries` into a page. */
export function readPage<R, T>(
  rows: R[],
  counts: { total: number }[],
  window: PageWindow,
  present: (row: R) => T,
): Page<T> {
  const total = counts.reduce((sum, row) => sum + row.total, 0);
  return {
    items: rows.slice(0, window.limit).map(present),
    total: total > TOTAL_COUNT_CAP ? null : total,
    hasMore: rows.length > window.limit,
  };
}

/** Headers of every paginated listing, for the contract. */
export const paginationHeaders = {
  "X-Total-Count": {
    schema: { type: "integer" as const },
    description: `Number of matches; omitted when above ${TOTAL_COUNT_CAP.toLocaleString("en")}`,
  },
  "X-Pagination-Limit": { schema: { type: "integer" as const }, description: "Page size used" },
  "X-Pagination-Offset": { schema: { type: "integer" as const }, description: "Offset of this page" },
  "X-Has-More": {
    schema: { type: "string" as const, enum: ["true", "false"] },
    description: "Whether more items follow this page",
  },
};

/** The headers exposed to browsers on cross-origin listings. */
export const PAGINATION_HEADER_NAMES = Object.keys(paginationHeaders);

/** Sets the headers of `paginationHeaders` on a listing response. */
export function setPaginationHeaders(c: Context, page: Page<unknown>, window: PageWindow): void {
  if (page.total !== null) c.header("X-Total-Count", String(page.total));
  c.header("X-Pagination-Limit", String(window.limit));
  c.header("X-Pagination-Offset", String(window.offset));
  c.header("X-Has-More", String(page.hasMore));
}
