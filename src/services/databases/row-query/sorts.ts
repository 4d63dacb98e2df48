// Sorts as the JSON scan orders by them and as saved views store them; the index plan walks the
// sort property's entries instead (walk.ts).
import { type SQL, sql } from "drizzle-orm";
import type { RowSort } from "../../../schemas/databases";
import { propertyPathSql } from "../property-path";
import type { DatabaseSchema } from "../property-types";
import { namedProperty } from "./filters";
import { valueExpression } from "./value-sources";

/** An ORDER BY term of the sort on row `b`'s JSON, or a 400 at `location[index]` for an unknown property. */
export function sortExpression(schema: DatabaseSchema, sort: RowSort, index: number, location = "sorts"): SQL {
  const property = namedProperty(schema, sort.property, "Sort", `${location}[${index}]`);
  const path = propertyPathSql(property.id);
  // Options sort by name, multi-select by its first option's name, dates as instants.
  const key =
    property.type === "select" || property.type === "status"
      ? sql`(b.properties -> ${path} ->> '$.name')`
      : property.type === "multi_select"
        ? sql`(b.properties -> ${path} ->> '$[0].name')`
        : property.type === "date"
          ? sql`julianday(${valueExpression(property)})`
          : valueExpression(property);
  return sql`${key} ${sql.raw(sort.direction === "asc" ? "ASC" : "DESC")} NULLS LAST`;
}

/** Sorts checked as a query would check them, with canonical property ids: what a saved view stores. */
export function canonicalSorts(schema: DatabaseSchema, sorts: RowSort[], path = "sorts"): RowSort[] {
  return sorts.map((sort, index) => {
    sortExpression(schema, sort, index, path);
    return { ...sort, property: namedProperty(schema, sort.property, "Sort", `${path}[${index}]`).id };
  });
}
