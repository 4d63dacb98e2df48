// A Worker of this repository served by `wrangler dev` for as long as a check needs it, on its own
// local state (.contract/state), so the checks never touch `npm run dev`'s data.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

/** Where the checks write what they generate (ignored by git). */
export const OUTPUT_DIR = ".contract";
export const CONTRACT_FILE = `${OUTPUT_DIR}/openapi.json`;
const STATE_DIR = `${OUTPUT_DIR}/state`;
/** CONTRACT_PORT, or 8790 (away from `npm run dev`'s 8787). */
const PORT = Number(process.env.CONTRACT_PORT ?? 8790);
const READY_TIMEOUT_MS = 120_000;

const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };

/** Runs `wrangler` (node_modules/.bin is on npm scripts' PATH) and waits for it. */
export const wrangler = (...args: string[]) => execFileSync("wrangler", args, { stdio: "inherit", env });

/**
 * Serves the Worker at http://127.0.0.1:<port> while `run` runs, then stops it (its whole process
 * group). `migrate` applies the D1 migrations to its state first (for checks that use the database).
 */
export async function withLocalWorker<T>(run: (origin: string) => Promise<T>, migrate = false): Promise<T> {
  mkdirSync(STATE_DIR, { recursive: true });
  if (migrate) wrangler("d1", "migrations", "apply", "DB", "--local", "--persist-to", STATE_DIR);
  const worker = spawn(
    "wrangler",
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(PORT),
      "--persist-to",
      STATE_DIR,
      "--show-interactive-dev-session=false",
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const output: string[] = [];
  worker.stdout?.on("data", (chunk) => output.push(String(chunk)));
  worker.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const origin = `http://127.0.0.1:${PORT}`;
  try {
    await ready(origin, worker, output);
    return await run(origin);
  } finally {
    if (worker.pid !== undefined && worker.exitCode === null) process.kill(-worker.pid, "SIGTERM");
  }
}

async function ready(origin: string, worker: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) throw new Error(`wrangler dev exited (${worker.exitCode}):\n${output.join("")}`);
    const status = await fetch(`${origin}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status !== 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`wrangler dev did not answer on ${origin} within ${READY_TIMEOUT_MS / 1000} s:\n${output.join("")}`);
}

/** Writes the contract the Worker at `origin` serves to CONTRACT_FILE. */
export async function writeContract(origin: string): Promise<void> {
  const response = await fetch(`${origin}/documentation/openapi.json`);
  if (!response.ok) throw new Error(`GET /documentation/openapi.json: ${response.status}`);
  writeFileSync(CONTRACT_FILE, `${JSON.stringify(await response.json(), null, 2)}\n`);
}
