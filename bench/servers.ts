// Builds the two Workers once, and serves the builds with `wrangler dev` on loopback.
//
// Serving a build made at the start (`--no-bundle`), not the sources, means
// every size measures the same code, and an edit to src/ during the run cannot
// trigger a rebuild and reload in the middle of a measurement.
//
// Each server runs in its own process group (detached), so stopping it ends
// wrangler and the workerd it started, and nothing else. Ports, including the
// devtools inspector's (two servers would both want 9229), are picked free.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { BENCH_CREDENTIAL_QUOTA, SERVER_START_TIMEOUT_SECONDS } from "./config.ts";
import { buildWorker, PROJECT_ROOT, WRANGLER_COMMAND, workerCompatibilityDate, wranglerEnv } from "./wrangler.ts";

export interface WorkerSpec {
  name: string;
  /** wrangler config file, relative to the project root. */
  config: string;
  /** File name of the built entry module: the config's `main`, as .js. */
  entry: string;
  /** Overrides the config's compatibility date. */
  compatibilityDate?: string;
}

/**
 * The reads' bare baseline (baseline/worker.ts), on the Worker's compatibility date, whatever that is
 * today: the same runtime behaviour, and no second date to keep in step with the installed workerd.
 */
export const readsBaselineSpec = async (): Promise<WorkerSpec> => ({
  name: "baseline",
  config: "bench/baseline/wrangler.toml",
  entry: "worker.js",
  compatibilityDate: await workerCompatibilityDate(),
});

export interface BuiltWorker extends WorkerSpec {
  /** Absolute path of the built entry module. */
  script: string;
}

/**
 * `wrangler deploy --dry-run` into `outDir`: the bundle a deploy would upload.
 * Beside it goes a copy of the config whose `main` is the built entry, so that
 * wrangler looks for the bundle's extra modules (the explorer's text files) in
 * `outDir`, not next to the sources.
 */
export async function build(spec: WorkerSpec, outDir: string): Promise<BuiltWorker> {
  try {
    await buildWorker(spec.config, outDir);
  } catch (error) {
    throw new Error(`${spec.name} does not build: ${(error as Error).message}`);
  }
  const config = await readFile(join(PROJECT_ROOT, spec.config), "utf8");
  const builtConfig = join(outDir, "wrangler.toml");
  await writeFile(builtConfig, benchConfig(config.replace(/^main = .*$/m, `main = "${spec.entry}"`)));
  return { ...spec, config: builtConfig, script: join(outDir, spec.entry) };
}

/**
 * The config as the bench runs it (the baseline's has neither setting):
 * - each credential's quota, announced and enforced, at BENCH_CREDENTIAL_QUOTA;
 * - no per-request log line. Under `wrangler dev` every console line crosses the devtools protocol
 *   to wrangler, which cost 12-19% of a block read's CPU in a workerd CPU profile under load; deployed,
 *   the line goes to Workers Logs without that trip. The bench measures the request's own work.
 */
function benchConfig(config: string): string {
  return config
    .replace(/^REQUEST_LOG = .*$/gm, 'REQUEST_LOG = "off"')
    .replace(/^API_RATE_LIMIT_REQUESTS = .*$/gm, `API_RATE_LIMIT_REQUESTS = "${BENCH_CREDENTIAL_QUOTA}"`)
    .replace(
      /(name = "API_RATE_LIMITER"\n[^[]*?simple = \{ limit = )\d+/g,
      (_match, head: string) => `${head}${BENCH_CREDENTIAL_QUOTA}`,
    );
}

export interface Server {
  name: string;
  origin: string;
  /** wrangler's devtools endpoint (http://127.0.0.1:port): one client may follow the runtime's console there. */
  inspector: string;
  /** wrangler's process id, also its process group's (workerd runs in that group). */
  pid: number | undefined;
  stop: () => Promise<void>;
}

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === "string") throw new Error("Could not pick a free port");
  return address.port;
}

const LOG_LINES_KEPT = 40;
const START_ATTEMPTS = 3;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matches terminal colour codes
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

/** Serves `worker` against the D1 state in `persistDir`; resolves once `readyPath` answers 200. */
export async function startServer(worker: BuiltWorker, persistDir: string, readyPath: string): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(worker, persistDir, readyPath);
    } catch (error) {
      // A port found free can be taken before wrangler binds it (ephemeral ports are
      // shared with every outgoing connection on the machine): try other ports.
      const portTaken = (error as Error).message.includes("Address already in use");
      if (!portTaken || attempt === START_ATTEMPTS) throw error;
    }
  }
}

async function startOnce(worker: BuiltWorker, persistDir: string, readyPath: string): Promise<Server> {
  const port = await freePort();
  const inspectorPort = await freePort();
  const [command, ...leading] = WRANGLER_COMMAND;
  const child = spawn(
    command,
    [
      ...leading,
      "dev",
      worker.script,
      "--no-bundle",
      "--config",
      worker.config,
      "--persist-to",
      persistDir,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--log-level",
      "warn",
      "--show-interactive-dev-session",
      "false",
      ...(worker.compatibilityDate ? ["--compatibility-date", worker.compatibilityDate] : []),
    ],
    { cwd: PROJECT_ROOT, env: wranglerEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );

  // Keep the tail of the output: it is the only clue when a server fails to start.
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString().replace(ANSI_COLOUR, "").split("\n").filter(Boolean));
    log.splice(0, Math.max(0, log.length - LOG_LINES_KEPT));
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  const server: Server = {
    name: worker.name,
    origin: `http://127.0.0.1:${port}`,
    inspector: `http://127.0.0.1:${inspectorPort}`,
    pid: child.pid,
    stop: () => stopProcessGroup(child),
  };
  try {
    await waitUntilReady(server, readyPath, child);
  } catch (error) {
    await server.stop();
    throw new Error(`${worker.name} did not start: ${(error as Error).message}\n${log.join("\n")}`);
  }
  return server;
}

/** Polls `path` until it answers 200, as long as wrangler runs. */
async function waitUntilReady(server: Server, path: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + SERVER_START_TIMEOUT_SECONDS * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler exited with code ${child.exitCode}`);
    try {
      const response = await fetch(server.origin + path, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no answer from ${server.origin}${path} within ${SERVER_START_TIMEOUT_SECONDS} s`);
}

/**
 * SIGTERM to the server's process group (wrangler and its workerd), SIGKILL if
 * wrangler lingers, and a last SIGKILL for a workerd that outlived it.
 */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group is gone already.
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    signalGroup("SIGTERM");
    const timer = setTimeout(() => signalGroup("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  signalGroup("SIGKILL");
}

/**
 * Builds `spec` into `outDir` and serves it on `persistDir`, with the bench of the checkout at
 * `root` (its own servers.ts): a git worktree holding a change builds its own sources
 * (`bench:cpu` and `bench:writes` compare such builds).
 */
export async function serveFromRoot(
  root: string,
  spec: WorkerSpec,
  outDir: string,
  persistDir: string,
): Promise<Server> {
  const servers = (await import(join(root, "bench/servers.ts"))) as {
    build: typeof build;
    startServer: typeof startServer;
  };
  return servers.startServer(await servers.build(spec, outDir), persistDir, "/");
}

/** Starts two servers together, each on its own D1 state; if either fails, stops the other before throwing. */
export async function startBoth(
  workers: [BuiltWorker, BuiltWorker],
  states: [string, string],
): Promise<[Server, Server]> {
  const started = await Promise.allSettled(workers.map((worker, i) => startServer(worker, states[i] as string, "/")));
  const [first, second] = started;
  if (first?.status === "fulfilled" && second?.status === "fulfilled") return [first.value, second.value];
  for (const result of started) if (result.status === "fulfilled") await result.value.stop();
  throw started.find((result) => result.status === "rejected")?.reason;
}
