import { type SQL, sql } from "drizzle-orm";
import { badRequest } from "../../lib/errors";
import { LONE_SURROGATE } from "../../lib/lone-surrogates";

/**
 * An id a JSON path can address. SQLite reads a path as a C string, so a NUL
 * ends it early ("bad JSON path"), and a lone surrogate cannot travel as UTF-8:
 * a property with such an id can never be read or written by path.
 */
export const isAddressable = (id: string): boolean => !id.includes("\0") && !LONE_SURROGATE.test(id);

/**
 * JSON path of a property inside `blocks.properties`. Ids are quoted (legacy ids
 * may hold spaces or dots), with backslashes escaped before quotes.
 */
export const propertyPath = (propertyId: string) => `$."${propertyId.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;

/**
 * `text` as an SQL string literal (single quotes doubled, so safe to inline) rather than a bound
 * parameter: a query repeats a property's path or id several times, and D1 allows only 100 bound
 * parameters per statement. The text is of a property id, which can hold anything an older schema
 * gave it: an id no path can address (a record written before ids were checked, or straight to
 * the database) is a 400 naming it, never a statement that fails (a NUL ends the SQL text).
 */
function inlined(propertyId: string, text: string): SQL {
  if (!isAddressable(propertyId)) {
    throw badRequest(
      "This property's id holds NUL or a lone surrogate, which no JSON path can address: its values cannot be filtered, sorted or rewritten. Remove the property and add it again",
      { property_id: propertyId },
    );
  }
  return sql.raw(`'${text.replaceAll("'", "''")}'`);
}

/** The path of a property as an SQL literal (inlined). */
export const propertyPathSql = (propertyId: string): SQL => inlined(propertyId, propertyPath(propertyId));

/** A property id as an SQL literal (inlined), as the row-value index's probes compare it. */
export const propertyIdSql = (propertyId: string): SQL => inlined(propertyId, propertyId);

/**
 * The path of the property whose id is in the SQL column `column` (as propertyPath builds it), or
 * NULL for an id no path can address: a JSON function given NULL answers NULL instead of failing.
 */
export const propertyPathOfColumn = (column: string): string =>
  `CASE WHEN instr(${column}, char(0)) = 0 THEN '$."' || replace(replace(${column}, '\\', '\\\\'), '"', '\\"') || '"' END`;
