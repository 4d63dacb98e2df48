// `npm run bench:writes -- [--write create|patch] [--connections 4] [--seconds 48] [--slices 24] [--quick] [root ...]`
//
// One write (create block, or PATCH block) on one or more builds of the Worker (each root a
// checkout with its own node_modules: this one by default, or a git worktree holding a change),
// the databases baseline (baseline-databases/: the same statements, nothing around them) and that
// baseline on a state without the change log's triggers, each on its own copy of one seeded D1,
// taking turns in slices (measureInTurn). Where the full run gives each write 16 s in 8 slices, this
// gives one write as long as asked, so a change worth a few percent can be told from the machine's
// swings: to find where a write's time goes, serve builds that answer the write at different depths
// of the request and compare them in one run (docs/performance.md has such a run).
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { BASELINE, writeSpecs } from "./databases.ts";
import { seedDatabases } from "./databases-seed.ts";
import { type LoadResult, type LoadTarget, measureInTurn, ratioText } from "./load.ts";
import { type Server, serveFromRoot, type WorkerSpec } from "./servers.ts";
import { PROJECT_ROOT, workerCompatibilityDate } from "./wrangler.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    write: { type: "string", default: "create" },
    connections: { type: "string", default: "4" },
    seconds: { type: "string", default: "48" },
    slices: { type: "string", default: "24" },
    // Read by config.ts: the seeded databases at 1k and 10k rows, without the 100k one.
    quick: { type: "boolean", default: false },
  },
});
/** `--write` names the full run's writes without a key that this loads (databases.ts, writeSpecs). */
const WRITES = { create: "create block", patch: "PATCH block" } as const;
if (!(values.write in WRITES)) throw new Error(`--write is one of ${Object.keys(WRITES).join(", ")}`);
const roots = positionals.length > 0 ? positionals.map((root) => resolve(root)) : [PROJECT_ROOT];
const load = {
  connections: Number(values.connections),
  warmupSeconds: 2,
  measureSeconds: Number(values.seconds),
  slices: Number(values.slices),
};

interface Side {
  name: string;
  server: Server;
  headers: Record<string, string>;
  /** A baseline: sent the write's baseline path and body. */
  baseline: boolean;
}

/** The middle of the paired slices' ratios: less moved by one slice the machine disturbed than the whole ratio. */
function medianSliceRatio(a: LoadResult, b: LoadResult): number {
  const ratios = a.sliceRates.map((rate, i) => rate / (b.sliceRates[i] as number)).sort((x, y) => x - y);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1
    ? (ratios[middle] as number)
    : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
}

async function main(): Promise<void> {
  undoAllOnSignals();
  const workDir = await mkdtemp(join(tmpdir(), "workspace-api-writes-"));
  defer(() => rm(workDir, { recursive: true, force: true }));
  console.log(`Seeding the databases and building ${roots.length} Worker(s) and the baseline in ${workDir}`);
  const seed = await seedDatabases(workDir);
  const sides: Side[] = [];
  const serve = async (root: string, spec: WorkerSpec, state: string): Promise<Server> => {
    const server = await serveFromRoot(root, spec, join(workDir, `build-${sides.length}`), state);
    defer(server.stop);
    return server;
  };
  for (const [i, root] of roots.entries()) {
    const state = join(workDir, `worker-state-${i}`);
    await cp(seed.workerState, state, { recursive: true });
    const server = await serve(root, { name: `Worker ${i}`, config: "wrangler.toml", entry: "index.js" }, state);
    sides.push({
      name: `Worker ${root}`,
      server,
      headers: { Authorization: `Bearer ${seed.apiKey}` },
      baseline: false,
    });
  }
  const baseline: WorkerSpec = { ...BASELINE, compatibilityDate: await workerCompatibilityDate() };
  const user = { "X-Bench-User": seed.benchUserId };
  sides.push({
    name: "baseline",
    server: await serve(PROJECT_ROOT, baseline, seed.baselineState),
    headers: user,
    baseline: true,
  });
  sides.push({
    name: "baseline, no log",
    server: await serve(PROJECT_ROOT, baseline, seed.logFreeState),
    headers: user,
    baseline: true,
  });

  // The full run's own write (its page content, used by PUT page alone, is not needed here).
  const write = writeSpecs(seed, null).find((spec) => spec.name === WRITES[values.write as keyof typeof WRITES]);
  if (!write) throw new Error(`No write named ${values.write} in the databases bench`);
  const targets: LoadTarget[] = sides.map((side) => ({
    url: side.server.origin + (side.baseline ? write.baselinePath : write.workerPath),
    headers: { ...side.headers, "Content-Type": "application/json" },
    method: write.method,
    body: Buffer.from(JSON.stringify(side.baseline ? write.baselineBody : write.workerBody)),
    connections: load.connections,
    // Every request changes something, so each leaves its change-log event, as in the full run.
    distinctBodies: true,
  }));
  console.log(
    `${write.name} at ${load.connections} connection(s): ${load.measureSeconds} s each in ${load.slices} slices, taking turns`,
  );
  const results = await measureInTurn(targets, load);
  const withLog = results.at(-2) as LoadResult;
  const withoutLog = results.at(-1) as LoadResult;
  for (const [i, side] of sides.entries()) {
    const result = results[i] as LoadResult;
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${side.name}: ${result.non2xx} non-2xx, ${result.errors} errors (${result.firstFailure})`);
    }
    console.log(
      [
        side.name,
        `${result.requestsPerSecond.toFixed(1)} req/s`,
        `p50 ${result.p50.toFixed(1)} ms`,
        `/ baseline ${ratioText(result, withLog)}, slice median ${medianSliceRatio(result, withLog).toFixed(3)}`,
        `/ no log ${ratioText(result, withoutLog)}`,
      ].join("\t"),
    );
  }
}

try {
  await main();
} finally {
  await undoAll();
}
