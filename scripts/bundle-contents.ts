// npm run check:bundle: builds the production Worker as `npm run build` does (into a temporary
// folder, with esbuild's metafile) and fails when a module that wrangler.toml's [alias] leaves out
// of the bundle is in it after all: zod's locales other than English, ajv and ajv-formats, zod/v3 and
// zod-to-json-schema, zod's fromJSONSchema and compile, markdown-it's linkify-it and punycode.js, debug,
// pdf-lib's PNG decoder, forms and pako, the standard fonts
// the PDF export does not embed, stripe's API resources other than subscriptions and its thin-event
// handler (src/bundle/). An import path that changes in a package update would bring them back
// silently. Fails too when the upload is over the bench's target (`maxProductionGzipKB`, measured as
// the bench measures it: every module, gzip level 9). Prints the upload's size on success.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtModules } from "../bench/bundle-files.ts";
import { DATABASES } from "../bench/config.ts";

const LEFT_OUT: readonly { what: string; path: RegExp }[] = [
  { what: "zod's locales other than en", path: /node_modules\/zod\/v4\/locales\/(?!en\.js$)[^/]+$/ },
  { what: "ajv, ajv-formats", path: /node_modules\/ajv(-formats)?\// },
  { what: "zod/v3, zod-to-json-schema", path: /node_modules\/(zod\/v3\/|zod-to-json-schema\/)/ },
  { what: "zod's fromJSONSchema", path: /node_modules\/zod\/v4\/classic\/from-json-schema\.js$/ },
  { what: "zod's compile", path: /node_modules\/zod\/v4\/core\/compile\.js$/ },
  { what: "markdown-it's linkify-it and punycode.js", path: /node_modules\/(linkify-it|punycode\.js)\// },
  { what: "debug (and ms, supports-color)", path: /node_modules\/(debug|ms|supports-color)\// },
  { what: "pdf-lib's PNG decoder", path: /node_modules\/@pdf-lib\/upng\// },
  { what: "pdf-lib's forms", path: /node_modules\/pdf-lib\/es\/api\/form\// },
  { what: "pako (pdf-lib's DEFLATE, answered by fflate)", path: /node_modules\/pako\// },
  {
    what: "standard fonts the PDF export does not embed",
    path: /node_modules\/@pdf-lib\/standard-fonts\/es\/(Times-|Courier-|Symbol|ZapfDingbats)[^/]*\.json$/,
  },
  {
    what: "stripe's API resources other than subscriptions, its thin-event handler",
    path: /node_modules\/stripe\/esm\/(resources\/(?!Subscriptions\.js$)|resources\.js$|StripeEventNotificationHandler\.js$)/,
  },
];

const outDir = mkdtempSync(join(tmpdir(), "bundle-contents-"));
try {
  const metafile = join(outDir, "meta.json");
  execFileSync(
    "wrangler",
    ["deploy", "--dry-run", "--env", "production", "--outdir", join(outDir, "dist"), "--metafile", metafile],
    { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" } },
  );
  const inputs = Object.keys((JSON.parse(readFileSync(metafile, "utf8")) as { inputs: object }).inputs);
  const found = LEFT_OUT.flatMap(({ what, path }) => {
    const files = inputs.filter((input) => path.test(input));
    return files.length > 0 ? [`${what}: ${files.length} files (${files.slice(0, 3).join(", ")}, ...)`] : [];
  });
  if (found.length > 0) {
    console.error(`The production bundle holds modules wrangler.toml's [alias] leaves out:\n  ${found.join("\n  ")}`);
    process.exit(1);
  }
  const modules = await builtModules(join(outDir, "dist"));
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  const raw = modules.reduce((sum, file) => sum + file.bytes, 0);
  const gzip = modules.reduce((sum, file) => sum + file.gzipBytes, 0);
  const { maxProductionGzipKB } = DATABASES.targets;
  if (gzip / 1024 > maxProductionGzipKB) {
    console.error(
      `The production bundle is ${kb(gzip)} gzip, over the bench's ${maxProductionGzipKB} KB (bench/config.ts)`,
    );
    process.exit(1);
  }
  console.log(
    `Production bundle: none of the left-out modules; ${kb(raw)} raw, ${kb(gzip)} gzip (${modules.map((file) => file.name).join(", ")})`,
  );
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
