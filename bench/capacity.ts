// `npm run bench -- capacity`: what one D1 database costs per request, and a SIMULATION of
// tenant shards. See README.md, Capacity, and docs/scale-out.md.
//
//   1. Seeds a fresh local D1 (bench/seed.ts, CAPACITY.seededBlocks blocks) and adds
//      CAPACITY.users simulated users, each with an API key.
//   2. For each shard count N (CAPACITY.shardCounts): N copies of that state, one `wrangler dev`
//      each (its own --persist-to: its own D1). A directory routes each user to one shard by a
//      hash of the user's id; each user creates its content (a page, a paragraph, a database and
//      a row) on its shard through the API.
//   3. At N = 1 only, the cost phase: each request type of the mix, sequentially, its D1 time
//      and round trips read from the Worker's `Server-Timing` (src/db/round-trips.ts).
//   4. The simulation: the same mix from all users at a fixed offered rate (open loop, the same
//      total at every N), each request sent to its user's shard; per shard, the sum of the D1
//      durations over the wall time (its busy share) and the imbalance max / mean.
//   5. At N = 1, once its server has stopped: bytes on disk per block, row and change event,
//      from the SQLite file's pages (dbstat).
// It is a simulation: the shards are local D1 databases on one machine, not D1 primaries.
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import { generateApiKey } from "../src/auth/api-key-format.ts";
import { defer } from "./cleanup.ts";
import { CAPACITY } from "./config.ts";
import { markdownTable, plainTable } from "./databases.ts";
import { createRandom } from "./dataset.ts";
import { d1MillisecondsOf, percentile, roundTripsOf } from "./load.ts";
import { sqliteFiles } from "./reminders-verify.ts";
import { RESULTS_DIR } from "./report.ts";
import { seedDatabase } from "./seed.ts";
import { inserts, tuple } from "./seed-sql.ts";
import { type BuiltWorker, type Server, startServer } from "./servers.ts";
import { executeFile } from "./wrangler.ts";

type Log = (message: string) => void;

/** A word only the simulated users' pages carry: search finds their pages, not the seeded filler. */
const SEARCH_WORD = "quokkaplan";

interface SimUser {
  id: string;
  apiKey: string;
  shard: number;
  pageId: string;
  paragraphId: string;
  databaseId: string;
  rowId: string;
  /** The user's place in the change feed, as a polling client keeps it. */
  feedCursor: string;
  /** Makes each write's text new, so that every write changes something (and logs it). */
  writes: number;
}

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH";
  path: string;
  body?: unknown;
}

/** The mix's request types: reads, writes and the feed, each as one user sends it. */
const REQUESTS: Record<string, { kind: "read" | "write"; call: (user: SimUser) => Call }> = {
  "get block": { kind: "read", call: (u) => ({ method: "GET", path: `/api/v1/blocks/${u.paragraphId}` }) },
  children: { kind: "read", call: (u) => ({ method: "GET", path: `/api/v1/blocks/${u.pageId}/children` }) },
  list: { kind: "read", call: () => ({ method: "GET", path: "/api/v1/blocks?limit=50" }) },
  search: { kind: "read", call: () => ({ method: "GET", path: `/api/v1/blocks?q=${SEARCH_WORD}&limit=50` }) },
  "page export": { kind: "read", call: (u) => ({ method: "GET", path: `/api/v1/pages/${u.pageId}/export` }) },
  "create block": {
    kind: "write",
    call: (u) => ({
      method: "POST",
      path: "/api/v1/blocks",
      body: { type: "paragraph", parent_id: u.pageId, content: paragraph(`Note ${++u.writes}`) },
    }),
  },
  PATCH: {
    kind: "write",
    call: (u) => ({
      method: "PATCH",
      path: `/api/v1/blocks/${u.paragraphId}`,
      body: { content: paragraph(`Edit ${++u.writes}`) },
    }),
  },
  "create row": {
    kind: "write",
    call: (u) => ({
      method: "POST",
      path: "/api/v1/pages",
      body: { type: "database_row", database_id: u.databaseId, title: `Task ${++u.writes}` },
    }),
  },
  "PUT row": {
    kind: "write",
    call: (u) => ({
      method: "PUT",
      path: `/api/v1/pages/${u.rowId}`,
      body: { properties: { title: `Task renamed ${++u.writes}` } },
    }),
  },
  "feed read": {
    kind: "read",
    call: (u) => ({ method: "GET", path: `/api/v1/changes?limit=50&cursor=${encodeURIComponent(u.feedCursor)}` }),
  },
};
const TYPES = Object.keys(CAPACITY.perUserPerMinute);

const paragraph = (text: string) => ({ rich_text: [{ type: "text", text }] });

interface Sample {
  type: string;
  shard: number;
  status: number;
  ms: number;
  d1Ms: number;
  trips: number;
}

async function send(server: Server, user: SimUser, type: string): Promise<Sample> {
  const spec = REQUESTS[type];
  if (!spec) throw new Error(`No request type ${type}`);
  const call = spec.call(user);
  const started = performance.now();
  const response = await fetch(server.origin + call.path, {
    method: call.method,
    headers: {
      Authorization: `Bearer ${user.apiKey}`,
      ...(call.body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`${type} answered ${response.status}: ${text.slice(0, 300)}`);
  const next = response.headers.get("X-Next-Cursor");
  if (type === "feed read" && next) user.feedCursor = next;
  return {
    type,
    shard: user.shard,
    status: response.status,
    ms,
    d1Ms: d1MillisecondsOf(response.headers) ?? Number.NaN,
    trips: roundTripsOf(response.headers) ?? Number.NaN,
  };
}

// ---------------------------------------------------------------------------------------
// The directory and the users

/** The directory: the first 32 bits of SHA-256 of the user id, modulo the shard count. */
async function shardOf(userId: string, shards: number): Promise<number> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(userId));
  return new DataView(digest).getUint32(0) % shards;
}

interface Account {
  id: string;
  apiKey: string;
}

/** The simulated users and their API keys, added to the seeded D1 (every shard holds every account). */
async function addAccounts(persistDir: string, dir: string): Promise<Account[]> {
  const random = createRandom(27);
  const accounts: Account[] = [];
  const keyRows: string[] = [];
  for (let i = 0; i < CAPACITY.users; i++) {
    const id = random.uuid();
    const key = await generateApiKey();
    accounts.push({ id, apiKey: key.raw });
    keyRows.push(tuple([random.uuid(), id, "Capacity key", key.hash, key.displayPrefix, key.displaySuffix]));
  }
  const users = inserts(
    "INSERT INTO users (id, email, name) VALUES\n",
    accounts.map((account, i) => tuple([account.id, `capacity-${i}@example.com`, `Capacity ${i}`])),
  );
  const keys = inserts(
    "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES\n",
    keyRows,
  );
  const file = join(dir, "capacity-accounts.sql");
  await writeFile(file, [...users, ...keys].join(""));
  await executeFile(persistDir, file);
  return accounts;
}

/** The user's own content, created through the API on its shard: what the mix reads and writes. */
async function createContent(server: Server, account: Account, shard: number): Promise<SimUser> {
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.origin + path, {
      method,
      headers: { Authorization: `Bearer ${account.apiKey}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`Setup ${method} ${path} answered ${response.status}: ${text}`);
    return { json: JSON.parse(text) as { id: string }, headers: response.headers };
  };
  const page = await api("POST", "/api/v1/pages", {
    type: "page",
    title: "Quarterly plan",
    content_markdown: `The ${SEARCH_WORD} for this quarter.\n\nGoals, owners and dates.`,
  });
  const children: string[] = [];
  for (let i = 0; i < 5; i++) {
    const text = i === 0 ? `First step of the ${SEARCH_WORD}` : `Step ${i + 1}`;
    children.push(
      (await api("POST", "/api/v1/blocks", { type: "paragraph", parent_id: page.json.id, content: paragraph(text) }))
        .json.id,
    );
  }
  const database = await api("POST", "/api/v1/pages", { type: "database", title: "Tasks" });
  const row = await api("POST", "/api/v1/pages", {
    type: "database_row",
    database_id: database.json.id,
    title: "Task 0",
  });
  const feed = await api("GET", "/api/v1/changes?since=now");
  return {
    id: account.id,
    apiKey: account.apiKey,
    shard,
    pageId: page.json.id,
    paragraphId: children[0] as string,
    databaseId: database.json.id,
    rowId: row.json.id,
    feedCursor: feed.headers.get("X-Next-Cursor") ?? "",
    writes: 0,
  };
}

// ---------------------------------------------------------------------------------------
// Cost phase: each request type alone, on one database

interface TypeCost {
  type: string;
  kind: "read" | "write";
  perUserPerMinute: number;
  requests: number;
  trips: [number, number];
  /** Round trips per request on average: above the least when the isolate forgot an API key (30 s). */
  tripsMean: number;
  /** The fastest request's D1 time: at most what one trip's transport costs locally. */
  d1Min: number;
  d1P50: number;
  d1P99: number;
  d1Mean: number;
  latencyP50: number;
}

async function measureCosts(server: Server, users: SimUser[]): Promise<TypeCost[]> {
  const samples = new Map<string, Sample[]>(TYPES.map((type) => [type, []]));
  let next = 0;
  const user = () => users[next++ % users.length] as SimUser;
  for (const type of TYPES) for (let i = 0; i < CAPACITY.warmupPerType; i++) await send(server, user(), type);
  const perSlice = Math.ceil(CAPACITY.requestsPerType / CAPACITY.slices);
  for (let slice = 0; slice < CAPACITY.slices; slice++) {
    for (const type of TYPES) {
      for (let i = 0; i < perSlice; i++) samples.get(type)?.push(await send(server, user(), type));
    }
  }
  return TYPES.map((type) => {
    const list = samples.get(type) ?? [];
    const d1 = list.map((sample) => sample.d1Ms);
    const trips = list.map((sample) => sample.trips);
    return {
      type,
      kind: REQUESTS[type]?.kind ?? "read",
      perUserPerMinute: CAPACITY.perUserPerMinute[type] ?? 0,
      requests: list.length,
      trips: [Math.min(...trips), Math.max(...trips)],
      tripsMean: trips.reduce((sum, value) => sum + value, 0) / trips.length,
      d1Min: Math.min(...d1),
      d1P50: percentile(d1, 0.5),
      d1P99: percentile(d1, 0.99),
      d1Mean: d1.reduce((sum, value) => sum + value, 0) / d1.length,
      latencyP50: percentile(
        list.map((sample) => sample.ms),
        0.5,
      ),
    };
  });
}

/** The mix on one database: its mean D1 time per request, and the ceiling that gives. */
interface Model {
  requestsPerUserPerMinute: number;
  meanD1Ms: number;
  meanTrips: number;
  ceilingPerSecond: number;
  /** The same from each type's p50: the mix without the tails a loaded machine adds. */
  p50D1Ms: number;
  p50CeilingPerSecond: number;
  readsPerSecond: number;
  writesPerSecond: number;
  activeUsers: number;
}

function model(costs: readonly TypeCost[]): Model {
  const weight = costs.reduce((sum, cost) => sum + cost.perUserPerMinute, 0);
  const weighted = (pick: (cost: TypeCost) => number) =>
    costs.reduce((sum, cost) => sum + cost.perUserPerMinute * pick(cost), 0) / weight;
  const meanD1Ms = weighted((cost) => cost.d1Mean);
  const ceilingPerSecond = 1000 / meanD1Ms;
  const share = (kind: "read" | "write") =>
    costs.filter((cost) => cost.kind === kind).reduce((sum, cost) => sum + cost.perUserPerMinute, 0) / weight;
  const p50D1Ms = weighted((cost) => cost.d1P50);
  return {
    requestsPerUserPerMinute: weight,
    p50D1Ms,
    p50CeilingPerSecond: 1000 / p50D1Ms,
    meanD1Ms,
    meanTrips: weighted((cost) => cost.tripsMean),
    ceilingPerSecond,
    readsPerSecond: ceilingPerSecond * share("read"),
    writesPerSecond: ceilingPerSecond * share("write"),
    activeUsers: (ceilingPerSecond * 60) / weight,
  };
}

// ---------------------------------------------------------------------------------------
// The simulation: all users at a fixed offered rate, each routed to its shard

interface ShardLoad {
  shard: number;
  users: number;
  requests: number;
  d1Ms: number;
  /** Sum of the D1 durations over the wall time. */
  busy: number;
}

interface SimulationResult {
  shards: number;
  seconds: number;
  requests: number;
  achievedPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  perShard: ShardLoad[];
  meanBusy: number;
  maxBusy: number;
  imbalance: number;
  /** Max / mean of the requests per shard: the directory's spread of this run's work, queueing aside. */
  requestImbalance: number;
}

async function simulate(servers: readonly Server[], users: SimUser[]): Promise<SimulationResult> {
  const random = createRandom(4);
  const weights = TYPES.map((type) => CAPACITY.perUserPerMinute[type] ?? 0);
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  const pickType = () => {
    let roll = random.int(totalWeight);
    for (const [i, weight] of weights.entries()) {
      roll -= weight;
      if (roll < 0) return TYPES[i] as string;
    }
    return TYPES[0] as string;
  };
  const samples: Sample[] = [];
  const failures: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const interval = 1000 / CAPACITY.offeredPerSecond;
  const started = performance.now();
  const end = started + CAPACITY.simulationSeconds * 1000;
  for (let i = 0; ; i++) {
    const due = started + i * interval;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= CAPACITY.maxInFlight) await Promise.race(inFlight);
    const user = users[random.int(users.length)] as SimUser;
    const request = send(servers[user.shard] as Server, user, pickType()).then(
      (sample) => {
        samples.push(sample);
      },
      (error: unknown) => {
        failures.push(error instanceof Error ? error.message : String(error));
      },
    );
    inFlight.add(request);
    request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  // A failed request would leave its shard's load short: the simulation's figures stand only without any.
  if (failures.length > 0) throw new Error(`${failures.length} simulated requests failed; the first: ${failures[0]}`);
  const wallMs = performance.now() - started;
  const perShard = servers.map((_, shard) => {
    const mine = samples.filter((sample) => sample.shard === shard);
    const d1Ms = mine.reduce((sum, sample) => sum + sample.d1Ms, 0);
    return {
      shard,
      users: users.filter((user) => user.shard === shard).length,
      requests: mine.length,
      d1Ms,
      busy: d1Ms / wallMs,
    };
  });
  const busy = perShard.map((load) => load.busy);
  const meanBusy = busy.reduce((sum, value) => sum + value, 0) / busy.length;
  const latencies = samples.map((sample) => sample.ms);
  const requests = perShard.map((load) => load.requests);
  return {
    shards: servers.length,
    seconds: wallMs / 1000,
    requests: samples.length,
    achievedPerSecond: samples.length / (wallMs / 1000),
    latencyP50: percentile(latencies, 0.5),
    latencyP99: percentile(latencies, 0.99),
    perShard,
    meanBusy,
    maxBusy: Math.max(...busy),
    imbalance: Math.max(...busy) / meanBusy,
    requestImbalance: Math.max(...requests) / (samples.length / servers.length),
  };
}

/** How evenly the directory's hash spreads many users: max / mean users per shard. No server involved. */
async function spread(): Promise<{ shards: number; users: number; maxOverMean: number }[]> {
  const random = createRandom(99);
  const ids = Array.from({ length: CAPACITY.spreadUsers }, () => random.uuid());
  return Promise.all(
    CAPACITY.spreadShardCounts.map(async (shards) => {
      const counts = new Array<number>(shards).fill(0);
      for (const id of ids) {
        const shard = await shardOf(id, shards);
        counts[shard] = (counts[shard] ?? 0) + 1;
      }
      return { shards, users: ids.length, maxOverMean: Math.max(...counts) / (ids.length / shards) };
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Bytes on disk

interface Storage {
  totalBytes: number;
  blocks: number;
  rows: number;
  events: number;
  /** The blocks table, its indexes and its full-text index, per block. */
  bytesPerBlock: number;
  /** The row-value index, per database row (on top of the row's bytes as a block). */
  rowValueBytesPerRow: number;
  /** change_events and its indexes, per event. */
  bytesPerEvent: number;
  /** avg(length(data)) of the events: the object as it was after the change. */
  eventDataBytes: number;
  /** The largest tables and indexes, bytes. */
  objects: { name: string; bytes: number }[];
}

/** Opens a stopped server's SQLite file; a runtime just killed can hold its lock for a moment. */
async function openWhenReleased(file: string): Promise<DatabaseSync> {
  for (let attempt = 1; ; attempt++) {
    try {
      const db = new DatabaseSync(file, { readOnly: true });
      db.prepare("PRAGMA page_count").get();
      return db;
    } catch (error) {
      if (!String(error).includes("locked") || attempt === 20) throw error;
      await sleep(500);
    }
  }
}

async function measureStorage(persistDir: string): Promise<Storage> {
  const files = await sqliteFiles(persistDir, "d1/miniflare-D1DatabaseObject");
  if (files.length !== 1) throw new Error(`Expected one D1 database under ${persistDir}, found ${files.length}`);
  const db = await openWhenReleased(files[0] as string);
  try {
    const one = (sql: string) => Number(Object.values(db.prepare(sql).get() ?? {})[0] ?? 0);
    const pageSize = one("PRAGMA page_size");
    const totalBytes = one("PRAGMA page_count") * pageSize;
    const objects = (
      db
        .prepare(
          `SELECT d.name AS name, coalesce(m.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes
           FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY d.name ORDER BY bytes DESC`,
        )
        .all() as { name: string; tbl: string; bytes: number }[]
    ).map((row) => ({ name: row.name, table: row.tbl, bytes: Number(row.bytes) }));
    const bytesOf = (match: (table: string) => boolean) =>
      objects.filter((object) => match(object.table)).reduce((sum, object) => sum + object.bytes, 0);
    const blocks = one("SELECT count(*) FROM blocks");
    const rows = one("SELECT count(*) FROM blocks WHERE type = 'database_row'");
    const events = one("SELECT count(*) FROM change_events");
    return {
      totalBytes,
      blocks,
      rows,
      events,
      bytesPerBlock: bytesOf((table) => table === "blocks" || table.startsWith("blocks_search")) / blocks,
      rowValueBytesPerRow: bytesOf((table) => table === "row_values") / rows,
      bytesPerEvent: bytesOf((table) => table === "change_events") / Math.max(1, events),
      eventDataBytes: one("SELECT coalesce(avg(length(data)), 0) FROM change_events"),
      objects: objects.slice(0, 8).map(({ name, bytes }) => ({ name, bytes })),
    };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------
// Report

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const range = ([low, high]: [number, number]) => (low === high ? String(low) : `${low}-${high}`);

const COST_HEADERS = [
  "request",
  "kind",
  "per user/min",
  "n",
  "D1 trips",
  "D1 ms min",
  "D1 ms p50",
  "D1 ms p99",
  "D1 ms mean",
  "latency p50 ms",
];
const costRows = (costs: readonly TypeCost[]) =>
  costs.map((cost) => [
    cost.type,
    cost.kind,
    String(cost.perUserPerMinute),
    String(cost.requests),
    range(cost.trips),
    fixed(cost.d1Min),
    fixed(cost.d1P50),
    fixed(cost.d1P99),
    fixed(cost.d1Mean, 2),
    fixed(cost.latencyP50),
  ]);

const MODEL_HEADERS = ["measure", "value"];
const modelRows = (m: Model, storage: Storage | null): string[][] => [
  ["requests per active user per minute (the profile)", String(m.requestsPerUserPerMinute)],
  ["mean D1 ms per request of the mix", fixed(m.meanD1Ms, 2)],
  ["mean D1 round trips per request of the mix", fixed(m.meanTrips, 2)],
  ["ceiling of one database: requests/s = 1000 / mean D1 ms", fixed(m.ceilingPerSecond, 0)],
  ["  of which reads/s (feed included)", fixed(m.readsPerSecond, 0)],
  ["  of which writes/s", fixed(m.writesPerSecond, 0)],
  ["active users at peak one database serves", fixed(m.activeUsers, 0)],
  ["the mix from each type's p50 D1 ms: ms per request", fixed(m.p50D1Ms, 2)],
  ["  ceiling from the p50s, requests/s", fixed(m.p50CeilingPerSecond, 0)],
  ["  active users at peak from the p50s", fixed((m.p50CeilingPerSecond * 60) / m.requestsPerUserPerMinute, 0)],
  ...(storage
    ? [
        ["bytes on disk (page_count * page_size)", storage.totalBytes.toLocaleString("en")],
        ["blocks / database rows / change events", `${storage.blocks} / ${storage.rows} / ${storage.events}`],
        ["bytes per block (blocks + indexes + full-text)", fixed(storage.bytesPerBlock, 0)],
        ["row-value index bytes per database row", fixed(storage.rowValueBytesPerRow, 0)],
        ["bytes per change event (table + indexes)", fixed(storage.bytesPerEvent, 0)],
        ["avg event data bytes", fixed(storage.eventDataBytes, 0)],
      ]
    : []),
];

const SIM_HEADERS = [
  "N",
  "shard",
  "users",
  "requests",
  "D1 ms",
  "D1 ms/request",
  "D1 share %",
  "share max/mean",
  "requests max/mean",
  "latency p50/p99 ms",
];
const simulationRows = (results: readonly SimulationResult[]) =>
  results.flatMap((result) =>
    result.perShard.map((load) => [
      String(result.shards),
      String(load.shard),
      String(load.users),
      String(load.requests),
      fixed(load.d1Ms, 0),
      fixed(load.d1Ms / load.requests, 1),
      fixed(load.busy * 100, 1),
      load.shard === 0 ? fixed(result.imbalance, 2) : "",
      load.shard === 0 ? fixed(result.requestImbalance, 2) : "",
      load.shard === 0 ? `${fixed(result.latencyP50, 0)}/${fixed(result.latencyP99, 0)}` : "",
    ]),
  );

export interface CapacityReport {
  startedAt: string;
  durationSeconds: number;
  loadAtStart: number;
  settings: typeof CAPACITY;
  costs: TypeCost[];
  model: Model;
  storage: Storage | null;
  simulations: SimulationResult[];
  spread: { shards: number; users: number; maxOverMean: number }[];
  notes: string[];
}

function notesFor(loadAtStart: number): string[] {
  return [
    `SIMULATION: the shards are ${CAPACITY.shardCounts.join("/")} local D1 databases (one wrangler dev each, its own --persist-to) on one ${availableParallelism()}-core machine, not D1 primaries; the directory is SHA-256(user id) mod N, held by the client.`,
    `Each database holds the ${CAPACITY.seededBlocks.toLocaleString("en")} seeded blocks and every account; each of the ${CAPACITY.users} users' content (a page, 5 paragraphs, a database, a row) is created on its shard only.`,
    `Cost phase (N = 1): ${CAPACITY.requestsPerType} sequential requests per type after ${CAPACITY.warmupPerType} of warm-up, in ${CAPACITY.slices} slices taking turns. D1 ms is the Worker's Server-Timing d1 dur: the time its D1 calls took, seen from the Worker.`,
    `Simulation: ${CAPACITY.offeredPerSecond} requests/s offered in total (open loop, at most ${CAPACITY.maxInFlight} in flight) for ${CAPACITY.simulationSeconds} s per N; users and types drawn by a seeded generator, types in the profile's proportions. D1 share % = sum of the shard's D1 ms / wall time: the database's busy time while it stays under 100%; above, requests overlapped at it (queued), so the figure counts waiting too and the share's max/mean exaggerates the spread (the requests' max/mean does not).`,
    `1-min load average ${loadAtStart.toFixed(2)} at start.`,
  ];
}

function markdown(report: CapacityReport): string {
  return [
    `# Capacity (${report.startedAt}, ${report.durationSeconds.toFixed(0)} s)`,
    "",
    "## D1 time per request type (one database)",
    "",
    ...markdownTable(COST_HEADERS, costRows(report.costs)),
    "",
    "## Model",
    "",
    ...markdownTable(MODEL_HEADERS, modelRows(report.model, report.storage)),
    "",
    "## Simulation: users routed to N local D1 databases",
    "",
    ...markdownTable(SIM_HEADERS, simulationRows(report.simulations)),
    "",
    ...report.spread.map(
      (s) => `- Directory spread, ${s.users} user ids over ${s.shards} shards: max/mean ${fixed(s.maxOverMean, 3)}`,
    ),
    "",
    ...report.notes.map((note) => `- ${note}`),
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------

export async function runCapacityBench(log: Log, runDir: string, worker: BuiltWorker): Promise<number> {
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const [loadAtStart = 0] = loadavg();
  const dir = join(runDir, "capacity");
  await mkdir(dir, { recursive: true });
  log(`Capacity: seeding ${CAPACITY.seededBlocks} blocks and ${CAPACITY.users} users in a fresh local D1`);
  const { workerState } = await seedDatabase(CAPACITY.seededBlocks, dir);
  const accounts = await addAccounts(workerState, dir);

  let costs: TypeCost[] = [];
  let storage: Storage | null = null;
  const simulations: SimulationResult[] = [];
  for (const shards of CAPACITY.shardCounts) {
    const states = Array.from({ length: shards }, (_, i) => join(dir, `n${shards}`, `shard-${i}`));
    for (const state of states) await cp(workerState, state, { recursive: true });
    const servers = await Promise.all(states.map((state) => startServer(worker, state, "/")));
    const stops = servers.map((server) => defer(server.stop));
    const users: SimUser[] = [];
    for (const account of accounts) {
      const shard = await shardOf(account.id, shards);
      users.push(await createContent(servers[shard] as Server, account, shard));
    }
    log(
      `Capacity: N = ${shards}: ${shards} server(s) up, users per shard ${servers.map((_, i) => users.filter((u) => u.shard === i).length).join("/")}`,
    );
    if (shards === 1) {
      costs = await measureCosts(servers[0] as Server, users);
      for (const cost of costs)
        log(`Capacity: ${cost.type.padEnd(12)} D1 ${fixed(cost.d1P50)} ms p50, ${range(cost.trips)} trips`);
    }
    const result = await simulate(servers, users);
    simulations.push(result);
    log(
      `Capacity: SIMULATION N = ${shards}: ${fixed(result.achievedPerSecond, 0)} req/s, D1 share per shard ${result.perShard.map((load) => `${fixed(load.busy * 100)}%`).join(" / ")}, max/mean ${fixed(result.imbalance, 2)}`,
    );
    for (const stop of stops) await stop();
    if (shards === 1) storage = await measureStorage(states[0] as string);
    await rm(join(dir, `n${shards}`), { recursive: true, force: true });
  }
  const directorySpread = await spread();

  const report: CapacityReport = {
    startedAt,
    durationSeconds: (performance.now() - began) / 1000,
    loadAtStart,
    settings: CAPACITY,
    costs,
    model: model(costs),
    storage,
    simulations,
    spread: directorySpread,
    notes: notesFor(loadAtStart),
  };
  console.log(`\n${plainTable(COST_HEADERS, costRows(report.costs))}\n`);
  console.log(`${plainTable(MODEL_HEADERS, modelRows(report.model, report.storage))}\n`);
  console.log("SIMULATION (local D1 databases on one machine, not D1 primaries):");
  console.log(`${plainTable(SIM_HEADERS, simulationRows(report.simulations))}\n`);
  for (const s of report.spread)
    console.log(`Directory spread, ${s.users} user ids over ${s.shards} shards: max/mean ${fixed(s.maxOverMean, 3)}`);
  for (const note of report.notes) console.log(`* ${note}`);
  await mkdir(RESULTS_DIR, { recursive: true });
  for (const base of [`capacity-${startedAt.replace(/[:.]/g, "-")}`, "capacity-latest"]) {
    await writeFile(join(RESULTS_DIR, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(RESULTS_DIR, `${base}.md`), markdown(report));
  }
  log(`Capacity: wrote ${join(RESULTS_DIR, "capacity-latest.md")} (and .json)`);
  return 0;
}
