// Knobs of `npm run bench`, in one place. With these numbers a full run (content, reminders,
// databases, then two sizes of five read endpoints and two media endpoints) takes about 36 minutes
// on a 2-core machine.

/** `npm run bench -- --quick`: one small size and short runs, to check the bench itself works. */
export const QUICK = process.argv.includes("--quick");

/** Dataset sizes, in blocks. The p50 scaling target compares the last with the first. */
export const DATASET_SIZES: readonly number[] = QUICK ? [10_000] : [10_000, 100_000];

/**
 * Load per server and endpoint: concurrent connections, a warm-up, then the measured seconds in
 * `slices`, taking turns with the other servers (see load.ts). 16 s in 8 slices of 2 s: this
 * machine's throughput swings on its own (the bare baseline alone under load went between 97 and
 * 384 requests a second from one second to the next, in phases of several seconds: `npm run
 * bench:noise`, docs/performance.md "How precise a ratio is"). Replayed over four equal servers
 * taking turns as the reads do, a ratio measured over 8 s had a standard deviation of 0.085 (equal
 * servers under 0.9 in 9% of cells), over 16 s 0.052 (2%). The writes take the same measure.
 */
export const LOAD = {
  connections: 10,
  warmupSeconds: QUICK ? 1 : 2,
  measureSeconds: QUICK ? 2 : 16,
  slices: QUICK ? 2 : 8,
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

/** Size of the file the media endpoints upload and download: 1 MiB. */
export const MEDIA_FILE_BYTES = 1024 * 1024;

/** Pass/fail thresholds printed after the table. */
export const TARGETS = {
  /** Worker req/s divided by baseline req/s, per endpoint and size (the read endpoints and the signed download). */
  minThroughputRatio: 0.9,
  /** The MCP server's `tools/call` of get_page over GET /api/v1/pages/{id} plus its markdown export, in cost per request (bench/mcp.ts). */
  maxMcpGetPageCostRatio: 1.2,
  /** Worker p50 at the largest size divided by p50 at the smallest, per endpoint. */
  maxP50Growth: 1.5,
  /** D1 round trips per request of the Worker, per read endpoint. */
  maxRoundTrips: 2,
  /**
   * The upload's throughput ratio: the reads' 0.8 times 0.7, the share of the
   * baseline's throughput a bare Worker kept when it also did the upload's own
   * extra work (parse the multipart body, sniff the type, hash the 1 MiB with
   * SHA-256, mark the record ready after the put: 0.72-0.75). See README.md.
   */
  minUploadThroughputRatio: 0.55,
  /** The upload's D1 round trips: the record inserted hidden, then made ready; plus the API-key lookup when the isolate does not remember the key. */
  maxUploadRoundTrips: 3,
  /** A signed link is its own credential: serving one costs no D1 round trip. */
  maxSignedDownloadRoundTrips: 0,
} as const;

/**
 * Each credential's quota while the bench runs (API_RATE_LIMIT_REQUESTS and the API_RATE_LIMITER
 * binding of its copy of wrangler.toml, a minute's window): one API key drives every load, far past
 * any client's quota, and a 429 would fail the run. The Worker still counts every request, and so do
 * both baselines (the same binding at the same quota, in their own wrangler.toml): only the refusal
 * is lifted (the most src/auth/credential-limit.ts takes).
 */
export const BENCH_CREDENTIAL_QUOTA = 1_000_000;

/** Seconds to wait for `wrangler dev` to answer before giving up. */
export const SERVER_START_TIMEOUT_SECONDS = 90;

/**
 * `npm run bench -- reminders` (and part of the full run): REMINDERS.users users with
 * REMINDERS.perUser reminders each, all due, dispatched by one cron tick. See README.md.
 */
export const REMINDERS = {
  users: 1_000,
  perUser: 10,
  /**
   * The first this many users' reminders are `push` (the rest `in_app`), each user with one
   * Web Push subscription at the bench's loopback push receiver. 100 push reminders check
   * pushes at scale; with 500, their alarm runs (encrypting and signing each push) made the
   * drain's tail and its spread longer.
   */
  pushUsers: 10,
  /** Give up waiting for the drain after this long (each server). */
  drainTimeoutSeconds: 120,
  /** After the drain, keep the server up this long: a late duplicate firing would land in it. */
  settleSeconds: 3,
  /**
   * The Worker's drain time divided by the baseline's. Measured 3.6-6.4x, median 4.4x, on
   * this 2-core machine (2026-11-23, 18 runs; the Worker's drain alone varies 8-17 s): see README.md.
   */
  maxDrainRatio: 8,
  /**
   * The Worker's D1 round trips per reminder, the sweep's included: an alarm run of a user's
   * 10 firings costs 2 (read, write batch), 4 when it pushes (claim, outcomes): 0.202 here.
   * A third round trip in every run would make 0.3.
   */
  maxQueriesPerReminder: 0.25,
} as const;

/**
 * `npm run bench -- databases` (and part of the full run): row queries at databases of
 * these sizes, writes, a duplicate, a CSV export, cursors and the bundle. See README.md.
 * `--quick` leaves out the 100,000-row database and shortens every run.
 */
export const DATABASES = {
  /** Rows of the databases the row queries run on, one database per size; the growth target compares the last with the first. */
  sizes: QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000],
  /** Page size of every row query. */
  limit: 50,
  /**
   * Sequential requests per query, size and server: discarded warm-up, then measured in `slices` taking
   * turns. 60: with 30, a query's p50 at 100k moved by up to 40% between two quiet runs (text = 1%:
   * 26.9 and 19.1 ms), more than the 1.5x growth target leaves.
   */
  warmupRequests: QUICK ? 2 : 4,
  requests: QUICK ? 12 : 60,
  slices: QUICK ? 2 : 4,
  /** Repeats of page 1 and of the deep page, taking turns, once the cursor walk is done. */
  deepPageRepeats: QUICK ? 10 : 20,
  /** The change feed: events a page, and the page timed against page 1 after a walk by cursor (the seed's row creations fill it). */
  feedLimit: 100,
  feedPage: QUICK ? 100 : 1_000,
  /** Webhook delivery latency: pages created at this pace, one webhook on a local receiver, and how long to wait for the last delivery. */
  delivery: { pages: QUICK ? 50 : 200, intervalMs: 100, waitSeconds: 30 },
  /** Writes: sequential (1 connection) and with modest concurrency, per server, taking turns (see load.ts); 16 s in 8 slices, as LOAD. */
  writeConnections: [1, 4] as readonly number[],
  writeLoad: QUICK
    ? { connections: 1, warmupSeconds: 1, measureSeconds: 2, slices: 2 }
    : { connections: 1, warmupSeconds: 1, measureSeconds: 16, slices: 8 },
  /** Blocks of the tree duplicated, and how many times (each copy from the original). */
  duplicateBlocks: 1_000,
  duplicateRepeats: QUICK ? 3 : 5,
  /** The bulk-rows endpoint: this many requests of `rowsPerRequest` rows into a fresh database. */
  bulkRequests: QUICK ? 10 : 100,
  bulkRowsPerRequest: 1_000,
  targets: {
    /** Worker p50 at the largest database over p50 at the smallest, per query. */
    maxGrowth: 1.5,
    /** Worker write throughput over the baseline's, per write and concurrency. */
    minWriteRatio: 0.85,
    /** The same against the baseline on a state without the change log's triggers: what the log may cost. */
    minWriteRatioWithoutLog: 0.8,
    /**
     * The same with a fresh Idempotency-Key on every request, against the same bare baseline: the
     * key costs two more D1 round trips (reserve it, record the answer) around the write's one, and
     * locally round trips are most of a write's time, so the writes' 0.8 over three trips (0.27),
     * rounded up as the two added statements are lighter than the write.
     */
    minKeyedWriteRatio: 0.3,
    /** D1 round trips of a row write (create row, PUT row), the API key remembered. */
    maxRowWriteRoundTrips: 2,
    /** The production Worker's upload (`npm run build`), gzip level 9, in KB (issue 27). */
    maxProductionGzipKB: 600,
    /** The production Worker's startup CPU as `wrangler check startup` measures it ("Active"), in ms (issue 27). */
    maxStartupMs: 100,
  },
} as const;

/**
 * `npm run bench -- capacity`: what one D1 database costs per request of a stated mix, and a
 * SIMULATION of tenant shards (users routed by a hash of their id to one of N local D1 databases).
 * See README.md, Capacity, and docs/scale-out.md. `--quick` shortens every run.
 */
export const CAPACITY = {
  /** Blocks seeded into every database before the users' own content (bench/dataset.ts). */
  seededBlocks: 10_000,
  /** Simulated users, each with an API key, a page, a paragraph, a database and a row on its shard. */
  users: 32,
  /**
   * The activity profile: requests an active user makes per minute at peak, by type. Also the mix's
   * weights: the cost phase and the simulation draw request types in these proportions.
   */
  perUserPerMinute: {
    "get block": 6,
    children: 4,
    list: 2,
    search: 1,
    "page export": 1,
    "create block": 2,
    PATCH: 4,
    "create row": 1,
    "PUT row": 1,
    "feed read": 2,
  } as Record<string, number>,
  /** Cost phase, on one database: sequential requests per type, after a warm-up, in slices taking turns. */
  warmupPerType: QUICK ? 2 : 4,
  requestsPerType: QUICK ? 12 : 60,
  slices: QUICK ? 2 : 4,
  /**
   * Simulation: shard counts, the total offered rate (open loop, the same at every N) and how long.
   * The rate stays below what one local server takes on this 2-core machine: at 30/s the single
   * workerd of N = 1 saturated (latency and D1 time then count waiting in the runtime, not D1 work),
   * so the simulation shows how the load splits, not where one database saturates.
   */
  shardCounts: [1, 2, 4] as readonly number[],
  offeredPerSecond: 15,
  simulationSeconds: QUICK ? 6 : 20,
  /** Requests in flight at most (a request due while this many are out waits). */
  maxInFlight: 32,
  /** User ids hashed over N shards for the directory's spread at scale (no server involved). */
  spreadUsers: 100_000,
  spreadShardCounts: [2, 4, 16, 64] as readonly number[],
} as const;
