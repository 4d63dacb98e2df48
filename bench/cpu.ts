// `npm run bench:cpu -- [--profile] [--endpoints get-one,list] [--requests 3000] [--rounds 3] [root ...]`
//
// CPU per request of one or more builds of the Worker (each root a checkout with its own
// node_modules: this one by default, or a git worktree holding a change) and of the baseline, on
// copies of one seeded 10,000-block D1, under the same load (autocannon, 10 connections, a fixed
// number of requests), taking turns, in the reverse order every other round. For a change worth a
// few percent, on a quiet machine: the rounds show how much the machine itself moved the figures.
//
// - By default: the user and system CPU time of each server's processes (wrangler and its workerd,
//   so D1, the quota's simulation and the runtime too), per request, one figure per round.
// - `--profile`: the Worker isolate's own busy time per request, from a devtools CPU profile of one
//   round (the Worker's JavaScript and the platform calls it makes, without D1's side), and the
//   profile written beside the report for a closer look.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { openDevtools } from "./devtools.ts";
import { ENDPOINTS } from "./endpoints.ts";
import { seedDatabase } from "./seed.ts";
import { readsBaselineSpec, type Server, serveFromRoot, type WorkerSpec } from "./servers.ts";
import { PROJECT_ROOT } from "./wrangler.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    profile: { type: "boolean", default: false },
    endpoints: { type: "string", default: "get-one,list" },
    requests: { type: "string", default: "3000" },
    rounds: { type: "string", default: "3" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = 10;
const WARM_UP_REQUESTS = 500;
const roots = positionals.length > 0 ? positionals.map((root) => resolve(root)) : [PROJECT_ROOT];
const endpoints = ENDPOINTS.filter((endpoint) => values.endpoints.split(",").includes(endpoint.name));
if (endpoints.length === 0)
  throw new Error(`No endpoint named in --endpoints; they are ${ENDPOINTS.map((e) => e.name)}`);

interface Served {
  name: string;
  server: Server;
  headers: Record<string, string>;
}

/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** User and system CPU milliseconds of every process in the server's process group (wrangler's, workerd's). */
async function groupCpuMs(server: Server): Promise<number> {
  const group = String(server.pid);
  const pids = execFileSync("ps", ["-o", "pid=", "-g", group]).toString().trim().split(/\s+/);
  let ticks = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
    // After the command's closing parenthesis: state, then utime and stime at 12 and 13.
    const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS;
}

/** `amount` requests at 10 connections; resolves with the non-2xx count. */
function load(url: string, headers: Record<string, string>, amount: number): Promise<number> {
  return new Promise((done, fail) => {
    autocannon({ url, headers, connections: CONNECTIONS, amount }, (error, result) =>
      error ? fail(error) : done(result.non2xx),
    );
  });
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The isolate's busy microseconds in a profile: every sample but idle and "(program)" (the runtime outside JavaScript). */
function busyMicroseconds(profile: CpuProfile): number {
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  return profile.samples.reduce((total, sample, i) => {
    const name = names.get(sample);
    return name === "(idle)" || name === "(program)" ? total : total + (profile.timeDeltas[i] ?? 0);
  }, 0);
}

async function main(): Promise<void> {
  undoAllOnSignals();
  const workDir = await mkdtemp(join(tmpdir(), "workspace-api-cpu-"));
  defer(() => rm(workDir, { recursive: true, force: true }));
  console.log(`Seeding 10,000 blocks and building ${roots.length} Worker(s) and the baseline in ${workDir}`);
  const seeded = await seedDatabase(10_000, workDir);
  const served: Served[] = [];
  const serve = async (root: string, spec: WorkerSpec, state: string, label: string) => {
    const server = await serveFromRoot(root, spec, join(workDir, `build-${served.length}`), state);
    defer(server.stop);
    return { name: label, server };
  };
  for (const [i, root] of roots.entries()) {
    const state = join(workDir, `state-${i}`);
    await cp(seeded.workerState, state, { recursive: true });
    const worker = { name: `Worker ${i}`, config: "wrangler.toml", entry: "index.js" };
    const started = await serve(root, worker, state, `Worker ${root}`);
    served.push({ ...started, headers: { Authorization: `Bearer ${seeded.apiKey}` } });
  }
  const started = await serve(PROJECT_ROOT, await readsBaselineSpec(), seeded.baselineState, "baseline");
  served.push({ ...started, headers: { "X-Bench-User": seeded.dataset.fixtures.benchUserId } });

  const report: string[] = [];
  for (const endpoint of endpoints) {
    const urlOf = (side: Served) => side.server.origin + endpoint.path(seeded.dataset.fixtures);
    for (const side of served) await load(urlOf(side), side.headers, WARM_UP_REQUESTS);
    if (values.profile) {
      for (const [i, side] of served.entries()) {
        const inspector = await openDevtools(side.server.inspector);
        await inspector.call("Profiler.enable");
        await inspector.call("Profiler.setSamplingInterval", { interval: 100 });
        await inspector.call("Profiler.start");
        const failed = await load(urlOf(side), side.headers, REQUESTS);
        const { profile } = (await inspector.call("Profiler.stop")) as { profile: CpuProfile };
        inspector.close();
        const file = join(tmpdir(), `cpu-${endpoint.name.replace(/\W/g, "")}-${i}.cpuprofile`);
        await writeFile(file, JSON.stringify(profile));
        const perRequest = busyMicroseconds(profile) / 1000 / REQUESTS;
        report.push(
          `${endpoint.name}\t${side.name}\tisolate busy ${perRequest.toFixed(3)} ms/request\tnon-2xx ${failed}\t${file}`,
        );
      }
      continue;
    }
    const perRound = served.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round in the reverse order (ABC, CBA, ...): a machine growing busier or quieter
      // over the run would otherwise always charge the first-measured server the most.
      const order = [...served.entries()];
      if (round % 2 === 1) order.reverse();
      for (const [i, side] of order) {
        const before = await groupCpuMs(side.server);
        const failed = await load(urlOf(side), side.headers, REQUESTS);
        if (failed > 0) throw new Error(`${side.name}: ${failed} non-2xx answers to ${endpoint.name}`);
        perRound[i]?.push(((await groupCpuMs(side.server)) - before) / REQUESTS);
      }
    }
    for (const [i, side] of served.entries()) {
      const rounds = (perRound[i] ?? []).map((ms) => ms.toFixed(2)).join(", ");
      report.push(`${endpoint.name}\t${side.name}\tprocess CPU ms/request by round: ${rounds}`);
    }
  }
  console.log(report.join("\n"));
}

try {
  await main();
} finally {
  await undoAll();
}
