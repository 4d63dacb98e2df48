// The row query: one page of a database's rows by filters and sorts (served by the row-value index
// when it can be, else by the rows' JSON), the filters and sorts a saved view stores, and the row
// walk of exports. What the rest of the code uses of it is exported here.
export {
  allRows,
  canonicalFilters,
  canonicalSorts,
  countRows,
  queryRows,
  ROW_COUNT_CAP,
  type RowFilter,
  type RowPage,
  type RowQuery,
  type RowSort,
} from "./query-rows";
