// npm run bench: throughput and latency of the Worker's read endpoints against a
// bare baseline Worker doing the same D1 work, at two dataset sizes, and of its
// media upload and signed download against the same R2 work, and the drain of 10,000
// due reminders after one cron tick (reminders.ts), and databases at scale: row queries at
// 1k/10k/100k rows against the SQL before the row-value index, writes, a duplicate, a CSV
// export, cursors and the bundle (databases.ts). `npm run bench -- capacity` (capacity.ts, not in the
// full run): D1 time per request type of a mix, and a simulation of users routed to N databases. See README.md.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runCapacityBench } from "./capacity.ts";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { CHAIN_DEPTH, DATASET_SIZES, LOAD, MEDIA_FILE_BYTES, SEARCH_PLANTED, SEARCH_WORD, TARGETS } from "./config.ts";
import { runContentBench } from "./content.ts";
import { runDatabasesBench } from "./databases.ts";
import type { Dataset } from "./dataset.ts";
import { ENDPOINTS, LIST_LIMIT } from "./endpoints.ts";
import { type LoadResult, type LoadTarget, measureInTurn, probe } from "./load.ts";
import { mcpTargets, measureMcp } from "./mcp.ts";
import { MEDIA_ENDPOINTS, type MediaTargets, mediaRoundTrips, verifyMedia } from "./media.ts";
import { runRemindersBench } from "./reminders.ts";
import { evaluateTargets, formatTable, formatTargets, type Measurement, writeReport } from "./report.ts";
import { seedDatabase } from "./seed.ts";
import { type BuiltWorker, build, readsBaselineSpec, startBoth, type WorkerSpec } from "./servers.ts";
import { type Target, verifyServers } from "./verify.ts";

const WORKER: WorkerSpec = { name: "Worker", config: "wrangler.toml", entry: "index.js" };

const began = performance.now();
const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
const log = (message: string) => console.log(`[${elapsed().padStart(5)}] ${message}`);

/** One dataset size, seeded and served by both Workers. */
interface Setup {
  size: number;
  dataset: Dataset;
  worker: Target;
  baseline: Target;
  /** The Worker's D1 round trips per endpoint, from the verification requests. */
  firstRoundTrips: Map<string, number>;
  /** The media load, verified: at the smallest size only. */
  media?: MediaTargets;
}

async function setUp(size: number, workers: [BuiltWorker, BuiltWorker], workDir: string): Promise<Setup> {
  log(`${size} blocks: seeding a fresh local D1 in ${workDir}`);
  const { dataset, apiKey, workerState, baselineState } = await seedDatabase(size, workDir);

  log(`${size} blocks: starting the Worker and the baseline on loopback`);
  const [workerServer, baselineServer] = await startBoth(workers, [workerState, baselineState]);
  defer(workerServer.stop);
  defer(baselineServer.stop);
  const worker = { server: workerServer, headers: { Authorization: `Bearer ${apiKey}` } };
  const baseline = { server: baselineServer, headers: { "X-Bench-User": dataset.fixtures.benchUserId } };

  const firstRoundTrips = await verifyServers(dataset, worker, baseline);
  log(`${size} blocks: both servers read the seeded D1 and agree on every endpoint`);
  if (size !== Math.min(...DATASET_SIZES)) return { size, dataset, worker, baseline, firstRoundTrips };
  const media = await verifyMedia(worker, baseline, dataset.fixtures.benchUserId);
  log(`${size} blocks: both servers store a 1 MiB upload and serve back the same bytes`);
  return { size, dataset, worker, baseline, firstRoundTrips, media };
}

/**
 * Every server of every size under the same request, taking turns (see
 * measureInTurn), so both the Worker/baseline ratio and the 100k/10k growth
 * compare numbers taken under the same conditions.
 */
async function measureEndpoint(endpoint: (typeof ENDPOINTS)[number], setups: readonly Setup[]): Promise<Measurement[]> {
  const target = (side: Target, setup: Setup): LoadTarget => ({
    url: side.server.origin + endpoint.path(setup.dataset.fixtures),
    headers: side.headers,
  });
  // Round trips of one request like those under load, after verification warmed
  // any per-isolate cache; the verification request's count is kept beside it.
  const roundTrips = await Promise.all(
    setups.map(async (setup) => (await probe(target(setup.worker, setup).url, setup.worker.headers)).roundTrips),
  );
  const results = await measureInTurn(
    setups.flatMap((setup) => [target(setup.worker, setup), target(setup.baseline, setup)]),
  );

  return setups.map((setup, i) => ({
    endpoint: endpoint.name,
    size: setup.size,
    worker: answered(results[2 * i], setup.worker, endpoint.name, setup.size),
    baseline: answered(results[2 * i + 1], setup.baseline, endpoint.name, setup.size),
    roundTrips: roundTrips[i] ?? Number.NaN,
    firstRoundTrips: setup.firstRoundTrips.get(endpoint.name) ?? Number.NaN,
  }));
}

/** The media endpoints on one size's servers: the Worker and the baseline taking turns, as for the reads. */
async function measureMedia(setup: Setup, media: MediaTargets): Promise<Measurement[]> {
  const measurements: Measurement[] = [];
  for (const endpoint of MEDIA_ENDPOINTS) {
    const { worker, baseline } = endpoint.pick(media);
    const roundTrips = await mediaRoundTrips(worker);
    const [workerResult, baselineResult] = await measureInTurn([worker, baseline]);
    measurements.push({
      endpoint: endpoint.name,
      size: setup.size,
      worker: answered(workerResult, setup.worker, endpoint.name, setup.size),
      baseline: answered(baselineResult, setup.baseline, endpoint.name, setup.size),
      roundTrips,
      firstRoundTrips: media.firstRoundTrips.get(endpoint.name) ?? Number.NaN,
      targets: endpoint.targets,
    });
    const rates = `Worker ${workerResult?.requestsPerSecond.toFixed(0)}, baseline ${baselineResult?.requestsPerSecond.toFixed(0)} req/s`;
    log(`${endpoint.name} (${setup.size}): ${rates}`);
  }
  return measurements;
}

/** A runtime that crashed leaves wrangler running and answering nothing: stop rather than report zeros. */
function answered(result: LoadResult | undefined, side: Target, endpoint: string, size: number): LoadResult {
  if (!result || result.requests === 0) {
    throw new Error(`${side.server.name} stopped answering during ${endpoint} @ ${size}`);
  }
  return result;
}

function notesFor(measurements: readonly Measurement[], searchVisible: number, loadAtStart: number): string[] {
  const compactBlocks = (size: number) => `${size / 1000}k blocks`;
  const notes = [
    `q search: "${SEARCH_WORD}" is planted in ${SEARCH_PLANTED} blocks at every size (${searchVisible} visible to the bench user), so its timings show how the FTS index scales, not how the result grows.`,
    `list: first page of ${LIST_LIMIT} by updated_at desc, with the total count. hierarchy: a chain ${CHAIN_DEPTH} levels deep, asked for at depth ${CHAIN_DEPTH}.`,
    "Baseline: the same SQL and batches straight on D1, one round trip per request; no framework, auth, validation or presenters.",
    `Media, at ${compactBlocks(Math.min(...DATASET_SIZES))} only (it reads no blocks): upload is a POST of a ${MEDIA_FILE_BYTES / 1024 / 1024} MiB file, multipart for the Worker (with the API key), the same bytes as the raw body for the baseline (one INSERT, one R2 put); signed download is the GET of the signed URL of one upload (the Worker) or of the object's path (the baseline), ${MEDIA_FILE_BYTES / 1024 / 1024} MiB back. The upload's target is ${TARGETS.minUploadThroughputRatio}: the Worker also parses multipart, sniffs the type, hashes the bytes (SHA-256), marks the record ready in a second D1 round trip and signs a URL.`,
    `Load: ${LOAD.connections} connections, ${LOAD.warmupSeconds} s warm-up + ${LOAD.measureSeconds} s measured per server and endpoint, in ${LOAD.slices} slices taking turns with the other servers; autocannon and the servers share ${availableParallelism()} CPUs (1-min load average ${loadAtStart.toFixed(2)} at start).`,
  ];
  for (const m of measurements) {
    for (const [server, result] of [
      ["Worker", m.worker],
      ["baseline", m.baseline],
    ] as const) {
      if (result.firstFailure) {
        notes.push(`First failed response, ${server} ${m.endpoint} @ ${m.size}: ${result.firstFailure}`);
      }
    }
  }
  return notes;
}

async function main(): Promise<number> {
  undoAllOnSignals();
  const startedAt = new Date().toISOString();
  // Taken before any server starts: anything here is someone else's work competing for the CPUs.
  const [loadAtStart = 0] = loadavg();
  if (loadAtStart > 1) log(`Warning: load average ${loadAtStart.toFixed(2)} before starting; expect noisy numbers.`);

  // Before any server starts, while the CPUs are idle (`npm run bench -- content` runs only this).
  log("Content worst cases, 1 MiB each, in Node");
  // `npm run bench -- reads`: only the read endpoints, the media and MCP (a quicker look at the request path).
  const readsOnly = process.argv.includes("reads");
  const content = readsOnly ? 0 : await runContentBench(log);

  const runDir = await mkdtemp(join(tmpdir(), "workspace-api-bench-"));
  defer(() => rm(runDir, { recursive: true, force: true }));
  log(`Building the Worker and the baseline into ${runDir}`);
  const baselineSpec = await readsBaselineSpec();
  const workers: [BuiltWorker, BuiltWorker] = await Promise.all([
    build(WORKER, join(runDir, "build", "worker")),
    build(baselineSpec, join(runDir, "build", "baseline")),
  ]);

  // Each with its own servers and D1, stopped before the next section starts.
  const reminders = readsOnly ? 0 : await runRemindersBench(log, runDir, workers[0]);
  const databases = readsOnly ? 0 : await runDatabasesBench(log, runDir, workers[0]);

  const setups: Setup[] = [];
  for (const size of DATASET_SIZES) {
    const sizeDir = join(runDir, String(size));
    await mkdir(sizeDir);
    setups.push(await setUp(size, workers, sizeDir));
  }

  // By endpoint, then size: each endpoint's sizes sit together in the table.
  const measurements: Measurement[] = [];
  for (const endpoint of ENDPOINTS) {
    const results = await measureEndpoint(endpoint, setups);
    measurements.push(...results);
    const summary = results.map(
      (m) =>
        `${m.size}: Worker ${m.worker.requestsPerSecond.toFixed(0)}, baseline ${m.baseline.requestsPerSecond.toFixed(0)} req/s`,
    );
    log(`${endpoint.name.padEnd(13)} ${summary.join("; ")}`);
  }
  for (const setup of setups) {
    if (!setup.media) continue;
    measurements.push(...(await measureMedia(setup, setup.media)));
  }
  // The MCP server's get_page on the smallest size's Worker, against the two REST requests it stands for.
  const smallest = setups[0];
  const mcp = smallest ? await measureMcp(smallest.worker, smallest.dataset.fixtures.pageId) : null;
  if (mcp) log(`MCP get_page: ${mcpTargets(mcp)[0]?.value}`);
  // Servers and temp dirs are not needed for the report: release them now.
  await undoAll();

  const searchVisible = setups[0]?.dataset.fixtures.searchVisibleCount ?? 0;
  const notes = notesFor(measurements, searchVisible, loadAtStart);
  const targets = [...evaluateTargets(measurements), ...(mcp ? mcpTargets(mcp) : [])];
  const durationSeconds = (performance.now() - began) / 1000;

  console.log(`\n${formatTable(measurements)}\n`);
  for (const note of notes) console.log(`* ${note}`);
  console.log(`\n${formatTargets(targets)}`);
  const file = await writeReport({
    startedAt,
    durationSeconds,
    settings: {
      sizes: DATASET_SIZES,
      load: LOAD,
      searchWord: SEARCH_WORD,
      chainDepth: CHAIN_DEPTH,
      mediaFileBytes: MEDIA_FILE_BYTES,
    },
    notes,
    measurements,
    mcp,
    targets,
  });
  console.log(`\nWrote ${file} (and .json). Took ${elapsed()}.`);
  return targets.every((check) => check.pass) && content === 0 && reminders === 0 && databases === 0 ? 0 : 1;
}

/** `npm run bench -- reminders`, `-- databases` or `-- capacity`: only that section, on the Worker built once. */
async function sectionOnly(
  section: (log: (message: string) => void, runDir: string, worker: BuiltWorker) => Promise<number>,
) {
  undoAllOnSignals();
  const [loadAtStart = 0] = loadavg();
  if (loadAtStart > 1) log(`Warning: load average ${loadAtStart.toFixed(2)} before starting; expect noisy numbers.`);
  const runDir = await mkdtemp(join(tmpdir(), "workspace-api-bench-"));
  defer(() => rm(runDir, { recursive: true, force: true }));
  log(`Building the Worker into ${runDir}`);
  const worker = await build(WORKER, join(runDir, "build", "worker"));
  const code = await section(log, runDir, worker);
  log(`Took ${elapsed()}.`);
  return code;
}

try {
  process.exitCode = process.argv.includes("content")
    ? await runContentBench()
    : process.argv.includes("reminders")
      ? await sectionOnly(runRemindersBench)
      : process.argv.includes("databases")
        ? await sectionOnly(runDatabasesBench)
        : process.argv.includes("capacity")
          ? await sectionOnly(runCapacityBench)
          : await main();
} catch (error) {
  console.error(`\nBenchmark failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
} finally {
  await undoAll();
}
