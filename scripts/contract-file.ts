// What the contract checks (npm run lint:contract, npm run test:client) write, and the contract a
// local Worker serves (scripts/wrangler-dev.ts starts it, on its own fresh state).
import { mkdirSync, writeFileSync } from "node:fs";

/** Where the checks write what they generate (ignored by git). */
export const OUTPUT_DIR = ".contract";
export const CONTRACT_FILE = `${OUTPUT_DIR}/openapi.json`;

/** Writes the contract the Worker at `origin` serves to CONTRACT_FILE. */
export async function writeContract(origin: string): Promise<void> {
  const response = await fetch(`${origin}/documentation/openapi.json`);
  if (!response.ok) throw new Error(`GET /documentation/openapi.json: ${response.status}`);
  mkdirSync(OUTPUT_DIR, { recursive: true });
  writeFileSync(CONTRACT_FILE, `${JSON.stringify(await response.json(), null, 2)}\n`);
}
