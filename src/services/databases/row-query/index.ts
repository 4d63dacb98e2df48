// The row query's entry: what the rest of the code uses (queries, the filters and sorts saved views
// store, the export stream); the plans behind it stay inside this folder.
export type { RowFilter, RowSort } from "../../../schemas/databases";
export { allRows, countRows } from "./export-stream";
export { canonicalFilters } from "./filters";
export { ROW_COUNT_CAP, type RowPage, type RowQuery } from "./page";
export { queryRows } from "./query-rows";
export { canonicalSorts } from "./sorts";
