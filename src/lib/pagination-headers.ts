import { digitGroups } from "./digit-groups";

// The headers of a paginated listing, apart from lib/pagination.ts: CORS exposes their names to
// browsers (lib/cors.ts) on every request, while the listing's parameters and queries load with
// the routes that page.

/** Totals above this are not counted exactly; the listing then omits X-Total-Count. */
export const TOTAL_COUNT_CAP = 10_000;

/** The form of an `X-Next-Cursor`: the `cursor` parameter shows it as a JSON Schema example, which the explorer does not pre-fill. */
export const CURSOR_EXAMPLE =
  "eyJsIjoiYmxvY2tzIiwiZiI6IjFzaW42N3AiLCJrIjpbIjIwMjYtMDUtMDRUMTA6MjA6MzAuMTIzWiIsNDJdfVVqWFnT1er-13m5yG8QvyI";

/** Headers of every paginated listing, for the contract. */
export const paginationHeaders = {
  "X-Total-Count": {
    schema: { type: "integer" as const },
    description: `Number of matches (the whole listing, whichever page this is); omitted when above ${digitGroups(TOTAL_COUNT_CAP)}`,
  },
  "X-Pagination-Limit": { schema: { type: "integer" as const }, description: "Page size used" },
  "X-Pagination-Offset": { schema: { type: "integer" as const }, description: "Offset of this page (0 with a cursor)" },
  "X-Has-More": {
    schema: { type: "string" as const, enum: ["true", "false"] },
    description: "Whether more items follow this page",
  },
  "X-Next-Cursor": {
    schema: { type: "string" as const, example: CURSOR_EXAMPLE },
    description:
      "Present when more items follow: send it back as `cursor` (the same user, with the same filters) for the next page, which costs what the first costs",
  },
};

/** The headers exposed to browsers on cross-origin listings. */
export const PAGINATION_HEADER_NAMES = Object.keys(paginationHeaders);
