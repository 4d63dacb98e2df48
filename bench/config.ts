// Knobs of `npm run bench`, in one place. The numbers keep a full run (two sizes,
// five endpoints, two servers) under about ten minutes on a 2-core machine.

/** `npm run bench -- --quick`: one small size and short runs, to check the bench itself works. */
export const QUICK = process.argv.includes("--quick");

/** Dataset sizes, in blocks. The p50 scaling target compares the last with the first. */
export const DATASET_SIZES: readonly number[] = QUICK ? [10_000] : [10_000, 100_000];

/**
 * Load per server and endpoint: concurrent connections, a warm-up, then the
 * measured seconds in `slices`, taking turns with the other servers (see load.ts).
 */
export const LOAD = {
  connections: 10,
  warmupSeconds: QUICK ? 1 : 2,
  measureSeconds: QUICK ? 2 : 8,
  slices: QUICK ? 2 : 4,
} as const;

/**
 * The word planted in the search fixtures. It occurs nowhere else (the filler
 * vocabulary shares no prefix with it), so `q` matches the same blocks at every size.
 */
export const SEARCH_WORD = "zephyrquartz";
/** Blocks carrying SEARCH_WORD, at every size. */
export const SEARCH_PLANTED = 20;

/** Levels below the chain's root: the hierarchy endpoint is asked for exactly this depth. */
export const CHAIN_DEPTH = 25;

/** Pass/fail thresholds printed after the table. */
export const TARGETS = {
  /** Worker req/s divided by baseline req/s, per endpoint and size. */
  minThroughputRatio: 0.8,
  /** Worker p50 at the largest size divided by p50 at the smallest, per endpoint. */
  maxP50Growth: 1.5,
  /** D1 round trips per request of the Worker, per endpoint. */
  maxRoundTrips: 2,
} as const;

/** Seconds to wait for `wrangler dev` to answer before giving up. */
export const SERVER_START_TIMEOUT_SECONDS = 90;
