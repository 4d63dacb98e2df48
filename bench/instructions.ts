// `npm run bench:instructions -- [--endpoints get-one,list] [--requests 200] [--warm-up 1000] [--no-baseline] [root ...]`
//
// Instructions per request of one or more builds of the Worker (each root a checkout with its own
// node_modules, as for `bench:cpu`) and of the baseline, counted by valgrind's callgrind in the
// runtime that serves them. A count does not depend on what else the machine does, so two builds
// can be told apart by 1% where a load test's ratio moves by 5% from one run to the next: this is
// the tool for deciding whether a change to the read path saves anything.
//
// Each server's workerd runs under callgrind with instrumentation off (about five times slower
// than without valgrind), takes `--warm-up` requests so that V8 has optimised what it will, then
// counts `--requests` requests made one after another. The servers take their requests at the same
// time: counting is unaffected by it. Per request, for each server, it reports the instructions of
// its two workerd processes: the runtime (the Worker's isolate, D1's and the quota's simulations,
// local tracing: the thread the load tests saturate) and wrangler's dev proxy in front of it. The
// callgrind files stay in the output directory for `callgrind_annotate` (which functions the
// instructions went to; JIT-compiled JavaScript shows as bare addresses).
//
// Every build runs on this checkout's workerd (Miniflare is pointed at it under valgrind), so it
// compares Workers, not runtimes. Needs valgrind (Debian's `valgrind` package). Not part of
// `npm run bench`.
import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { ENDPOINTS } from "./endpoints.ts";
import { seedDatabase } from "./seed.ts";
import { readsBaselineSpec, type Server, serveFromRoot, type WorkerSpec } from "./servers.ts";
import { PROJECT_ROOT } from "./wrangler.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    endpoints: { type: "string", default: "get-one,list" },
    requests: { type: "string", default: "200" },
    "warm-up": { type: "string", default: "1000" },
    "no-baseline": { type: "boolean", default: false },
  },
});
const REQUESTS = Number(values.requests);
const WARM_UP = Number(values["warm-up"]);
if (!(Number.isInteger(REQUESTS) && REQUESTS > 0 && Number.isInteger(WARM_UP) && WARM_UP >= 0))
  throw new Error("--requests must be a positive integer and --warm-up a whole number");
/** Counted but not reported: the first requests after instrumentation starts run code valgrind has not translated yet. */
const SETTLE = 20;
const roots = positionals.length > 0 ? positionals.map((root) => resolve(root)) : [PROJECT_ROOT];
const endpoints = ENDPOINTS.filter((endpoint) => values.endpoints.split(",").includes(endpoint.name));
if (endpoints.length === 0)
  throw new Error(`No endpoint named in --endpoints; they are ${ENDPOINTS.map((e) => e.name)}`);

interface Counted {
  name: string;
  server: Server;
  headers: Record<string, string>;
  /** Process ids of the server's workerd processes (each runs under valgrind). */
  pids: string[];
}

/** The workerd of this install, as Miniflare finds it. */
const workerdBinary = () =>
  execFileSync(process.execPath, ["-e", "process.stdout.write(require('workerd').default ?? require('workerd'))"], {
    cwd: PROJECT_ROOT,
  }).toString();

/** A stand-in for workerd that runs it under callgrind, its counts written to `outDir`, one file per process. */
async function callgrindWorkerd(outDir: string): Promise<string> {
  const script = join(outDir, "workerd-under-callgrind.sh");
  const command = [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    // V8 writes the machine code it runs: valgrind must notice code rewritten in place.
    "--smc-check=all-non-file",
    `--callgrind-out-file=${join(outDir, "callgrind.%p")}`,
    workerdBinary(),
  ];
  const quoted = command.map((word) => `'${word.replaceAll("'", "'\\''")}'`);
  await writeFile(script, `#!/bin/sh\nexec ${quoted.join(" ")} "$@"\n`);
  await chmod(script, 0o755);
  return script;
}

const callgrindControl = (args: string[]) => execFileSync("callgrind_control", args, { stdio: "ignore" });

/** Instructions in the callgrind dump `<outDir>/callgrind.<pid>.<dump>`, and whether that process is the proxy. */
async function readDump(outDir: string, pid: string, dump: number): Promise<{ total: number; proxy: boolean }> {
  const text = await readFile(join(outDir, `callgrind.${pid}.${dump}`), "utf8");
  const total = Number(/^summary: (\d+)/m.exec(text)?.[1]);
  // wrangler's proxy listens on the server's port; the runtime behind it on one the OS picks (port 0).
  const proxy = !/--socket-addr=entry=(?:\[[^\]]*\]|[^\s:]+):0\b/.test(/^cmd: (.*)$/m.exec(text)?.[1] ?? "");
  return { total, proxy };
}

async function main(): Promise<void> {
  undoAllOnSignals();
  execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  const workDir = await mkdtemp(join(tmpdir(), "workspace-api-instructions-"));
  defer(() => rm(workDir, { recursive: true, force: true }));
  const outDir = join(tmpdir(), `workspace-api-callgrind-${Date.now()}`);
  await mkdir(outDir, { recursive: true });
  console.log(`Seeding 10,000 blocks; callgrind files in ${outDir}`);
  const seeded = await seedDatabase(10_000, workDir);
  process.env.MINIFLARE_WORKERD_PATH = await callgrindWorkerd(outDir);

  const counted: Counted[] = [];
  const serve = async (
    name: string,
    root: string,
    spec: WorkerSpec,
    state: string,
    headers: Record<string, string>,
  ) => {
    const persist = join(workDir, `state-${counted.length}`);
    await cp(state, persist, { recursive: true });
    // One after another: several runtimes starting under valgrind at once can outlast the start timeout.
    const server = await serveFromRoot(root, spec, join(workDir, `build-${counted.length}`), persist);
    defer(server.stop);
    const pids = execFileSync("ps", ["-o", "pid=,args=", "-g", String(server.pid)])
      .toString()
      .split("\n")
      .filter((line) => line.includes("valgrind") || line.includes("callgrind"))
      .map((line) => line.trim().split(/\s+/)[0] ?? "")
      .filter(Boolean);
    counted.push({ name, server, headers, pids });
  };
  for (const [i, root] of roots.entries()) {
    const worker = { name: `Worker ${i}`, config: "wrangler.toml", entry: "index.js" };
    await serve(`Worker ${root}`, root, worker, seeded.workerState, { Authorization: `Bearer ${seeded.apiKey}` });
  }
  if (!values["no-baseline"]) {
    const headers = { "X-Bench-User": seeded.dataset.fixtures.benchUserId };
    await serve("baseline", PROJECT_ROOT, await readsBaselineSpec(), seeded.baselineState, headers);
  }

  const report: string[] = [];
  for (const [dump, endpoint] of endpoints.entries()) {
    const perServer = await Promise.all(
      counted.map(async (side) => {
        const url = side.server.origin + endpoint.path(seeded.dataset.fixtures);
        const ask = async (times: number) => {
          for (let i = 0; i < times; i++) {
            const response = await fetch(url, { headers: side.headers });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`${side.name}: ${response.status} to ${endpoint.name}`);
          }
        };
        await ask(WARM_UP);
        for (const pid of side.pids) callgrindControl(["--instr=on", pid]);
        await ask(SETTLE);
        for (const pid of side.pids) callgrindControl(["--zero", pid]);
        await ask(REQUESTS);
        for (const pid of side.pids) callgrindControl(["--dump", pid]);
        for (const pid of side.pids) callgrindControl(["--instr=off", pid]);
        const dumps = await Promise.all(side.pids.map((pid) => readDump(outDir, pid, dump + 1)));
        const perRequest = (proxy: boolean) =>
          dumps.filter((d) => d.proxy === proxy).reduce((sum, d) => sum + d.total, 0) / REQUESTS;
        return { runtime: perRequest(false), proxy: perRequest(true) };
      }),
    );
    const baseline = values["no-baseline"] ? undefined : perServer.at(-1);
    for (const [i, side] of counted.entries()) {
      const counts = perServer[i];
      if (!counts) continue;
      const vsBaseline =
        baseline && side.name !== "baseline"
          ? `\t${(counts.runtime / baseline.runtime).toFixed(3)}x the baseline's runtime`
          : "";
      report.push(
        `${endpoint.name}\t${side.name}\truntime ${(counts.runtime / 1e6).toFixed(3)} M instructions/request\tproxy ${(counts.proxy / 1e6).toFixed(3)} M${vsBaseline}`,
      );
    }
  }
  console.log(report.join("\n"));
  const files = (await readdir(outDir)).filter((file) => /^callgrind\.\d+\.\d+$/.test(file));
  console.log(`${files.length} callgrind files kept in ${outDir} (callgrind_annotate <file>)`);
}

try {
  await main();
} finally {
  await undoAll();
}
