// npm run test:readme
// Runs README.md's shell blocks (```sh and ```bash) in order, as a reader would paste them into
// one terminal, against `wrangler dev` on a free port with a fresh local D1 (scripts/wrangler-dev.ts):
// one bash session with `set -euo pipefail`, so a failing command (a `curl --fail-with-body`, a
// missing file) fails the test; the README's base URL is replaced by the test server's. A block
// preceded by `<!-- readme-test: skip (reason) -->` is left out (starting servers, deploying,
// calling a third party with a placeholder key). On a failure it prints the block (its README line)
// and what it printed; what every block printed is kept in artifacts/readme.log. Bounded in time
// (TIME_LIMIT_MS).
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runBounded, withLocalWorker } from "./wrangler-dev.ts";

const TIME_LIMIT_MS = 120_000;
/** The base URL the README's examples use. */
const README_ORIGIN = "http://127.0.0.1:8787";
const SKIP = /^<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->$/;
const MARK = "@@readme-block";
/** Everything the blocks printed, each after its README line, kept for reading after a run. */
const LOG = join(ROOT, "artifacts", "readme.log");

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip?: string;
}

/** The shell blocks of a markdown text, in order, each with its skip reason when it has one. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i] ?? "");
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    if (end < 0) throw new Error(`README.md:${i + 1}: unclosed code block`);
    if (fence[1] === "sh" || fence[1] === "bash") {
      let before = i - 1;
      while (before >= 0 && lines[before]?.trim() === "") before--;
      const skip = SKIP.exec(lines[before]?.trim() ?? "")?.[1];
      blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join("\n"), skip });
    }
    i = end;
  }
  return blocks;
}

/** One bash script: every block that runs, each announced by a marker line. */
function script(blocks: Block[], origin: string): string {
  const parts = ["set -euo pipefail", "exec 2>&1"];
  blocks.forEach((block, index) => {
    if (block.skip) return;
    // On a line of its own, after output that did not end one.
    parts.push(`printf '\\n${MARK} ${index}\\n'`, block.code.replaceAll(README_ORIGIN, origin));
  });
  parts.push(`printf '\\n${MARK} end\\n'`);
  return `${parts.join("\n")}\n`;
}

/** Runs bash on `text` in its own process group (killed with it on every way out); its exit code and output. */
function bash(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn("bash", ["-c", text], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const kill = () => {
      if (child.pid && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    };
    process.once("exit", kill);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", fail);
    child.once("close", (code) => {
      process.removeListener("exit", kill);
      done({ code, output });
    });
  });
}

/** The output of each block, by its index (the text after its marker, up to the next). */
function outputs(output: string): Map<string, string> {
  const byBlock = new Map<string, string>();
  let current = "prelude";
  for (const line of output.split("\n")) {
    if (line.startsWith(`${MARK} `)) {
      current = line.slice(MARK.length + 1);
      byBlock.set(current, "");
    } else byBlock.set(current, `${byBlock.get(current) ?? ""}${line}\n`);
  }
  return byBlock;
}

async function main() {
  const started = Date.now();
  const blocks = shellBlocks(await readFile(join(ROOT, "README.md"), "utf8"));
  const skipped = blocks.filter((block) => block.skip);
  console.log(`README.md: ${blocks.length} shell blocks, ${blocks.length - skipped.length} to run`);
  for (const block of skipped) console.log(`  skipped: line ${block.line} (${block.skip})`);
  // The blocks' files (an upload, downloads) go to a directory of their own.
  const cwd = await mkdtemp(join(tmpdir(), "readme-test-"));
  try {
    await withLocalWorker("readme", async ({ origin, persistTo }) => {
      const env = {
        ...process.env,
        // `npm run key` writes to the test server's D1, `npm run stripe:event` posts to it, and both
        // run from the project whatever the directory.
        KEY_PERSIST_TO: persistTo,
        API_ORIGIN: origin,
        WRANGLER_SEND_METRICS: "false",
      };
      const text = `npm() { command npm --prefix ${JSON.stringify(ROOT)} "$@"; }\n${script(blocks, origin)}`;
      const { code, output } = await bash(text, cwd, env);
      const byBlock = outputs(output);
      await mkdir(join(ROOT, "artifacts"), { recursive: true });
      await writeFile(
        LOG,
        [...byBlock]
          .map(([index, text]) => `### README.md line ${blocks[Number(index)]?.line ?? index}\n${text}`)
          .join("\n"),
      );
      console.log(`what the blocks printed: ${LOG}`);
      if (code === 0 && byBlock.has("end")) return;
      const last = [...byBlock.keys()].filter((key) => key !== "end" && key !== "prelude").pop();
      const failed = last === undefined ? undefined : blocks[Number(last)];
      console.error(
        failed
          ? `README.md block at line ${failed.line} failed (bash exit ${code}):\n--- block ---\n${failed.code}\n--- output ---\n${byBlock.get(last ?? "") ?? ""}`
          : `bash failed before the first block (exit ${code}):\n${output}`,
      );
      throw new Error("README test failed");
    });
    console.log(`README test passed in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

runBounded("README test", TIME_LIMIT_MS, main);
