// `npm run bench:noise -- [--seconds 240]`
//
// How precise a throughput ratio can be on this machine. The bare baseline alone serves `get-one`
// (10,000 blocks, 10 connections) for `--seconds`, and every answer's arrival is counted in 100 ms
// bins. Whatever the rate does then is the machine's and that one server's own doing (its GC, its
// SQLite writes), not a difference between servers. The series is then replayed over four identical
// servers taking turns as `measureInTurn` has them for the reads (A B C D A B C D ..., slices of a
// given length with the drain between them), starting at every offset the series allows: the ratio
// of two of those equal servers is what the bench would report for a Worker exactly as fast as its
// baseline. Its spread, per slice length and measured time, is the precision of one read cell of
// `npm run bench`.
//
// A model with one assumption: the swings hit every server alike at a given moment. The starts
// overlap: at 240 s, a 16 s replay has about three independent windows, so the shares under 0.9 are
// rough (the `windows` column says how many). Run it alone on the machine, as the bench.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { LOAD } from "./config.ts";
import { DRAIN_MILLISECONDS } from "./load.ts";
import { seedDatabase } from "./seed.ts";
import { build, readsBaselineSpec, startServer } from "./servers.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "240" } } });
const SECONDS = Number(values.seconds);
if (!Number.isInteger(SECONDS) || SECONDS < 30)
  throw new Error(`--seconds must be a whole number of seconds, at least 30`);
const BIN_MS = 100;
/** Bins of the series' first and last second, left out: the load starts and ends in them. */
const EDGE_BINS = 1000 / BIN_MS;
/** Servers taking turns in the bench's reads: the Worker and the baseline at two sizes. */
const SERVERS_IN_TURN = 4;
/** measureInTurn's pause after each slice. */
const DRAIN_BINS = DRAIN_MILLISECONDS / BIN_MS;
const TARGET_RATIO = 0.9;

/** 2xx answers per BIN_MS of the bare baseline under load, for `seconds`, without the first and last second. */
async function arrivals(url: string, headers: Record<string, string>, seconds: number): Promise<number[]> {
  const started = Date.now();
  const at: number[] = [];
  await new Promise<void>((done, fail) => {
    const instance = autocannon({ url, headers, connections: LOAD.connections, duration: seconds }, (error) =>
      error ? fail(error) : done(),
    );
    instance.on("response", (_client: unknown, statusCode: number) => {
      if (statusCode < 200 || statusCode > 299) {
        instance.stop();
        fail(new Error(`The baseline answered ${statusCode}: the series would not be of its answers`));
        return;
      }
      at.push(Date.now() - started);
    });
  });
  const bins = new Array<number>(Math.ceil((seconds * 1000) / BIN_MS)).fill(0);
  for (const ms of at) {
    const bin = Math.floor(ms / BIN_MS);
    if (bin < bins.length) bins[bin] = (bins[bin] ?? 0) + 1;
  }
  return bins.slice(EDGE_BINS, -EDGE_BINS);
}

interface Spread {
  /** Start offsets the series allowed (overlapping). */
  samples: number;
  /** Replays that fit in the series side by side: how many of the samples are independent. */
  windows: number;
  /** Seconds of series one replay spans. */
  spanSeconds: number;
  /** Standard deviation of the ratio of two equal servers. */
  deviation: number;
  /** Share of those ratios under TARGET_RATIO. */
  under: number;
}

/** The ratio of servers 0 and 1 of SERVERS_IN_TURN equal ones, over the series, at every start offset. */
function replay(bins: readonly number[], sliceBins: number, measuredBins: number): Spread {
  const slices = Math.max(1, Math.round(measuredBins / sliceBins));
  const span = slices * SERVERS_IN_TURN * (sliceBins + DRAIN_BINS);
  const sum = (from: number) => bins.slice(from, from + sliceBins).reduce((total, n) => total + n, 0);
  const ratios: number[] = [];
  for (let start = 0; start + span <= bins.length; start++) {
    const served = new Array<number>(SERVERS_IN_TURN).fill(0);
    for (let slice = 0; slice < slices; slice++) {
      for (let server = 0; server < SERVERS_IN_TURN; server++) {
        const from = start + (slice * SERVERS_IN_TURN + server) * (sliceBins + DRAIN_BINS);
        served[server] = (served[server] ?? 0) + sum(from);
      }
    }
    const [first = 0, second = 0] = served;
    if (second > 0) ratios.push(first / second);
  }
  const windows = Math.floor(bins.length / span);
  const spanSeconds = (span * BIN_MS) / 1000;
  if (ratios.length === 0) return { samples: 0, windows, spanSeconds, deviation: Number.NaN, under: Number.NaN };
  const mean = ratios.reduce((total, r) => total + r, 0) / ratios.length;
  const variance = ratios.reduce((total, r) => total + (r - mean) ** 2, 0) / ratios.length;
  return {
    samples: ratios.length,
    windows,
    spanSeconds,
    deviation: Math.sqrt(variance),
    under: ratios.filter((r) => r < TARGET_RATIO).length / ratios.length,
  };
}

async function main(): Promise<void> {
  undoAllOnSignals();
  const workDir = await mkdtemp(join(tmpdir(), "workspace-api-noise-"));
  defer(() => rm(workDir, { recursive: true, force: true }));
  console.log(`Seeding 10,000 blocks and serving the baseline in ${workDir}`);
  const seeded = await seedDatabase(10_000, workDir);
  const baseline = await build(await readsBaselineSpec(), join(workDir, "build"));
  const server = await startServer(baseline, seeded.baselineState, "/");
  defer(server.stop);
  const url = `${server.origin}/api/v1/blocks/${seeded.dataset.fixtures.blockId}`;
  const headers = { "X-Bench-User": seeded.dataset.fixtures.benchUserId };
  await arrivals(url, headers, LOAD.warmupSeconds);
  console.log(`get-one on the baseline alone, ${LOAD.connections} connections, ${SECONDS} s`);
  const bins = await arrivals(url, headers, SECONDS);

  const perSecond: number[] = [];
  for (let i = 0; i + 10 <= bins.length; i += 10) perSecond.push(bins.slice(i, i + 10).reduce((a, b) => a + b, 0));
  const sorted = [...perSecond].sort((a, b) => a - b);
  console.log(
    `requests a second: min ${sorted[0]}, median ${sorted[sorted.length >> 1]}, max ${sorted.at(-1)} (${perSecond.length} seconds)`,
  );
  console.log(
    `\nTwo equal servers of ${SERVERS_IN_TURN} taking turns, the ratio the bench would report (bench now: ${LOAD.measureSeconds} s in ${LOAD.slices} slices):`,
  );
  console.log("slice s\tmeasured s\tstarts\twindows\tstd dev\tunder 0.9");
  for (const measured of [8, 16, 32]) {
    for (const slice of [0.5, 1, 2]) {
      const spread = replay(bins, Math.round((slice * 1000) / BIN_MS), Math.round((measured * 1000) / BIN_MS));
      if (spread.samples === 0) {
        console.log(`${slice}\t${measured}\t-\t-\t-\t-\t(needs a series of ${spread.spanSeconds} s)`);
        continue;
      }
      console.log(
        `${slice}\t${measured}\t${spread.samples}\t${spread.windows}\t${spread.deviation.toFixed(3)}\t${(spread.under * 100).toFixed(1)}%`,
      );
    }
  }
}

try {
  await main();
} finally {
  await undoAll();
}
