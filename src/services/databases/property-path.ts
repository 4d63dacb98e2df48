import { type SQL, sql } from "drizzle-orm";

/**
 * JSON path of a property inside `blocks.properties`. Ids are quoted (legacy ids
 * may hold spaces or dots), with backslashes escaped before quotes.
 */
export const propertyPath = (propertyId: string) => `$."${propertyId.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;

/**
 * The same path as an SQL string literal rather than a bound parameter: a filter
 * repeats its path several times, and D1 allows only 100 bound parameters per
 * statement. Single quotes are doubled, so the literal is safe to inline.
 */
export const propertyPathSql = (propertyId: string): SQL =>
  sql.raw(`'${propertyPath(propertyId).replaceAll("'", "''")}'`);
