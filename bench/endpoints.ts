// The five read endpoints under load, and how to check an answer before
// measuring it: a fast server that answers the wrong thing proves nothing.
//
// Both servers take the same paths; they differ in who the caller is: the
// Worker gets the API key, the baseline the user id in X-Bench-User.
import { CHAIN_DEPTH, SEARCH_WORD } from "./config.ts";
import type { Fixtures } from "./dataset.ts";

/** Page size of the listings; the Worker's default. */
export const LIST_LIMIT = 50;

export interface Endpoint {
  name: string;
  path: (fixtures: Fixtures) => string;
  /** Blocks a correct answer holds. */
  expectedBlocks: (fixtures: Fixtures) => number;
  /** Whether the two servers must list those blocks in the same order. */
  ordered: boolean;
}

export const ENDPOINTS: readonly Endpoint[] = [
  {
    name: "get-one",
    path: (f) => `/api/v1/blocks/${f.blockId}`,
    expectedBlocks: () => 1,
    ordered: true,
  },
  {
    name: "children",
    path: (f) => `/api/v1/blocks/${f.pageId}/children`,
    expectedBlocks: (f) => f.pageChildCount,
    ordered: true,
  },
  {
    name: "list",
    path: () => `/api/v1/blocks?limit=${LIST_LIMIT}`,
    expectedBlocks: () => LIST_LIMIT,
    ordered: true,
  },
  {
    name: "q search",
    path: () => `/api/v1/blocks?q=${SEARCH_WORD}&limit=${LIST_LIMIT}`,
    expectedBlocks: (f) => f.searchVisibleCount,
    // bm25 ties between equally relevant blocks are broken by seq in SQL, so order is stable.
    ordered: true,
  },
  {
    name: `hierarchy d${CHAIN_DEPTH}`,
    path: (f) => `/api/v1/blocks/${f.chainRootId}/hierarchy?depth=${CHAIN_DEPTH}`,
    expectedBlocks: (f) => f.chainNodeCount,
    // The Worker nests the tree, the baseline returns flat rows: compare as sets.
    ordered: false,
  },
];

/**
 * Block ids in an answer of either server, in answer order: a block, an array of
 * blocks, or a tree (depth-first through `children`).
 */
export function blockIds(body: unknown): string[] {
  if (Array.isArray(body)) return body.flatMap(blockIds);
  if (typeof body !== "object" || body === null || !("id" in body)) return [];
  const children = "children" in body ? blockIds(body.children) : [];
  return [String(body.id), ...children];
}

/** Rows the database holds per the baseline's readiness probe (`GET /`). */
export const blockCountOf = (body: unknown): number =>
  typeof body === "object" && body !== null && "blocks" in body ? Number(body.blocks) : Number.NaN;
