// `npm run bench:js -- [--endpoints get-one,list] [--requests 3000] [--rounds 5] [--chains 10] [root ...]`
//
// What the Worker's own code costs per read, against the baseline's: each build of the Worker (each
// root a checkout with its own node_modules: this one by default, or a git worktree holding a
// change) is served with the baseline beside it in one isolate (js-loop/loop.js), and each read is
// asked of both in a loop inside the isolate, `--chains` requests in flight at a time, with D1
// answered from memory and the quota admitting every request. The time per request is what is left:
// the framework, authentication, validation and presenters, and the runtime objects they make.
//
// Under load (`npm run bench`) each request also pays D1's and the quota's local simulations, a
// few milliseconds a call that swing by a tenth from one call to the next, which a change of a few
// percent in the code cannot be told from. Here a round's figure moves by a few percent: compare
// builds with it, then confirm with the load test.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defer, undoAll, undoAllOnSignals } from "./cleanup.ts";
import { ENDPOINTS } from "./endpoints.ts";
import { percentile } from "./load.ts";
import { seedDatabase } from "./seed.ts";
import { type BuiltWorker, build, readsBaselineSpec, type Server, startServer } from "./servers.ts";
import { PROJECT_ROOT } from "./wrangler.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    endpoints: { type: "string", default: ENDPOINTS.map((endpoint) => endpoint.name).join(",") },
    requests: { type: "string", default: "3000" },
    rounds: { type: "string", default: "5" },
    chains: { type: "string", default: "10" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const CHAINS = Number(values.chains);
const WARM_UP_REQUESTS = 500;
const roots = positionals.length > 0 ? positionals.map((root) => resolve(root)) : [PROJECT_ROOT];
const endpoints = ENDPOINTS.filter((endpoint) => values.endpoints.split(",").includes(endpoint.name));
if (endpoints.length === 0)
  throw new Error(`No endpoint named in --endpoints; they are ${ENDPOINTS.map((e) => e.name)}`);

/**
 * One Worker serving the loop (js-loop/loop.js) with every build beside it: the Worker built from
 * each root (with that checkout's own bench/servers.ts) as worker-<i>.js, numbered in builds.js, and
 * the baseline's build. The builds' text modules (the explorer's assets, named by their content) go
 * beside them.
 */
async function buildLoop(baseline: BuiltWorker, workDir: string): Promise<BuiltWorker> {
  const outDir = join(workDir, "loop");
  await mkdir(outDir);
  let config = "";
  for (const [i, root] of roots.entries()) {
    const servers = (await import(join(root, "bench/servers.ts"))) as { build: typeof build };
    const buildDir = join(workDir, `build-${i}`);
    const worker = await servers.build({ name: root, config: "wrangler.toml", entry: "index.js" }, buildDir);
    for (const file of await readdir(buildDir)) {
      if (file === "index.js") await cp(join(buildDir, file), join(outDir, `worker-${i}.js`));
      else if (!file.endsWith(".map") && file !== "wrangler.toml" && file !== "README.md") {
        await cp(join(buildDir, file), join(outDir, file));
      }
    }
    const built = await readFile(worker.config, "utf8");
    if (i === 0) config = built;
    else if (built !== config) {
      // The loop runs under one config: a build's own dates, flags or settings would not apply.
      console.warn(`${root}'s wrangler.toml differs from ${roots[0]}'s: it runs under ${roots[0]}'s`);
    }
  }
  await cp(baseline.script, join(outDir, "baseline.js"));
  await cp(join(PROJECT_ROOT, "bench/js-loop/loop.js"), join(outDir, "loop.js"));
  const imports = roots.map((_, i) => `import worker${i} from "./worker-${i}.js";`).join("\n");
  await writeFile(
    join(outDir, "builds.js"),
    `${imports}\nexport default [${roots.map((_, i) => `worker${i}`).join(", ")}];\n`,
  );
  // The first build's config; the builds are modules the loop imports, before its own rules (its text modules).
  const loopConfig = config
    .replace(/^main = .*$/m, 'main = "loop.js"')
    .replace(
      /^\[\[rules\]\]$/m,
      '[[rules]]\ntype = "ESModule"\nglobs = ["worker-*.js", "builds.js", "baseline.js"]\nfallthrough = true\n\n[[rules]]',
    );
  const configPath = join(outDir, "wrangler.toml");
  await writeFile(configPath, loopConfig);
  return { name: "loop", config: configPath, entry: "loop.js", script: join(outDir, "loop.js") };
}

interface LoopAnswer {
  requests: number;
  failed: number;
  /** The distinct body sizes of the 200s. */
  sizes: number[];
  misses: number;
}

/** Microseconds per request of `requests` reads of `path` by `target`, timed from here. */
async function timeLoop(
  server: Server,
  headers: Record<string, string>,
  target: string,
  path: string,
  requests: number,
): Promise<{ microseconds: number; answer: LoopAnswer }> {
  const query = new URLSearchParams({ target, path, n: String(requests), c: String(CHAINS) });
  const started = performance.now();
  const response = await fetch(`${server.origin}/__bench/js?${query}`, { headers });
  const answer = (await response.json()) as LoopAnswer;
  const elapsed = performance.now() - started;
  if (!response.ok || answer.failed > 0) {
    throw new Error(`${target}, ${path}: ${answer.failed} of ${answer.requests} reads failed`);
  }
  if (answer.sizes.length !== 1) {
    throw new Error(`${target}, ${path}: the reads' answers differ (${answer.sizes.join(", ")} bytes)`);
  }
  return { microseconds: (elapsed * 1000) / answer.requests, answer };
}

/** The middle round (of an odd number; the lower middle of an even one). */
const median = (values: readonly number[]): number => percentile(values, 0.5);

async function main(): Promise<void> {
  undoAllOnSignals();
  const workDir = await mkdtemp(join(tmpdir(), "workspace-api-js-"));
  defer(() => rm(workDir, { recursive: true, force: true }));
  console.log(`Seeding 10,000 blocks and building ${roots.length} Worker(s) beside the baseline in ${workDir}`);
  const seeded = await seedDatabase(10_000, workDir);
  const baseline = await build(await readsBaselineSpec(), join(workDir, "baseline-build"));
  // The Worker reads the caller from the key, the baseline from the id.
  const headers = { Authorization: `Bearer ${seeded.apiKey}`, "X-Bench-User": seeded.dataset.fixtures.benchUserId };

  const loop = await buildLoop(baseline, workDir);
  const state = join(workDir, "state");
  await cp(seeded.workerState, state, { recursive: true });
  const server = await startServer(loop, state, "/");
  defer(server.stop);
  // The builds by number, then the baseline.
  const targets = [...roots.map((_, i) => String(i)), "baseline"];
  const label = (target: string) => (target === "baseline" ? "baseline" : (roots[Number(target)] as string));

  let misses = 0;
  const report: string[] = [
    `${REQUESTS} requests a round, ${CHAINS} in flight; µs per request: median of ${ROUNDS} rounds (their range)`,
  ];
  for (const endpoint of endpoints) {
    const path = endpoint.path(seeded.dataset.fixtures);
    // Each target's answer, as the warm-up read it: every round must read the same.
    const sizes = new Map<string, number | undefined>();
    for (const target of targets) {
      sizes.set(target, (await timeLoop(server, headers, target, path, WARM_UP_REQUESTS)).answer.sizes[0]);
    }
    const rounds = new Map(targets.map((target) => [target, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round in the reverse order, so a machine growing busier charges no one side.
      const order = round % 2 === 1 ? [...targets].reverse() : targets;
      for (const target of order) {
        const { microseconds, answer } = await timeLoop(server, headers, target, path, REQUESTS);
        if (answer.sizes[0] !== sizes.get(target)) {
          throw new Error(
            `${label(target)}, ${endpoint.name}: answered ${answer.sizes[0]} bytes, not ${sizes.get(target)}`,
          );
        }
        // A statement first sent after the warm-up goes to D1 once: a few ms in a round.
        misses += answer.misses;
        rounds.get(target)?.push(microseconds);
      }
    }
    const bare = median(rounds.get("baseline") ?? []);
    for (const target of targets) {
      const times = rounds.get(target) ?? [];
      const range = `${Math.min(...times).toFixed(0)}-${Math.max(...times).toFixed(0)}`;
      const over = target === "baseline" ? "" : `\t${(median(times) - bare).toFixed(0)} µs over the baseline`;
      report.push(`${endpoint.name}\t${label(target)}\t${median(times).toFixed(0)} (${range})${over}`);
    }
  }
  report.push(`D1 calls sent to D1 after the warm-up (not answered from memory): ${misses}`);
  console.log(report.join("\n"));
}

try {
  await main();
} finally {
  await undoAll();
}
