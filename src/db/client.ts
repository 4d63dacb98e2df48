import { drizzle } from "drizzle-orm/d1";

/**
 * A Drizzle handle over a D1 database (a request's session, metered). Without the schema: the
 * relational query API (`db.query.*`) is not used, and building its config from the schema cost
 * about a tenth of a block read's CPU, on every request.
 */
export const createDatabase = (d1: D1Database) => drizzle(d1);

export type Database = ReturnType<typeof createDatabase>;
