// Exports stream every row in default order by keyset, apart from the query plans: no filters to
// plan for, and each chunk costs the same however far the stream has gone.
import { sql } from "drizzle-orm";
import type { UserContext } from "../../../lib/context";
import type { Row } from "../../../schemas/databases";
import type { BlockRecord } from "../../blocks/presenter";
import type { DatabaseSchema } from "../property-types";
import { presentRow } from "../rows";
import { rowConditions } from "./filters";

/** Rows one read of `allRows` fetches. */
const ROWS_PER_READ = 2_000;

/**
 * Every active visible row of a database in its default order (by position,
 * unpositioned rows last, then by creation), at most `max`, read a chunk at a
 * time by keyset (never by offset, so each read costs the same), for exports
 * that stream however many rows there are.
 */
export async function* allRows(ctx: UserContext, schema: DatabaseSchema, max: number): AsyncGenerator<Row[]> {
  const rows = rowConditions(ctx, schema, []);
  let left = max;
  // Positioned rows first, by (position, seq); the index on (database_id, position) serves it.
  let after: { position: number; seq: number } | null = null;
  while (left > 0) {
    const records: BlockRecord[] = await ctx.db.all(sql`
      SELECT b.* FROM blocks b WHERE ${rows} AND b.position IS NOT NULL
        ${after ? sql`AND (b.position > ${after.position} OR (b.position = ${after.position} AND b.seq > ${after.seq}))` : sql``}
      ORDER BY b.position, b.seq LIMIT ${Math.min(ROWS_PER_READ, left)}`);
    if (records.length > 0) yield records.map((record) => presentRow(schema, record));
    left -= records.length;
    const last = records.at(-1);
    if (records.length < ROWS_PER_READ || !last || last.position === null) break;
    after = { position: last.position, seq: last.seq };
  }
  // Then unpositioned rows, by seq.
  let afterSeq = 0;
  while (left > 0) {
    const records: BlockRecord[] = await ctx.db.all(sql`
      SELECT b.* FROM blocks b WHERE ${rows} AND b.position IS NULL AND b.seq > ${afterSeq}
      ORDER BY b.seq LIMIT ${Math.min(ROWS_PER_READ, left)}`);
    if (records.length > 0) yield records.map((record) => presentRow(schema, record));
    left -= records.length;
    const last = records.at(-1);
    if (records.length < ROWS_PER_READ || !last) return;
    afterSeq = last.seq;
  }
}

/** How many active visible rows the database has, counting no further than `cap`. */
export async function countRows(ctx: UserContext, schema: DatabaseSchema, cap: number): Promise<number> {
  const row = await ctx.db.get<{ total: number }>(
    sql`SELECT count(*) AS total FROM (SELECT 1 FROM blocks b WHERE ${rowConditions(ctx, schema, [])} LIMIT ${cap})`,
  );
  return row?.total ?? 0;
}
