// `npm run bench -- databases` (and a section of the full run): databases at scale, against
// a bare baseline Worker measured in the same run (baseline-databases/):
//
//   1. row queries (POST /api/v1/databases/{id}/query) at databases of 1k, 10k and 100k
//      rows, sequential requests, p50 and p95; the Worker's growth 100k / 1k, and its
//      ratio to the baseline running the row query's SQL as it was before the row-value
//      index (JSON read from every row);
//   2. a cursor walk to page 2,000 of the largest database, then that page against page 1;
//   3. the CSV export of the largest database: time, bytes, workerd's memory;
//   4. the duplicate of a 1,000-block tree;
//   5. writes (create block, PATCH block, PUT page, create row, PUT row): throughput
//      sequential and at modest concurrency against the baseline doing the same D1 work,
//      and the Worker's D1 round trips per write;
//   6. the bulk-rows endpoint, if it answers: rows/s into a fresh database;
//   7. the bundle: gzip size of the built Worker and of the explorer's assets (the development
//      build, which the bench serves), and of the production build (`npm run build`) with its
//      startup CPU as `wrangler check startup` measures it.
//
// See README.md, Databases.
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { type BundleFile, builtModules } from "./bundle-files.ts";
import { defer } from "./cleanup.ts";
import { DATABASES } from "./config.ts";
import { type DatabasesSeed, NAMES, NOTES, type SeededTable, seedDatabases, storedValues } from "./databases-seed.ts";
import {
  type LoadResult,
  type LoadTarget,
  measureInTurn,
  percentile,
  REQUEST_NUMBER,
  ratioText,
  roundTripsOf,
} from "./load.ts";
import { formatTargets, RESULTS_DIR, type TargetCheck, targetsMarkdown } from "./report.ts";
import { type BuiltWorker, build, type Server, startBoth, startServer, type WorkerSpec } from "./servers.ts";
import { type DeliveryLatency, measureDeliveryLatency } from "./webhook-latency.ts";
import {
  buildProductionWorker,
  PROJECT_ROOT,
  productionStartupMs,
  queryLocal,
  workerCompatibilityDate,
} from "./wrangler.ts";

export const BASELINE: WorkerSpec = {
  name: "databases baseline",
  config: "bench/baseline-databases/wrangler.toml",
  entry: "worker.js",
};

type Log = (message: string) => void;

// ---------------------------------------------------------------------------------------
// Requests

interface Side {
  server: Server;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  ms: number;
  headers: Headers;
  text: string;
}

async function request(
  side: Side,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(side.server.origin + path, {
    method,
    headers: { ...side.headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, headers: response.headers, text };
}

const parse = <T>(answer: Answer, what: string): T => {
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as T;
};

const fixed = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
const compact = (size: number) => (size >= 1000 && size % 1000 === 0 ? `${size / 1000}k` : String(size));

/**
 * Sequential requests to several targets taking turns: a warm-up each (discarded), then
 * `requests` each in `slices` rounds (A B C ... A B C ...), so a change in background load
 * weighs on every target alike. Returns each target's latencies (ms) and non-2xx count.
 */
async function sequentialInTurn(
  targets: readonly (() => Promise<Answer>)[],
  settings: { warmup: number; requests: number; slices: number },
): Promise<{ latencies: number[]; failures: number; firstFailure: string | null }[]> {
  const results = targets.map(() => ({ latencies: [] as number[], failures: 0, firstFailure: null as string | null }));
  for (const send of targets) for (let i = 0; i < settings.warmup; i++) await send();
  const perSlice = Math.ceil(settings.requests / settings.slices);
  for (let slice = 0; slice < settings.slices; slice++) {
    for (const [index, send] of targets.entries()) {
      const result = results[index];
      if (!result) continue;
      for (let i = 0; i < perSlice; i++) {
        const answer = await send();
        if (answer.status >= 200 && answer.status < 300) result.latencies.push(answer.ms);
        else {
          result.failures += 1;
          result.firstFailure ??= `${answer.status} ${answer.text.slice(0, 200)}`;
        }
      }
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------
// Row queries

interface RowQueryBody {
  filters?: { property: string; operator: string; value: unknown }[];
  sorts?: { property: string; direction: "asc" | "desc" }[];
  limit?: number;
  offset?: number;
  cursor?: string;
}

const byNumber = [{ property: NAMES.number, direction: "asc" as const }];

/** The queries of issue 13's list: each filter sorted by the number property, three sorts, the default order. */
export const QUERIES: { name: string; body: RowQueryBody }[] = [
  {
    name: "status = In progress",
    body: { filters: [{ property: NAMES.status, operator: "equals", value: "In progress" }], sorts: byNumber },
  },
  {
    name: "select = High",
    body: { filters: [{ property: NAMES.select, operator: "equals", value: "High" }], sorts: byNumber },
  },
  {
    name: "checkbox = true",
    body: { filters: [{ property: NAMES.checkbox, operator: "equals", value: true }], sorts: byNumber },
  },
  {
    name: "number > 900",
    body: { filters: [{ property: NAMES.number, operator: "greater_than", value: 900 }], sorts: byNumber },
  },
  {
    name: "date on_or_after",
    body: { filters: [{ property: NAMES.date, operator: "on_or_after", value: "2026-10-01" }], sorts: byNumber },
  },
  {
    name: "text = (1% of rows)",
    body: { filters: [{ property: NAMES.text, operator: "equals", value: NOTES[3] }], sorts: byNumber },
  },
  {
    name: "multi contains",
    body: { filters: [{ property: NAMES.multi, operator: "contains", value: "Backend" }], sorts: byNumber },
  },
  { name: "sort by number", body: { sorts: byNumber } },
  { name: "sort by date", body: { sorts: [{ property: NAMES.date, direction: "asc" }] } },
  { name: "sort by status", body: { sorts: [{ property: NAMES.status, direction: "asc" }] } },
  { name: "default order", body: {} },
];

interface QuerySize {
  size: number;
  worker: { p50: number; p95: number; failures: number };
  baseline: { p50: number; p95: number; failures: number };
  /** Rows of the first page (both must agree). */
  rows: number;
  /** The first page holds the same rows in the same order on both servers. */
  agree: boolean;
  disagreement: string | null;
  roundTrips: number | null;
  /** The Worker's X-Total-Count (capped) and whether it sent X-Next-Cursor. */
  total: string | null;
  nextCursor: boolean;
}

interface QueryResult {
  name: string;
  body: RowQueryBody;
  sizes: QuerySize[];
}

const queryPath = (table: SeededTable) => `/api/v1/databases/${table.id}/query`;

function firstDifference(worker: string[], baseline: string[]): string | null {
  if (worker.length !== baseline.length) return `${worker.length} rows against the baseline's ${baseline.length}`;
  const at = worker.findIndex((id, i) => id !== baseline[i]);
  return at === -1 ? null : `row ${at + 1} differs (${worker[at]} against ${baseline[at]})`;
}

async function measureQuery(
  query: (typeof QUERIES)[number],
  tables: readonly SeededTable[],
  worker: Side,
  baseline: Side,
): Promise<QueryResult> {
  const body = { ...query.body, limit: DATABASES.limit };
  // One answer from each first: the rows must agree, and the Worker tells its round trips.
  const probes = await Promise.all(
    tables.map(async (table) => {
      const w = await request(worker, "POST", queryPath(table), body);
      const b = await request(baseline, "POST", queryPath(table), body);
      const workerIds = parse<{ id: string }[]>(w, `Worker ${query.name} @ ${compact(table.rows)}`).map(
        (row) => row.id,
      );
      const baselineIds = parse<{ id: string }[]>(b, `baseline ${query.name}`).map((row) => row.id);
      // A second Worker answer, warm: the round trips a request costs once the API key is remembered.
      const again = await request(worker, "POST", queryPath(table), body);
      return {
        workerIds,
        disagreement: firstDifference(workerIds, baselineIds),
        roundTrips: roundTripsOf(again.headers),
        total: w.headers.get("X-Total-Count"),
        nextCursor: w.headers.has("X-Next-Cursor"),
      };
    }),
  );
  const sends = tables.flatMap((table) => [
    () => request(worker, "POST", queryPath(table), body),
    () => request(baseline, "POST", queryPath(table), body),
  ]);
  const timings = await sequentialInTurn(sends, {
    warmup: DATABASES.warmupRequests,
    requests: DATABASES.requests,
    slices: DATABASES.slices,
  });
  const stats = (i: number) => {
    const t = timings[i];
    return {
      p50: percentile(t?.latencies ?? [], 0.5),
      p95: percentile(t?.latencies ?? [], 0.95),
      failures: t?.failures ?? 0,
    };
  };
  return {
    name: query.name,
    body,
    sizes: tables.map((table, i) => {
      const probe = probes[i];
      return {
        size: table.rows,
        worker: stats(2 * i),
        baseline: stats(2 * i + 1),
        rows: probe?.workerIds.length ?? 0,
        agree: probe?.disagreement === null,
        disagreement: probe?.disagreement ?? "not measured",
        roundTrips: probe?.roundTrips ?? null,
        total: probe?.total ?? null,
        nextCursor: probe?.nextCursor ?? false,
      };
    }),
  };
}

// ---------------------------------------------------------------------------------------
// The change feed: page N by cursor against page 1

interface FeedPages {
  limit: number;
  page: number;
  /** The walk from page 1 to page N: requests, seconds, events seen (all distinct and rising?). */
  walk: { requests: number; seconds: number; events: number; distinct: number; p50: number };
  page1: number;
  deepPage: number;
  note: string | null;
}

/**
 * Walks the change feed (GET /api/v1/changes, oldest first) by cursor to page
 * `DATABASES.feedPage`, then times page 1 and that page taking turns. The seeded rows are the
 * bench user's, so their creations alone fill the feed past that page.
 */
async function measureFeed(worker: Side, log: Log): Promise<FeedPages> {
  const { feedLimit: limit, feedPage: page } = DATABASES;
  const path = (cursor?: string) =>
    `/api/v1/changes?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
  log(`Databases: walking the change feed by cursor to page ${page} (${limit} events a page)`);
  const seen = new Set<number>();
  const latencies: number[] = [];
  let note: string | null = null;
  let last = 0;
  let count = 0;
  let cursor: string | null = null;
  const started = performance.now();
  for (let n = 1; n < page; n++) {
    const answer = await request(worker, "GET", path(cursor ?? undefined));
    if (n > 1) latencies.push(answer.ms);
    const events = parse<{ id: number }[]>(answer, `feed page ${n}`);
    for (const event of events) {
      if (event.id <= last && note === null) note = `event ${event.id} came after ${last}`;
      last = event.id;
      seen.add(event.id);
      count += 1;
    }
    cursor = answer.headers.get("X-Next-Cursor");
    if (!cursor || events.length < limit) {
      note ??= `the feed ended at page ${n}`;
      break;
    }
  }
  const walk = {
    requests: latencies.length + 1,
    seconds: (performance.now() - started) / 1000,
    events: count,
    distinct: seen.size,
    p50: percentile(latencies, 0.5),
  };
  const deepCursor = cursor ?? "";
  const deep = parse<unknown[]>(await request(worker, "GET", path(deepCursor)), `feed page ${page}`);
  if (deep.length !== limit) note ??= `page ${page} held ${deep.length} events`;
  const timings = await sequentialInTurn(
    [() => request(worker, "GET", path()), () => request(worker, "GET", path(deepCursor))],
    {
      warmup: 2,
      requests: DATABASES.deepPageRepeats,
      slices: 2,
    },
  );
  const p50 = (i: number) => percentile(timings[i]?.latencies ?? [], 0.5);
  const failures = timings.reduce((sum, t) => sum + t.failures, 0);
  if (failures > 0) note ??= `${failures} timed requests failed: ${timings.find((t) => t.firstFailure)?.firstFailure}`;
  return { limit, page, walk, page1: p50(0), deepPage: p50(1), note };
}

interface ChangeEventBytes {
  type: string;
  events: number;
  /** Mean length of `data` (the object as it was after the change), in bytes. */
  dataBytes: number;
  /** Mean length of the other columns, the integer id counted as 8 bytes. */
  otherBytes: number;
}

/**
 * Bytes per change event by type, from the Worker's D1 once it has stopped: the seed's row
 * creations and the writes' updates. Column bytes only: indexes and page overhead not counted.
 */
async function measureChangeEventBytes(workerState: string): Promise<ChangeEventBytes[]> {
  const rows = await queryLocal<{ type: string; events: number; data_bytes: number; other_bytes: number }>(
    workerState,
    `SELECT type, count(*) AS events, avg(coalesce(length(data), 0)) AS data_bytes,
       avg(8 + length(type) + length(object_id) + coalesce(length(owner_id), 0) + coalesce(length(actor_id), 0)
         + coalesce(length(request_id), 0) + length(occurred_at) + coalesce(length(changed_fields), 0)) AS other_bytes
     FROM change_events GROUP BY type ORDER BY events DESC`,
  );
  return rows.map((r) => ({ type: r.type, events: r.events, dataBytes: r.data_bytes, otherBytes: r.other_bytes }));
}

// ---------------------------------------------------------------------------------------
// Cursor: page N of the largest database

interface DeepPage {
  size: number;
  page: number;
  /** The walk to the page: requests, seconds, rows seen (all distinct?). */
  walk: { requests: number; seconds: number; rows: number; distinct: number; p50: number } | null;
  cursorAvailable: boolean;
  page1: number;
  cursorPage: number | null;
  workerOffsetPage: number;
  baselinePage1: number;
  baselineOffsetPage: number;
  /** The deep page's rows are the same by cursor, by offset, and on the baseline. */
  agree: boolean;
  note: string | null;
}

async function measureDeepPage(table: SeededTable, worker: Side, baseline: Side, log: Log): Promise<DeepPage> {
  const limit = DATABASES.limit;
  const page = Math.ceil(table.rows / limit);
  const offset = (page - 1) * limit;
  const path = queryPath(table);
  const first = await request(worker, "POST", path, { limit });
  parse(first, "Worker page 1");
  const cursorAvailable = first.headers.has("X-Next-Cursor");
  let walk: DeepPage["walk"] = null;
  let cursor: string | null = null;
  let note: string | null = null;
  if (cursorAvailable) {
    log(
      `Databases: walking ${page - 1} pages of ${limit} by cursor to page ${page} of the ${compact(table.rows)} database`,
    );
    const seen = new Set<string>();
    const latencies: number[] = [];
    const started = performance.now();
    let answer = first;
    let rows = 0;
    for (let n = 1; n < page; n++) {
      for (const row of parse<{ id: string }[]>(answer, `Worker page ${n}`)) {
        seen.add(row.id);
        rows += 1;
      }
      cursor = answer.headers.get("X-Next-Cursor");
      if (!cursor) {
        note = `the walk ended at page ${n}: no X-Next-Cursor`;
        break;
      }
      answer = await request(worker, "POST", path, { limit, cursor });
      latencies.push(answer.ms);
    }
    for (const row of parse<{ id: string }[]>(answer, `Worker page ${page}`)) {
      seen.add(row.id);
      rows += 1;
    }
    if (answer.headers.has("X-Next-Cursor")) note = `page ${page} still sent X-Next-Cursor`;
    walk = {
      requests: latencies.length,
      seconds: (performance.now() - started) / 1000,
      rows,
      distinct: seen.size,
      p50: percentile(latencies, 0.5),
    };
  }
  const deepBody = cursor ? { limit, cursor } : { limit, offset };
  const ids = async (side: Side, body: RowQueryBody) =>
    parse<{ id: string }[]>(await request(side, "POST", path, body), "deep page").map((row) => row.id);
  const byCursor = cursor ? await ids(worker, deepBody) : null;
  const byOffset = await ids(worker, { limit, offset });
  const onBaseline = await ids(baseline, { limit, offset });
  const agree =
    firstDifference(byOffset, onBaseline) === null && (!byCursor || firstDifference(byCursor, byOffset) === null);
  const sends = [
    () => request(worker, "POST", path, { limit }),
    ...(cursor ? [() => request(worker, "POST", path, deepBody)] : []),
    () => request(worker, "POST", path, { limit, offset }),
    () => request(baseline, "POST", path, { limit }),
    () => request(baseline, "POST", path, { limit, offset }),
  ];
  const timings = await sequentialInTurn(sends, { warmup: 2, requests: DATABASES.deepPageRepeats, slices: 2 });
  const p50 = (i: number) => percentile(timings[i]?.latencies ?? [], 0.5);
  const shift = cursor ? 1 : 0;
  return {
    size: table.rows,
    page,
    walk,
    cursorAvailable,
    page1: p50(0),
    cursorPage: cursor ? p50(1) : null,
    workerOffsetPage: p50(1 + shift),
    baselinePage1: p50(2 + shift),
    baselineOffsetPage: p50(3 + shift),
    agree,
    note,
  };
}

// ---------------------------------------------------------------------------------------
// Export, with workerd's memory

/** workerd processes in the server's process group (wrangler's pid is the group's id). */
async function workerdPids(server: Server): Promise<number[]> {
  if (server.pid === undefined) return [];
  const pids: number[] = [];
  for (const entry of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const pgrp = Number(stat.slice(close + 2).split(" ")[2]);
      if (name === "workerd" && pgrp === server.pid) pids.push(Number(entry));
    } catch {
      // Gone since the listing.
    }
  }
  return pids;
}

/** Resident memory of these processes, in MiB (VmRSS); NaN when /proc cannot tell. */
async function rssMiB(pids: readonly number[]): Promise<number> {
  let kib = 0;
  for (const pid of pids) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (!match) return Number.NaN;
    kib += Number(match[1]);
  }
  return pids.length === 0 ? Number.NaN : kib / 1024;
}

interface ExportResult {
  size: number;
  status: number;
  seconds: number;
  firstByteSeconds: number;
  bytes: number;
  lines: number;
  rowCountHeader: string | null;
  rss: { before: number; peak: number; after: number };
}

async function measureExport(table: SeededTable, worker: Side): Promise<ExportResult> {
  const pids = await workerdPids(worker.server);
  const before = await rssMiB(pids);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssMiB(pids));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  const response = await fetch(`${worker.server.origin}/api/v1/pages/${table.id}/export?format=csv`, {
    headers: worker.headers,
  });
  const firstByteSeconds = (performance.now() - started) / 1000;
  let bytes = 0;
  let lines = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines += 1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return {
    size: table.rows,
    status: response.status,
    seconds,
    firstByteSeconds,
    bytes,
    lines: bytes > 0 ? lines + 1 : 0,
    rowCountHeader: response.headers.get("X-Export-Row-Count"),
    rss: { before, peak, after: await rssMiB(pids) },
  };
}

// ---------------------------------------------------------------------------------------
// Duplicate

interface DuplicateResult {
  blocks: number;
  copied: number | null;
  p50: number;
  min: number;
  max: number;
  roundTrips: number | null;
  failures: string | null;
}

async function measureDuplicate(seed: DatabasesSeed, worker: Side): Promise<DuplicateResult> {
  const times: number[] = [];
  let roundTrips: number | null = null;
  let failures: string | null = null;
  let copyId: string | null = null;
  for (let i = 0; i < DATABASES.duplicateRepeats; i++) {
    const answer = await request(worker, "POST", `/api/v1/blocks/${seed.treeRootId}/duplicate`, {});
    if (answer.status !== 201) {
      failures ??= `${answer.status} ${answer.text.slice(0, 200)}`;
      continue;
    }
    times.push(answer.ms);
    roundTrips = roundTripsOf(answer.headers);
    copyId ??= (JSON.parse(answer.text) as { id: string }).id;
  }
  // The first copy's tree, counted: every block copied.
  let copied: number | null = null;
  if (copyId) {
    const tree = await request(worker, "GET", `/api/v1/blocks/${copyId}/hierarchy?depth=5`);
    if (tree.status === 200) {
      const count = (node: { children?: unknown[] }): number =>
        1 + (node.children ?? []).reduce<number>((sum, child) => sum + count(child as { children?: unknown[] }), 0);
      copied = count(JSON.parse(tree.text) as { children?: unknown[] });
    }
  }
  return {
    blocks: DATABASES.duplicateBlocks,
    copied,
    p50: percentile(times, 0.5),
    min: Math.min(...times),
    max: Math.max(...times),
    roundTrips,
    failures,
  };
}

// ---------------------------------------------------------------------------------------
// Writes

interface WriteSpec {
  name: string;
  /** A row write: held to DATABASES.targets.maxRowWriteRoundTrips. */
  row: boolean;
  method: "POST" | "PUT" | "PATCH";
  workerPath: string;
  workerBody: unknown;
  baselinePath: string;
  baselineBody: unknown;
  status: number;
  /** Sent with a fresh `Idempotency-Key` each time; measured against the same bare baseline. */
  idempotencyKey?: boolean;
}

/** The writes measured again with an Idempotency-Key on every request: what idempotency costs. */
const KEYED_WRITES = ["create block", "PATCH block"];

export function writeSpecs(seed: DatabasesSeed, canonicalPageContent: unknown): WriteSpec[] {
  const { pageId, paragraphId, rowId, database } = seed.writes;
  // REQUEST_NUMBER becomes each request's own number under load, so every update changes the
  // block and leaves its change-log event, as a client's edits do.
  const paragraph = { rich_text: [{ type: "text", text: `Edited by the bench ${REQUEST_NUMBER}` }] };
  const rowValues = {
    title: "Bench task",
    status: "Todo",
    select: "High",
    multi: ["Backend", "Ops"],
    number: 8,
    date: "2026-03-01",
    checkbox: false,
    text: NOTES[0],
  };
  const byName = (values: Partial<Record<keyof typeof NAMES, unknown>>) =>
    Object.fromEntries(Object.entries(values).map(([role, value]) => [NAMES[role as keyof typeof NAMES], value]));
  const rowChange = { status: "Done", number: 13, text: `Reviewed ${REQUEST_NUMBER}` };
  const specs: WriteSpec[] = [
    {
      name: "create block",
      row: false,
      method: "POST",
      workerPath: "/api/v1/blocks",
      workerBody: { type: "paragraph", parent_id: pageId, content: paragraph },
      baselinePath: "/api/v1/blocks",
      baselineBody: { type: "paragraph", parent_id: pageId, content: paragraph },
      status: 201,
    },
    {
      name: "PATCH block",
      row: false,
      method: "PATCH",
      workerPath: `/api/v1/blocks/${paragraphId}`,
      workerBody: { content: paragraph },
      baselinePath: `/api/v1/blocks/${paragraphId}`,
      baselineBody: { content: paragraph },
      status: 200,
    },
    {
      name: "PUT page",
      row: false,
      method: "PUT",
      workerPath: `/api/v1/pages/${pageId}`,
      workerBody: { title: `Writes page ${REQUEST_NUMBER}`, content: PAGE_CONTENT },
      baselinePath: `/api/v1/pages/${pageId}`,
      baselineBody: {
        mode: "page",
        properties: { title: `Writes page ${REQUEST_NUMBER}` },
        content: canonicalPageContent,
      },
      status: 200,
    },
    {
      name: "create row",
      row: true,
      method: "POST",
      workerPath: "/api/v1/pages",
      workerBody: { type: "database_row", database_id: database.id, properties: byName(rowValues) },
      baselinePath: "/api/v1/pages",
      baselineBody: { database_id: database.id, properties: storedValues(database, rowValues) },
      status: 201,
    },
    {
      name: "PUT row",
      row: true,
      method: "PUT",
      workerPath: `/api/v1/pages/${rowId}`,
      workerBody: { properties: byName(rowChange) },
      baselinePath: `/api/v1/pages/${rowId}`,
      baselineBody: { mode: "row", properties: storedValues(database, rowChange) },
      status: 200,
    },
  ];
  return [
    ...specs,
    ...specs
      .filter((spec) => KEYED_WRITES.includes(spec.name))
      .map((spec) => ({ ...spec, name: `${spec.name} + key`, idempotencyKey: true })),
  ];
}

/** A page body of a few paragraphs, as a client sends it. */
const PAGE_CONTENT = [
  { type: "heading-2", children: [{ text: "Notes" }] },
  ...Array.from({ length: 5 }, (_, i) => ({
    type: "paragraph",
    children: [{ text: `Paragraph ${i + 1} of the page.` }],
  })),
];

interface WriteResult {
  name: string;
  row: boolean;
  /** Each request carried a fresh Idempotency-Key. */
  idempotencyKey: boolean;
  connections: number;
  worker: LoadResult;
  baseline: LoadResult;
  /** The same baseline on a state without the change log's triggers (writes without a key only). */
  baselineWithoutLog: LoadResult | null;
  roundTrips: [number | null, number | null];
  /** What the Worker stored and what the baseline stored differ (row values only). */
  mismatch: string | null;
}

/** Properties of a written block as both servers answer (the Worker's as JSON, the baseline's as the column). */
const storedProperties = (answer: Answer): unknown => {
  const record = JSON.parse(answer.text) as { properties: unknown };
  return typeof record.properties === "string" ? JSON.parse(record.properties) : record.properties;
};
const sameJson = (a: unknown, b: unknown): boolean => {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, v]) => [k, canonical(v)]),
          )
        : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
};

/**
 * Each write on the Worker, the baseline (the same D1 work on the same schema) and, for writes
 * without a key, the baseline on a state without the change log (`logFree`), taking turns.
 */
async function measureWrites(
  seed: DatabasesSeed,
  worker: Side,
  baseline: Side,
  logFree: Side,
  log: Log,
): Promise<WriteResult[]> {
  // The page body as the Worker stores it, for the baseline to store the same bytes.
  const put = await request(worker, "PUT", `/api/v1/pages/${seed.writes.pageId}`, {
    title: "Writes page",
    content: PAGE_CONTENT,
  });
  const canonical = parse<{ content: unknown }>(put, "Worker PUT page").content;
  const results: WriteResult[] = [];
  for (const spec of writeSpecs(seed, canonical)) {
    const key = (): Record<string, string> =>
      spec.idempotencyKey ? { "Idempotency-Key": `"${crypto.randomUUID()}"` } : {};
    const w1 = await request(worker, spec.method, spec.workerPath, spec.workerBody, key());
    const w2 = await request(worker, spec.method, spec.workerPath, spec.workerBody, key());
    const b1 = await request(baseline, spec.method, spec.baselinePath, spec.baselineBody);
    for (const [who, answer] of [
      ["Worker", w1],
      ["Worker", w2],
      ["baseline", b1],
    ] as const) {
      if (answer.status !== spec.status) {
        throw new Error(
          `${who} ${spec.name} answered ${answer.status}, not ${spec.status}: ${answer.text.slice(0, 300)}`,
        );
      }
    }
    const mismatch =
      spec.row && !sameJson(storedProperties(w2), storedProperties(b1))
        ? `Worker stored ${JSON.stringify(storedProperties(w2)).slice(0, 200)}, baseline ${JSON.stringify(storedProperties(b1)).slice(0, 200)}`
        : null;
    for (const connections of DATABASES.writeConnections) {
      const target = (side: Side, path: string, body: unknown): LoadTarget => ({
        url: side.server.origin + path,
        headers: { ...side.headers, "Content-Type": "application/json" },
        method: spec.method,
        body: Buffer.from(JSON.stringify(body)),
        connections,
        // Both servers get the header (the baseline ignores it), so the client's work is the same.
        freshIdempotencyKeys: spec.idempotencyKey === true,
        distinctBodies: true,
      });
      const [workerLoad, baselineLoad, logFreeLoad] = await measureInTurn(
        [
          target(worker, spec.workerPath, spec.workerBody),
          target(baseline, spec.baselinePath, spec.baselineBody),
          ...(spec.idempotencyKey ? [] : [target(logFree, spec.baselinePath, spec.baselineBody)]),
        ],
        { ...DATABASES.writeLoad, connections },
      );
      if (!workerLoad || !baselineLoad || workerLoad.requests === 0 || baselineLoad.requests === 0) {
        throw new Error(`A server stopped answering during ${spec.name}`);
      }
      results.push({
        name: spec.name,
        row: spec.row,
        idempotencyKey: spec.idempotencyKey === true,
        connections,
        worker: workerLoad,
        baseline: baselineLoad,
        baselineWithoutLog: logFreeLoad ?? null,
        roundTrips: [roundTripsOf(w1.headers), roundTripsOf(w2.headers)],
        mismatch,
      });
      log(
        `Databases: ${spec.name} x${connections}: Worker ${workerLoad.requestsPerSecond.toFixed(0)}, baseline ${baselineLoad.requestsPerSecond.toFixed(0)} req/s`,
      );
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------
// Bulk rows

interface BulkResult {
  available: boolean;
  requests: number;
  rowsPerRequest: number;
  created: number;
  seconds: number;
  rowsPerSecond: number;
  p50: number;
  roundTrips: number | null;
  note: string | null;
}

async function measureBulk(seed: DatabasesSeed, worker: Side): Promise<BulkResult> {
  const path = `/api/v1/databases/${seed.bulk.id}/rows/batch`;
  const empty: BulkResult = {
    available: false,
    requests: 0,
    rowsPerRequest: DATABASES.bulkRowsPerRequest,
    created: 0,
    seconds: 0,
    rowsPerSecond: Number.NaN,
    p50: Number.NaN,
    roundTrips: null,
    note: null,
  };
  // An empty list is refused by a route that exists (400) and unknown to one that does not (404).
  const check = await request(worker, "POST", path, { rows: [] });
  if (check.status === 404 || check.status === 405) return { ...empty, note: `the endpoint answered ${check.status}` };
  const statuses = ["Backlog", "Todo", "In progress", "Done"];
  const body = (n: number) => ({
    rows: Array.from({ length: DATABASES.bulkRowsPerRequest }, (_, i) => {
      const k = n * DATABASES.bulkRowsPerRequest + i;
      return {
        title: `Imported task ${k + 1}`,
        properties: {
          [NAMES.status]: statuses[k % 4],
          [NAMES.select]: ["Low", "Medium", "High"][k % 3],
          [NAMES.multi]: k % 5 === 0 ? [] : [["Frontend", "Backend", "Design", "Research", "Ops"][k % 5]],
          [NAMES.number]: (k * 7919) % 1000,
          [NAMES.date]: `2026-${String((k % 12) + 1).padStart(2, "0")}-${String((k % 28) + 1).padStart(2, "0")}`,
          [NAMES.checkbox]: k % 3 === 0,
          [NAMES.text]: NOTES[k % NOTES.length],
        },
      };
    }),
  });
  const latencies: number[] = [];
  let created = 0;
  let roundTrips: number | null = null;
  let note: string | null = null;
  const started = performance.now();
  for (let n = 0; n < DATABASES.bulkRequests; n++) {
    const answer = await request(worker, "POST", path, body(n));
    if (answer.status !== 201) {
      note = `request ${n + 1} answered ${answer.status}: ${answer.text.slice(0, 200)}`;
      break;
    }
    latencies.push(answer.ms);
    created += (JSON.parse(answer.text) as { created: number }).created;
    roundTrips = roundTripsOf(answer.headers);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    available: true,
    requests: latencies.length,
    rowsPerRequest: DATABASES.bulkRowsPerRequest,
    created,
    seconds,
    rowsPerSecond: created / seconds,
    p50: percentile(latencies, 0.5),
    roundTrips,
    note,
  };
}

// ---------------------------------------------------------------------------------------
// Bundle

interface Bundle {
  /** The development build's Worker code and explorer assets: what the bench serves. */
  worker: BundleFile[];
  explorer: BundleFile[];
  /** The production build (`npm run build`): every module it uploads, and its startup CPU in ms. */
  production: BundleFile[];
  startupMs: number;
}

/**
 * The development build's modules (the Worker's code, and the explorer's script and stylesheet), the
 * production build's, built into `dir`, and the production Worker's startup CPU.
 */
async function measureBundle(built: BuiltWorker, dir: string): Promise<Bundle> {
  const files = await builtModules(join(built.script, ".."));
  const isExplorer = (file: BundleFile) => /swagger-ui/.test(file.name);
  const productionDir = join(dir, "production");
  await buildProductionWorker(productionDir);
  return {
    worker: files.filter((file) => !isExplorer(file)),
    explorer: files.filter(isExplorer),
    production: await builtModules(productionDir),
    startupMs: await productionStartupMs(join(dir, "worker-startup.cpuprofile")),
  };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(0);
const total = (files: readonly BundleFile[], pick: (file: BundleFile) => number) =>
  files.reduce((sum, file) => sum + pick(file), 0);

// ---------------------------------------------------------------------------------------
// The state measured

function git(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd: PROJECT_ROOT }, (error, stdout) => resolve(error ? "" : stdout));
  });
}

async function codeState(): Promise<string> {
  const head = (await git(["log", "--oneline", "-1"])).trim();
  const dirty = (await git(["status", "--short"])).split("\n").filter(Boolean).length;
  return `${head || "unknown commit"}; ${dirty} uncommitted paths (git status --short)`;
}

// ---------------------------------------------------------------------------------------
// Report

export interface DatabasesReport {
  startedAt: string;
  durationSeconds: number;
  codeState: string;
  loadAtStart: number;
  settings: Record<string, unknown>;
  queries: QueryResult[];
  deepPage: DeepPage | null;
  feed: FeedPages;
  changeEvents: ChangeEventBytes[];
  delivery: DeliveryLatency;
  exported: ExportResult | null;
  duplicate: DuplicateResult | null;
  writes: WriteResult[];
  bulk: BulkResult | null;
  bundle: Bundle;
  targets: TargetCheck[];
  notes: string[];
}

const ratio = (a: number, b: number) => a / b;

function evaluate(report: Omit<DatabasesReport, "targets" | "notes">): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const {
    maxGrowth,
    minWriteRatio,
    minWriteRatioWithoutLog,
    minKeyedWriteRatio,
    maxRowWriteRoundTrips,
    maxProductionGzipKB,
    maxStartupMs,
  } = DATABASES.targets;
  const sizes = DATABASES.sizes;
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  for (const query of report.queries) {
    const small = query.sizes.find((s) => s.size === smallest);
    const large = query.sizes.find((s) => s.size === largest);
    if (!small || !large) continue;
    const growth = ratio(large.worker.p50, small.worker.p50);
    checks.push({
      target: `row query p50 @ ${compact(largest)} <= ${maxGrowth}x p50 @ ${compact(smallest)}`,
      subject: query.name,
      value: `${fixed(small.worker.p50)} -> ${fixed(large.worker.p50)} ms = ${fixed(growth, 2)}x (baseline ${fixed(ratio(large.baseline.p50, small.baseline.p50), 2)}x)`,
      pass: growth <= maxGrowth && large.worker.failures === 0 && small.worker.failures === 0,
    });
  }
  for (const query of report.queries) {
    const wrong = query.sizes.filter((s) => !s.agree);
    checks.push({
      target: "same rows, same order as the baseline (first page)",
      subject: query.name,
      value:
        wrong.length === 0
          ? `${query.sizes.map((s) => `${s.rows} @ ${compact(s.size)}`).join(", ")}`
          : wrong.map((s) => `@ ${compact(s.size)}: ${s.disagreement}`).join("; "),
      pass: wrong.length === 0,
    });
  }
  const feed = report.feed;
  checks.push({
    target: `change feed page ${feed.page} p50 <= ${maxGrowth}x page 1 p50`,
    subject: `GET /api/v1/changes, ${feed.limit} a page, by cursor`,
    value: `${fixed(feed.page1)} -> ${fixed(feed.deepPage)} ms = ${fixed(ratio(feed.deepPage, feed.page1), 2)}x; walk of ${feed.walk.requests} pages: ${feed.walk.events} events, ${feed.walk.distinct} distinct${feed.note ? `; ${feed.note}` : ""}`,
    pass:
      ratio(feed.deepPage, feed.page1) <= maxGrowth && feed.note === null && feed.walk.events === feed.walk.distinct,
  });
  const delivery = report.delivery;
  checks.push({
    target: "every webhook delivery arrives once, signed (Standard Webhooks)",
    subject: `${delivery.pages} block.created to a receiver on loopback`,
    value: `${delivery.delivered} delivered, ${delivery.duplicates} duplicates, ${delivery.unverified} unverified; p50 ${fixed(delivery.p50, 0)} ms, p99 ${fixed(delivery.p99, 0)} ms`,
    pass: delivery.delivered === delivery.pages && delivery.duplicates === 0 && delivery.unverified === 0,
  });
  const deep = report.deepPage;
  if (deep) {
    const deepP50 = deep.cursorPage ?? deep.workerOffsetPage;
    const how = deep.cursorPage === null ? "offset (cursor not available)" : "cursor";
    checks.push({
      target: `page ${deep.page} p50 <= ${maxGrowth}x page 1 p50 (${compact(deep.size)} rows)`,
      subject: `Worker, page ${deep.page} by ${how}`,
      value: `${fixed(deep.page1)} -> ${fixed(deepP50)} ms = ${fixed(ratio(deepP50, deep.page1), 2)}x${deep.agree ? "" : " (pages differ from the baseline's)"}`,
      pass: deep.cursorPage !== null && ratio(deepP50, deep.page1) <= maxGrowth && deep.agree && deep.note === null,
    });
    if (deep.walk) {
      checks.push({
        target: "the cursor walk sees every row once",
        subject: `${compact(deep.size)} rows, ${deep.walk.requests + 1} pages`,
        value: `${deep.walk.rows} rows, ${deep.walk.distinct} distinct${deep.note ? `; ${deep.note}` : ""}`,
        pass: deep.walk.rows === deep.size && deep.walk.distinct === deep.size && deep.note === null,
      });
    }
  }
  for (const write of report.writes) {
    const r = ratio(write.worker.requestsPerSecond, write.baseline.requestsPerSecond);
    const failed = write.worker.non2xx + write.worker.errors + write.baseline.non2xx + write.baseline.errors;
    const min = write.idempotencyKey ? minKeyedWriteRatio : minWriteRatio;
    checks.push({
      target: `${write.idempotencyKey ? "keyed write (Idempotency-Key)" : "write"} throughput ratio >= ${min}`,
      subject: `${write.name} x${write.connections}`,
      value: `${ratioText(write.worker, write.baseline)}${failed > 0 ? ` (${failed} failed requests: ${write.worker.firstFailure ?? write.baseline.firstFailure})` : ""}`,
      pass: r >= min && failed === 0,
    });
  }
  for (const write of report.writes) {
    if (!write.baselineWithoutLog) continue;
    checks.push({
      target: `write throughput with the change log >= ${minWriteRatioWithoutLog} of the baseline without it`,
      subject: `${write.name} x${write.connections}`,
      value: ratioText(write.worker, write.baselineWithoutLog),
      pass:
        ratio(write.worker.requestsPerSecond, write.baselineWithoutLog.requestsPerSecond) >= minWriteRatioWithoutLog &&
        write.baselineWithoutLog.non2xx + write.baselineWithoutLog.errors === 0,
    });
  }
  for (const write of report.writes.filter((w) => w.row && w.connections === DATABASES.writeConnections[0])) {
    const [first, warm] = write.roundTrips;
    checks.push({
      target: `D1 round trips per row write <= ${maxRowWriteRoundTrips} (API key remembered)`,
      subject: write.name,
      value: `${warm ?? "?"}${first !== warm ? ` (${first} on the first request)` : ""}`,
      pass: warm !== null && warm <= maxRowWriteRoundTrips,
    });
    if (write.mismatch) {
      checks.push({
        target: "the baseline stores what the Worker stores",
        subject: write.name,
        value: write.mismatch,
        pass: false,
      });
    }
  }
  const productionGzipKB = total(report.bundle.production, (f) => f.gzipBytes) / 1024;
  checks.push({
    target: `production Worker upload <= ${maxProductionGzipKB} KB gzip`,
    subject: "npm run build",
    value: `${kb(productionGzipKB * 1024)} KB`,
    pass: productionGzipKB <= maxProductionGzipKB,
  });
  checks.push({
    target: `production Worker startup CPU <= ${maxStartupMs} ms`,
    subject: "wrangler check startup (Active)",
    value: `${fixed(report.bundle.startupMs, 0)} ms`,
    pass: report.bundle.startupMs <= maxStartupMs,
  });
  if (report.exported) {
    const e = report.exported;
    const rows = e.lines - 1;
    checks.push({
      target: "CSV export holds every row",
      subject: `${compact(e.size)}-row database`,
      value: `${e.status}, ${rows} lines after the header, X-Export-Row-Count ${e.rowCountHeader}`,
      pass: e.status === 200 && rows === e.size && e.rowCountHeader === String(e.size),
    });
  }
  if (report.duplicate) {
    const d = report.duplicate;
    checks.push({
      target: "duplicate copies the whole tree",
      subject: `${d.blocks} blocks`,
      value: `${d.copied ?? "?"} blocks in the copy${d.failures ? `; ${d.failures}` : ""}`,
      pass: d.copied === d.blocks && d.failures === null,
    });
  }
  return checks;
}

const QUERY_HEADERS = () => {
  const sizes = DATABASES.sizes.map(compact);
  const largest = sizes.at(-1);
  return [
    "query",
    ...sizes.map((s) => `W p50 ${s}`),
    `W p95 ${largest}`,
    `W ${largest}/${sizes[0]}`,
    ...sizes.map((s) => `B p50 ${s}`),
    `B ${largest}/${sizes[0]}`,
    ...sizes.map((s) => `W/B ${s}`),
    "D1 trips",
  ];
};

function queryRows(queries: readonly QueryResult[]): string[][] {
  return queries.map((q) => {
    const first = q.sizes[0];
    const last = q.sizes.at(-1);
    const trips = [...new Set(q.sizes.map((s) => s.roundTrips ?? "?"))].join("/");
    return [
      q.name,
      ...q.sizes.map((s) => fixed(s.worker.p50)),
      fixed(last?.worker.p95),
      fixed(last && first ? ratio(last.worker.p50, first.worker.p50) : Number.NaN, 2),
      ...q.sizes.map((s) => fixed(s.baseline.p50)),
      fixed(last && first ? ratio(last.baseline.p50, first.baseline.p50) : Number.NaN, 2),
      ...q.sizes.map((s) => fixed(ratio(s.worker.p50, s.baseline.p50), 2)),
      String(trips),
    ];
  });
}

const WRITE_HEADERS = [
  "write",
  "conns",
  "W req/s",
  "B req/s",
  "ratio",
  "B no log req/s",
  "ratio to no log",
  "W p50 ms",
  "B p50 ms",
  "W D1 trips",
];

function writeRows(writes: readonly WriteResult[]): string[][] {
  return writes.map((w) => [
    w.name,
    String(w.connections),
    fixed(w.worker.requestsPerSecond, 0),
    fixed(w.baseline.requestsPerSecond, 0),
    fixed(ratio(w.worker.requestsPerSecond, w.baseline.requestsPerSecond), 2),
    w.baselineWithoutLog ? fixed(w.baselineWithoutLog.requestsPerSecond, 0) : "-",
    w.baselineWithoutLog ? fixed(ratio(w.worker.requestsPerSecond, w.baselineWithoutLog.requestsPerSecond), 2) : "-",
    fixed(w.worker.p50),
    fixed(w.baseline.p50),
    w.roundTrips[0] === w.roundTrips[1] ? String(w.roundTrips[1]) : `${w.roundTrips[1]} (first ${w.roundTrips[0]})`,
  ]);
}

function otherRows(report: Omit<DatabasesReport, "targets" | "notes">): string[][] {
  const rows: string[][] = [];
  const deep = report.deepPage;
  if (deep) {
    rows.push([
      `cursor page ${deep.page} vs page 1 (${compact(deep.size)})`,
      deep.cursorPage === null
        ? `cursor not available; Worker page 1 ${fixed(deep.page1)} ms, offset page ${deep.page} ${fixed(deep.workerOffsetPage)} ms`
        : `Worker page 1 ${fixed(deep.page1)} ms, page ${deep.page} by cursor ${fixed(deep.cursorPage)} ms (${fixed(ratio(deep.cursorPage, deep.page1), 2)}x), by offset ${fixed(deep.workerOffsetPage)} ms`,
    ]);
    rows.push([
      `baseline page ${deep.page} by offset (${compact(deep.size)})`,
      `page 1 ${fixed(deep.baselinePage1)} ms, page ${deep.page} ${fixed(deep.baselineOffsetPage)} ms`,
    ]);
    if (deep.walk) {
      rows.push([
        "cursor walk",
        `${deep.walk.requests} requests in ${fixed(deep.walk.seconds)} s (p50 ${fixed(deep.walk.p50)} ms), ${deep.walk.distinct} distinct rows`,
      ]);
    }
  }
  const feed = report.feed;
  rows.push([
    `change feed page ${feed.page} vs page 1 (${feed.limit} a page)`,
    `page 1 ${fixed(feed.page1)} ms, page ${feed.page} by cursor ${fixed(feed.deepPage)} ms (${fixed(ratio(feed.deepPage, feed.page1), 2)}x); walk ${feed.walk.requests} requests in ${fixed(feed.walk.seconds)} s (p50 ${fixed(feed.walk.p50)} ms)`,
  ]);
  const latency = report.delivery;
  rows.push([
    "webhook delivery latency (write to receiver)",
    `p50 ${fixed(latency.p50, 0)} ms, p99 ${fixed(latency.p99, 0)} ms, max ${fixed(latency.max, 0)} ms: ${latency.delivered} of ${latency.pages} pages created one every ${DATABASES.delivery.intervalMs} ms, ${latency.duplicates} duplicates, ${latency.unverified} unverified`,
  ]);
  for (const kind of report.changeEvents) {
    rows.push([
      `change event bytes: ${kind.type}`,
      `${fixed(kind.dataBytes + kind.otherBytes, 0)} B (data ${fixed(kind.dataBytes, 0)} B, other columns ${fixed(kind.otherBytes, 0)} B), ${kind.events.toLocaleString("en")} events`,
    ]);
  }
  const e = report.exported;
  if (e) {
    rows.push([
      `CSV export (${compact(e.size)} rows)`,
      `${fixed(e.seconds, 2)} s (first byte ${fixed(e.firstByteSeconds, 2)} s), ${fixed(e.bytes / 1024 / 1024, 1)} MiB, ${fixed(e.bytes / 1024 / 1024 / e.seconds, 1)} MiB/s`,
    ]);
    rows.push([
      "workerd RSS around the export",
      `${fixed(e.rss.before, 0)} MiB before, ${fixed(e.rss.peak, 0)} MiB peak (+${fixed(e.rss.peak - e.rss.before, 0)}), ${fixed(e.rss.after, 0)} MiB 1 s after`,
    ]);
  }
  const d = report.duplicate;
  if (d) {
    rows.push([
      `duplicate ${d.blocks}-block tree`,
      `p50 ${fixed(d.p50)} ms (min ${fixed(d.min)}, max ${fixed(d.max)}, ${DATABASES.duplicateRepeats} runs), ${d.roundTrips ?? "?"} D1 round trips`,
    ]);
  }
  const b = report.bulk;
  if (b) {
    rows.push([
      `bulk rows (${b.requests} x ${b.rowsPerRequest})`,
      b.available
        ? `${fixed(b.rowsPerSecond, 0)} rows/s: ${b.created} rows in ${fixed(b.seconds, 1)} s, p50 ${fixed(b.p50, 0)} ms a request, ${b.roundTrips ?? "?"} D1 round trips${b.note ? `; ${b.note}` : ""}`
        : `not available (${b.note})`,
    ]);
  }
  const bundle = report.bundle;
  rows.push([
    "bundle: Worker code, gzip",
    `${kb(total(bundle.worker, (f) => f.gzipBytes))} KB (${kb(total(bundle.worker, (f) => f.bytes))} KB raw: ${bundle.worker.map((f) => f.name).join(", ")})`,
  ]);
  rows.push([
    "bundle: explorer assets, gzip",
    `${kb(total(bundle.explorer, (f) => f.gzipBytes))} KB (${bundle.explorer.map((f) => `${f.name.replace(/^[0-9a-f]{40}-/, "")} ${kb(f.gzipBytes)} KB of ${kb(f.bytes)} KB`).join(", ")})`,
  ]);
  rows.push([
    "bundle: production Worker (npm run build), gzip",
    `${kb(total(bundle.production, (f) => f.gzipBytes))} KB (${kb(total(bundle.production, (f) => f.bytes))} KB raw: ${bundle.production.map((f) => f.name).join(", ")})`,
  ]);
  rows.push(["startup CPU, production (wrangler check startup)", `${fixed(bundle.startupMs, 0)} ms`]);
  return rows;
}

export function plainTable(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ");
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

const markdownRow = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
export const markdownTable = (headers: string[], rows: string[][]) => [
  markdownRow(headers),
  markdownRow(headers.map((_, i) => (i === 0 ? "---" : "---:"))),
  ...rows.map(markdownRow),
];

function markdown(report: DatabasesReport): string {
  return [
    "# Databases benchmark results",
    "",
    `Started ${report.startedAt}, took ${Math.round(report.durationSeconds)} s. Code: ${report.codeState}.`,
    "",
    ...report.notes.map((note) => `- ${note}`),
    "",
    "## Row queries (ms)",
    "",
    ...markdownTable(QUERY_HEADERS(), queryRows(report.queries)),
    "",
    "## Writes",
    "",
    ...markdownTable(WRITE_HEADERS, writeRows(report.writes)),
    "",
    "## Cursor, export, duplicate, bulk rows, bundle",
    "",
    markdownRow(["measure", "result"]),
    markdownRow(["---", "---"]),
    ...otherRows(report).map(markdownRow),
    "",
    "## Targets",
    "",
    ...targetsMarkdown(report.targets),
    "",
  ].join("\n");
}

function notesFor(seed: DatabasesSeed, loadAtStart: number): string[] {
  const sizes = DATABASES.sizes.map(compact).join(", ");
  return [
    `Row queries: POST /api/v1/databases/{id}/query, limit ${DATABASES.limit}, at databases of ${sizes} rows (one D1 holds them all), each with a title, status (4 options), select (3), multi-select (5), number, date, checkbox and text, values spread by dataset.ts's seeded generator. Every filter is sorted by the number property. ${DATABASES.requests} sequential requests per query, size and server after ${DATABASES.warmupRequests} warm-up, in ${DATABASES.slices} slices taking turns. W = the Worker, B = the baseline; W/B = Worker p50 over baseline p50 (below 1: faster than the SQL before the index).`,
    "Baseline: a bare Worker sending the schema read and then the row query's SQL as it was before the row-value index (commit 8715ced~1: every row's JSON read and filtered, matches sorted in a temporary B-tree, the count to 10,001), and the writes' statements as the Worker sends them; no framework, auth, validation or presenters.",
    `Writes: ${DATABASES.writeLoad.warmupSeconds} s warm-up + ${DATABASES.writeLoad.measureSeconds} s measured per server in ${DATABASES.writeLoad.slices} slices, at ${DATABASES.writeConnections.join(" and ")} connections (autocannon). create block: a paragraph under a page; PATCH block: its content; PUT page: title and a 6-item body; create row: POST /api/v1/pages type database_row with 8 values; PUT row: 2 values; "+ key": the same with a fresh Idempotency-Key on every request (the baseline gets it too and ignores it), against the same bare baseline. The Writes database holds ${seed.writes.database.rows} rows. D1 trips: the Worker's Server-Timing, the second request (the first may look the API key up).`,
    `Memory: the RSS of the Worker's workerd process (/proc/<pid>/status VmRSS, sampled every 50 ms). It holds the runtime, the isolate and local D1's SQLite with its page cache together: the isolate's own heap is not visible from outside.`,
    `Machine: ${availableParallelism()} CPUs shared by both servers and the bench (1-min load average ${loadAtStart.toFixed(2)} at the start).`,
  ];
}

// ---------------------------------------------------------------------------------------

/**
 * The databases section: builds the baseline, seeds, serves both on loopback, measures,
 * reports. `worker` is the Worker already built. Returns 0 when every target passes, 1
 * otherwise; throws when the bench itself fails.
 */
export async function runDatabasesBench(log: Log, runDir: string, worker: BuiltWorker): Promise<number> {
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const [loadAtStart = 0] = loadavg();
  const state = await codeState();
  const dir = join(runDir, "databases");
  await mkdir(dir, { recursive: true });
  log(`Databases: measuring ${state}`);
  const baselineWorker = await build(
    { ...BASELINE, compatibilityDate: await workerCompatibilityDate() },
    join(dir, "build", "baseline"),
  );
  const bundle = await measureBundle(worker, join(dir, "build"));

  const rows = DATABASES.sizes.reduce((sum, size) => sum + size, 0);
  log(
    `Databases: seeding ${rows.toLocaleString("en")} rows in ${DATABASES.sizes.length} databases in a fresh local D1`,
  );
  const seedStarted = performance.now();
  const seed = await seedDatabases(dir);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`Databases: seeded in ${seedSeconds.toFixed(0)} s; starting the Worker and the baseline on loopback`);
  const [workerServer, baselineServer] = await startBoth(
    [worker, baselineWorker],
    [seed.workerState, seed.baselineState],
  );
  const stopWorker = defer(workerServer.stop);
  const stopBaseline = defer(baselineServer.stop);
  const logFreeServer = await startServer(baselineWorker, seed.logFreeState, "/");
  const stopLogFree = defer(logFreeServer.stop);
  const workerSide: Side = { server: workerServer, headers: { Authorization: `Bearer ${seed.apiKey}` } };
  const baselineSide: Side = { server: baselineServer, headers: { "X-Bench-User": seed.benchUserId } };
  const logFreeSide: Side = { server: logFreeServer, headers: baselineSide.headers };

  const counts = parse<Record<string, number>>(await request(baselineSide, "GET", "/"), "baseline readiness");
  for (const table of [...seed.tables, seed.writes.database]) {
    if (counts[table.id] !== table.rows) {
      throw new Error(`The databases baseline sees ${counts[table.id]} rows in a database seeded with ${table.rows}`);
    }
  }

  const queries: QueryResult[] = [];
  for (const query of QUERIES) {
    const result = await measureQuery(query, seed.tables, workerSide, baselineSide);
    queries.push(result);
    const cells = result.sizes.map((s) => `${compact(s.size)} W ${fixed(s.worker.p50)} / B ${fixed(s.baseline.p50)}`);
    log(`Databases: ${query.name.padEnd(20)} p50 ms ${cells.join(", ")}`);
  }

  const largest = seed.tables.at(-1) as SeededTable;
  const deepPage = await measureDeepPage(largest, workerSide, baselineSide, log);
  const feed = await measureFeed(workerSide, log);
  log(`Databases: change feed page 1 ${fixed(feed.page1)} ms, page ${feed.page} ${fixed(feed.deepPage)} ms`);
  log(
    `Databases: page 1 ${fixed(deepPage.page1)} ms, page ${deepPage.page} ${deepPage.cursorPage === null ? "(no cursor)" : `by cursor ${fixed(deepPage.cursorPage)} ms`}, by offset ${fixed(deepPage.workerOffsetPage)} ms`,
  );

  log(`Databases: CSV export of the ${compact(largest.rows)}-row database`);
  const exported = await measureExport(largest, workerSide);
  log(`Databases: export ${fixed(exported.seconds, 2)} s, ${fixed(exported.bytes / 1024 / 1024, 1)} MiB`);

  const duplicate = await measureDuplicate(seed, workerSide);
  log(`Databases: duplicate of ${duplicate.blocks} blocks p50 ${fixed(duplicate.p50)} ms`);

  const writes = await measureWrites(seed, workerSide, baselineSide, logFreeSide, log);

  const { pages, intervalMs } = DATABASES.delivery;
  log(`Databases: webhook delivery latency, ${pages} pages one every ${intervalMs} ms to a receiver on loopback`);
  const delivery = await measureDeliveryLatency(
    { origin: workerServer.origin, headers: workerSide.headers },
    DATABASES.delivery,
  );
  log(
    `Databases: ${delivery.delivered} of ${delivery.pages} delivered, p50 ${fixed(delivery.p50, 0)} ms, p99 ${fixed(delivery.p99, 0)} ms`,
  );

  // Last: it makes the Worker's D1 larger than the baseline's.
  log(`Databases: bulk rows, ${DATABASES.bulkRequests} x ${DATABASES.bulkRowsPerRequest} into a fresh database`);
  const bulk = await measureBulk(seed, workerSide);
  log(`Databases: bulk ${bulk.available ? `${fixed(bulk.rowsPerSecond, 0)} rows/s` : "not available"}`);
  // Stopped, and their D1 (hundreds of MB at 100k rows) removed, before the next section.
  await stopWorker();
  await stopBaseline();
  await stopLogFree();
  const changeEvents = await measureChangeEventBytes(seed.workerState);
  await rm(dir, { recursive: true, force: true });

  const partial = {
    startedAt,
    durationSeconds: (performance.now() - began) / 1000,
    codeState: state,
    loadAtStart,
    settings: { ...DATABASES, seedSeconds },
    queries,
    deepPage,
    feed,
    changeEvents,
    delivery,
    exported,
    duplicate,
    writes,
    bulk,
    bundle,
  };
  const report: DatabasesReport = { ...partial, targets: evaluate(partial), notes: notesFor(seed, loadAtStart) };

  console.log(`\n${plainTable(QUERY_HEADERS(), queryRows(queries))}\n`);
  console.log(`${plainTable(WRITE_HEADERS, writeRows(writes))}\n`);
  console.log(`${plainTable(["measure", "result"], otherRows(partial))}\n`);
  for (const note of report.notes) console.log(`* ${note}`);
  console.log(`\n${formatTargets(report.targets)}\n`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  for (const base of [`databases-${startedAt.replace(/[:.]/g, "-")}`, "databases-latest"]) {
    await writeFile(join(RESULTS_DIR, `${base}.json`), json);
    await writeFile(join(RESULTS_DIR, `${base}.md`), markdown(report));
  }
  log(`Databases: wrote ${join(RESULTS_DIR, "databases-latest.md")} (and .json)`);
  return report.targets.every((check) => check.pass) ? 0 : 1;
}
