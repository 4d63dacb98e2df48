// What a query asks and answers, shared by both plans (index plan, JSON scan) so that they page,
// cap totals and give cursors alike.
import type { UserContext } from "../../../lib/context";
import type { CursorPosition } from "../../../lib/cursor";
import type { PageWindow, ResultPage } from "../../../lib/pagination";
import type { Row, RowFilter, RowSort } from "../../../schemas/databases";
import type { BlockRecord } from "../../blocks/presenter";
import type { DatabaseSchema } from "../property-types";
import { presentRow } from "../rows";
import { sealRowCursor } from "./cursors";

export interface RowQuery extends PageWindow {
  filters: RowFilter[];
  sorts: RowSort[];
  /** An `X-Next-Cursor` of the same query: the page after it (instead of `offset`). */
  cursor?: string;
}

/** A page of rows, and the cursor of the page after it (null on the last page). */
export interface RowPage extends ResultPage<Row> {
  nextCursor: string | null;
}

/**
 * Totals of a row query are counted up to this many (X-Total-Count is left out beyond): a count
 * reads every match it counts, so a bound keeps a query at 100,000 rows as cheap as at 1,000.
 * Cursors walk the rest.
 */
export const ROW_COUNT_CAP = 1_000;

/**
 * The page of `records`, read one past the limit to know whether more follow, with its total (null
 * beyond ROW_COUNT_CAP) and the cursor of the page after it, at the position `next` gives from the
 * page's last row.
 */
export async function rowPage<R extends BlockRecord>(
  ctx: UserContext,
  schema: DatabaseSchema,
  query: RowQuery,
  records: R[],
  total: number,
  next: (last: R) => CursorPosition,
): Promise<RowPage> {
  const items = records.slice(0, query.limit);
  const hasMore = records.length > query.limit;
  const last = items.at(-1);
  return {
    items: items.map((record) => presentRow(schema, record)),
    total: total > ROW_COUNT_CAP ? null : total,
    hasMore,
    nextCursor:
      hasMore && last ? await sealRowCursor(ctx, schema.databaseId, query.filters, query.sorts, next(last)) : null,
  };
}
