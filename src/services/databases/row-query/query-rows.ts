// The entry of a row query: opens its cursor and picks the plan, the index's when it can serve the
// query, else the JSON scan; each plan accepts only the cursors it gives.
import type { UserContext } from "../../../lib/context";
import { cursorRefused } from "../../../lib/cursor";
import { badRequest } from "../../../lib/errors";
import type { RowFilter, RowSort } from "../../../schemas/databases";
import { COMPUTED_PROPERTY_TYPES, type DatabaseSchema, INDEXED_TYPES } from "../property-types";
import { resolvePropertyKey } from "../row-values";
import { loadDatabaseSchema } from "../schema-records";
import { openRowCursor } from "./cursors";
import { indexedPage, keysOfRow } from "./indexed-page";
import { jsonPage } from "./json-scan";
import type { RowPage, RowQuery } from "./page";
import { keysFit, walkFor } from "./walk";

/**
 * One page of a database's active visible rows matching every filter (AND), sorted by `sorts`
 * then by position, with the total (up to ROW_COUNT_CAP) and the next page's cursor. Served by
 * the row-value index when it can be, else by reading the rows' JSON. The cursor is checked
 * (lib/cursor.ts) before anything is read.
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
 * Whether a query can be answered from the index: a database with schema records (an older
 * inline schema has no entries), filters on indexed or computed properties, and at most one sort,
 * on an indexed property. Unknown properties answer false: the JSON scan reports them (400).
 */
export function indexServes(schema: DatabaseSchema, filters: RowFilter[], sorts: RowSort[]): boolean {
  if (schema.legacy || sorts.length > 1) return false;
  const typeOf = (key: string) => resolvePropertyKey(schema, key)?.type;
  const filtersServed = filters.every((filter) => {
    const type = typeOf(filter.property);
    return type !== undefined && (INDEXED_TYPES.has(type) || COMPUTED_PROPERTY_TYPES.has(type));
  });
  const sortType = sorts[0] ? typeOf(sorts[0].property) : undefined;
  return filtersServed && (sorts.length === 0 || (sortType !== undefined && INDEXED_TYPES.has(sortType)));
}
