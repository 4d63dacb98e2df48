// The row query: one page of a database's rows by filters and sorts (served by the row-value index
// when it can be, else by the rows' JSON), the filters and sorts a saved view stores, and the row
// walk of exports. What the rest of the code uses of it is exported here.
export type { RowFilter, RowSort } from "../../../schemas/databases";
export { allRows, countRows } from "./export-stream";
export { canonicalFilters } from "./filters";
export { ROW_COUNT_CAP, type RowPage, type RowQuery } from "./page";
export { queryRows } from "./query-rows";
export { canonicalSorts } from "./sorts";
