import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Database } from "./client";

const dialect = new SQLiteAsyncDialect();

type Rows<T extends readonly unknown[]> = { [K in keyof T]: T[K][] };

/** A drizzle `sql` query as a D1 statement. */
export function prepare(d1: D1Database, query: SQL): D1PreparedStatement {
  const { sql, params } = dialect.sqlToQuery(query);
  return d1.prepare(sql).bind(...params);
}

/** How many values a drizzle `sql` query binds (D1 accepts at most 100 per statement). */
export const parameterCount = (query: SQL): number => dialect.sqlToQuery(query).params.length;

/**
 * Runs several queries as one D1 batch: one round trip, atomic (all statements
 * commit or none do), each returning its rows (`RETURNING` rows for writes).
 * Drizzle's own batch accepts query builders but not raw `sql`, hence this.
 */
export async function batchAll<T extends readonly unknown[]>(
  db: Database,
  queries: { [K in keyof T]: SQL },
): Promise<Rows<T>> {
  const d1 = db.$client;
  const results = await d1.batch(queries.map((query) => prepare(d1, query)));
  return results.map((result) => result.results) as Rows<T>;
}
