import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";

const dialect = new SQLiteAsyncDialect();

type Rows<T extends readonly unknown[]> = { [K in keyof T]: T[K][] };

/**
 * Runs several read queries as one D1 batch: one round trip, one consistent
 * snapshot. (Drizzle's own batch accepts query builders but not raw `sql`.)
 */
export async function batchAll<T extends readonly unknown[]>(
  d1: D1Database,
  queries: { [K in keyof T]: SQL },
): Promise<Rows<T>> {
  const statements = queries.map((query) => {
    const { sql, params } = dialect.sqlToQuery(query);
    return d1.prepare(sql).bind(...params);
  });
  const results = await d1.batch(statements);
  return results.map((result) => result.results) as Rows<T>;
}
