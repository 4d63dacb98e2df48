// Row cursors are the one codec (lib/cursor.ts) bound to the query as sent: walk keys for the index
// plan, an offset for the JSON scan, or the row's seq when its sort value is too long to carry.
import {
  type CursorContext,
  type CursorPosition,
  type CursorScope,
  cursorLength,
  openCursor,
  sealCursor,
} from "../../../lib/cursor";
import type { RowFilter, RowSort } from "../../../schemas/databases";

/** What a row query's cursors are bound to (besides the caller): the database, filters and sorts as sent. */
const rowQueryScope = (databaseId: string, filters: RowFilter[], sorts: RowSort[]): CursorScope => ({
  listing: "databases.query",
  filters: { databaseId, filters, sorts },
});

/**
 * Cursors carry the last row's key values up to this length; beyond it (a sort value of a long
 * text) they name the row instead, whose keys the next page reads first: the body field takes
 * 2,000 characters, and a header of a whole text is no cursor.
 */
export const ROW_CURSOR_INLINE_MAX = 1_000;

/** The cursor of a row query's next page (sealCursor): signed, for this caller and this query. */
export function sealRowCursor(
  ctx: CursorContext,
  databaseId: string,
  filters: RowFilter[],
  sorts: RowSort[],
  position: CursorPosition,
): Promise<string> {
  const scope = rowQueryScope(databaseId, filters, sorts);
  const seq = "keys" in position ? position.keys.at(-1) : undefined;
  const named = typeof seq === "number" && cursorLength(scope, position) > ROW_CURSOR_INLINE_MAX;
  return sealCursor(ctx, scope, named ? { row: seq } : position);
}

/**
 * The position a cursor continues from (openCursor), checked before any query runs; a 400 naming
 * `cursor` when it is not this caller's cursor of this query.
 */
export const openRowCursor = (
  ctx: CursorContext,
  databaseId: string,
  filters: RowFilter[],
  sorts: RowSort[],
  cursor: string,
): Promise<CursorPosition> => openCursor(ctx, rowQueryScope(databaseId, filters, sorts), cursor);
