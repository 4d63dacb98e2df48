// npm run test:client
// A generated client against the Worker: writes the contract a local Worker serves, generates its
// types with openapi-typescript (.contract/api.d.ts), type-checks clients/quick-start.ts with them
// under `strict`, then runs it against that Worker.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { CONTRACT_FILE, OUTPUT_DIR, writeContract } from "./contract-file.ts";
import { withLocalWorker } from "./wrangler-dev.ts";

const started = Date.now();
const BLOB = ts.factory.createTypeReferenceNode("Blob");

await withLocalWorker("client", async ({ origin }) => {
  await writeContract(origin);
  const types = await openapiTS(new URL(`../${CONTRACT_FILE}`, import.meta.url), {
    // The contract's `required` says which fields an answer always has; a request field with a
    // `default` may be left out (openapi-typescript otherwise reads a default as "always present").
    defaultNonNullable: false,
    // Binary content (multipart file parts) is a Blob (openapi-typescript's documented transform).
    transform: (schema) => (schema.format === "binary" ? BLOB : undefined),
  });
  writeFileSync(`${OUTPUT_DIR}/api.d.ts`, astToString(types));
  execFileSync("tsc", ["-p", "clients/tsconfig.json"], { stdio: "inherit" });
  execFileSync(process.execPath, ["clients/quick-start.ts", origin], { stdio: "inherit" });
});
console.log(`typed client: ${((Date.now() - started) / 1000).toFixed(0)} s`);
