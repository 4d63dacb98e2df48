// npm run lint:contract
// Writes the contract a local Worker serves to .contract/openapi.json, then lints it with Redocly
// (redocly.yaml) and Spectral (.spectral.yaml): any error or warning fails.
import { execFileSync } from "node:child_process";
import { CONTRACT_FILE, writeContract } from "./contract-file.ts";
import { withLocalWorker } from "./wrangler-dev.ts";

await withLocalWorker("contract", ({ origin }) => writeContract(origin));
const lint = (...args: string[]) => execFileSync(args[0] as string, args.slice(1), { stdio: "inherit" });
lint("redocly", "lint", CONTRACT_FILE, "--config", "redocly.yaml", "--format", "stylish");
lint("spectral", "lint", CONTRACT_FILE, "--ruleset", ".spectral.yaml", "--fail-severity", "warn");
