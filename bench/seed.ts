// A fresh local D1 for one dataset size: migrations, then the generated seed.
//
// Each server then gets its own byte-identical copy of that state as its
// --persist-to. Pointing both at one directory would have two workerd processes
// open the same Durable Object SQLite file, which workerd assumes it owns alone:
// under load that fails requests ("D1_ERROR: Failed to get session commit
// token") and has crashed both runtimes at once. Copies taken before either
// server starts hold the same rows, which verify.ts checks.
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { generateApiKey } from "../src/auth/api-key-format.ts";
import { createDataset, type Dataset } from "./dataset.ts";
import { writeSeedFiles } from "./seed-sql.ts";
import { applyMigrations, executeFile } from "./wrangler.ts";

export interface SeededDatabase {
  dataset: Dataset;
  /** The bench user's raw API key, for the Worker's Authorization header. */
  apiKey: string;
  /** --persist-to directories holding the same D1 state, one per server. */
  workerState: string;
  baselineState: string;
}

export async function seedDatabase(size: number, workDir: string): Promise<SeededDatabase> {
  const workerState = join(workDir, "worker-state");
  const baselineState = join(workDir, "baseline-state");
  const sqlDir = join(workDir, "seed");
  await mkdir(sqlDir, { recursive: true });

  const dataset = createDataset(size);
  const key = await generateApiKey();
  const files = await writeSeedFiles(dataset, key, sqlDir);
  await applyMigrations(workerState);
  // In order: the files are chunks of one seed, parents before children.
  for (const file of files) await executeFile(workerState, file);
  await cp(workerState, baselineState, { recursive: true });
  return { dataset, apiKey: key.raw, workerState, baselineState };
}
