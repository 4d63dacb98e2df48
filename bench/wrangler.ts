// Runs the project's own wrangler, never a global one, with telemetry off and
// CI=true so it never stops to ask a question. It runs on the Node that runs the
// bench (process.execPath): the `#!/usr/bin/env node` of its bin script could
// pick an older system Node, which wrangler refuses.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER_JS = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));

/** Command and leading arguments that start wrangler. */
export const WRANGLER_COMMAND = [process.execPath, WRANGLER_JS] as const;

export const wranglerEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CI: "true",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
});

/** Runs `wrangler ...args` from the project root (so it reads ./wrangler.toml) and returns stdout. */
export function wrangler(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [WRANGLER_JS, ...args],
      { cwd: PROJECT_ROOT, env: wranglerEnv(), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${stderr || stdout}`));
        else resolve(stdout);
      },
    );
  });
}

/** Creates the local D1 of `wrangler.toml` under `persistDir` with every migration applied. */
export const applyMigrations = (persistDir: string) =>
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir]);

export const executeFile = (persistDir: string, file: string) =>
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", persistDir, "--file", file]);

/** The rows of one SQL query on the local D1 under `persistDir`. */
export async function queryLocal<Row>(persistDir: string, sql: string): Promise<Row[]> {
  const out = await wrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--persist-to",
    persistDir,
    "--json",
    "--command",
    sql,
  ]);
  const [first] = JSON.parse(out) as { results: Row[] }[];
  return first?.results ?? [];
}

/** Bundles the Worker of `config` into `outDir` as a deploy would, uploading nothing. */
export const buildWorker = (config: string, outDir: string) =>
  wrangler(["deploy", "--dry-run", "--config", config, "--outdir", outDir]);

/** Bundles the production Worker (`npm run build`: [env.production] of ./wrangler.toml) into `outDir`. */
export const buildProductionWorker = (outDir: string) =>
  wrangler(["deploy", "--dry-run", "--env", "production", "--outdir", outDir]);

/**
 * `wrangler check startup` on the production Worker: builds it, runs its startup in a local workerd
 * under the CPU profiler, writes the profile to `outfile`, and returns the CPU time it prints as
 * "Active" (the profile's samples that were not idle, garbage collection included), in ms.
 */
export async function productionStartupMs(outfile: string): Promise<number> {
  const output = await wrangler(["check", "startup", "--args=--env production", "--outfile", outfile]);
  const active = /Active:\s*([\d.]+)\s*ms/.exec(output)?.[1];
  if (!active) throw new Error(`wrangler check startup printed no "Active: ... ms":\n${output}`);
  return Number(active);
}

/** The Worker's compatibility date, from ./wrangler.toml. */
export async function workerCompatibilityDate(): Promise<string> {
  const config = await readFile(new URL("../wrangler.toml", import.meta.url), "utf8");
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(config)?.[1];
  if (!date) throw new Error("No compatibility_date in wrangler.toml");
  return date;
}
