// The JSON scan serves what the index cannot (an older inline schema, several sorts, a sort on a
// computed property): every matching row's JSON, paged by offset.
import { sql } from "drizzle-orm";
import { batchAll } from "../../../db/batch";
import type { UserContext } from "../../../lib/context";
import type { BlockRecord } from "../../blocks/presenter";
import type { DatabaseSchema } from "../property-types";
import { rowConditions } from "./filters";
import { ROW_COUNT_CAP, type RowPage, type RowQuery, rowPage } from "./page";
import { sortExpression } from "./sorts";

/** One page of the rows' JSON, at `query.offset` (an offset cursor is opened by queryRows). */
export async function jsonPage(ctx: UserContext, schema: DatabaseSchema, query: RowQuery): Promise<RowPage> {
  const order = sql.join(
    [
      ...query.sorts.map((sort, index) => sortExpression(schema, sort, index)),
      sql`b.position ASC NULLS LAST`,
      sql`b.seq`,
    ],
    sql`, `,
  );
  const rows = rowConditions(ctx, schema, query.filters);
  const [records, counts] = await batchAll<[BlockRecord, { total: number }]>(ctx.db, [
    sql`SELECT b.* FROM blocks b WHERE ${rows} ORDER BY ${order} LIMIT ${query.limit + 1} OFFSET ${query.offset}`,
    sql`SELECT count(*) AS total FROM (SELECT 1 FROM blocks b WHERE ${rows} LIMIT ${ROW_COUNT_CAP + 1})`,
  ]);
  return rowPage(ctx, schema, query, records, counts[0]?.total ?? 0, () => ({
    offset: query.offset + query.limit,
  }));
}
