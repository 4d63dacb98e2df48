// The old path of ./presenter, kept only for services/databases/row-query.ts while that file
// moves; it goes once row-query imports BlockRecord from ./presenter.
export type { BlockRecord } from "./presenter";
