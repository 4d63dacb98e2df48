// `wrangler dev` for the scripts that test the Worker from outside (the explorer in a browser, the
// README's shell blocks): a free local port, a fresh local D1 in a temporary persist directory
// with the migrations applied, wrangler and its workerd in one process group that is stopped on
// every way out (a normal end, an error, a signal, the time limit).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");
/** wrangler run by this same Node (the project's), whatever `node` is first on PATH. */
const WRANGLER = [join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js")];
const wranglerEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };

/** A port nobody listens on now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/** Runs wrangler to its end; rejects on a non-zero exit. */
function wrangler(args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...WRANGLER, ...args], {
      cwd: ROOT,
      env: wranglerEnv,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("error", fail);
    child.once("exit", (code) => (code === 0 ? done() : fail(new Error(`wrangler ${args.join(" ")}: exit ${code}`))));
  });
}

let worker: ChildProcess | undefined;
let stopping = false;
/** Signals wrangler dev's process group (wrangler and the workerd it runs). */
function signalWorker(signal: NodeJS.Signals) {
  stopping = true;
  if (worker?.pid && worker.exitCode === null && worker.signalCode === null) {
    try {
      process.kill(-worker.pid, signal);
    } catch {
      // already gone
    }
  }
}
const stopWorker = () => signalWorker("SIGKILL");
/** Asks wrangler dev to stop, and waits for it (killed after 10 s). */
async function stopWorkerGracefully() {
  const running = worker;
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise((done) => running.once("exit", done));
  signalWorker("SIGTERM");
  const late = setTimeout(stopWorker, 10_000);
  await exited;
  clearTimeout(late);
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

export interface LocalWorker {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The temporary persist directory of its local D1, R2 and Durable Objects. */
  persistTo: string;
}

/**
 * Applies the migrations to a fresh local D1, starts `wrangler dev` on it (in its own process
 * group, so that stopping it stops workerd too), waits until it answers, runs `body`, and stops
 * it whatever happens.
 */
export async function withLocalWorker<T>(name: string, body: (worker: LocalWorker) => Promise<T>): Promise<T> {
  const started = Date.now();
  const persistTo = await mkdtemp(join(tmpdir(), `${name}-d1-`));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  try {
    await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo]);
    const args = ["dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistTo];
    const child = spawn(process.execPath, [...WRANGLER, ...args], {
      cwd: ROOT,
      env: wranglerEnv,
      detached: true,
      stdio: "pipe",
    });
    worker = child;
    let log = "";
    const keep = (chunk: Buffer) => {
      log += chunk;
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.once("exit", (code) => {
      if (!stopping) console.error(`wrangler dev exited (${code}):\n${log.slice(-4000)}`);
    });
    await until(
      "wrangler dev",
      async () => ((await fetch(`${origin}/documentation/openapi.json`)).ok ? true : undefined),
      60_000,
    );
    console.log(`wrangler dev ready on ${origin} after ${Math.round((Date.now() - started) / 1000)} s`);
    return await body({ origin, persistTo });
  } finally {
    await stopWorkerGracefully();
    await rm(persistTo, { recursive: true, force: true });
  }
}

/**
 * Runs `main` within `timeLimitMs`, then exits: 0 when it succeeded, 1 when it failed, ran over
 * time or was interrupted; wrangler dev is stopped on each of these ways out.
 */
export function runBounded(what: string, timeLimitMs: number, main: () => Promise<void>) {
  process.once("exit", stopWorker);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      stopWorker();
      process.exit(1);
    });
  }
  const limit = setTimeout(() => {
    console.error(`${what}: over ${timeLimitMs / 1000} s, stopped`);
    stopWorker();
    process.exit(1);
  }, timeLimitMs);
  main().then(
    () => {
      clearTimeout(limit);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      clearTimeout(limit);
      stopWorker();
      process.exit(1);
    },
  );
}
