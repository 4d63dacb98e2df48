// npm run test:browser
// The explorer as a new user meets it, in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): `wrangler dev` on a free local port with a fresh local D1, the network limited
// to the Worker's origin (the explorer's assets are served by the Worker itself), a key pasted in
// the Authorize dialog, Try-it on a listing (GET /api/v1/pages: 200) and a create (POST
// /api/v1/pages: 201) with their defaults, then a reload that keeps the key (the listing still 200).
// A screenshot is left in artifacts/explorer.png. wrangler is stopped on every way out, and the
// whole run is bounded (TIME_LIMIT_MS).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Page } from "playwright-core";

const TIME_LIMIT_MS = 120_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "..");
/** wrangler run by this same Node (the project's), whatever `node` is first on PATH. */
const WRANGLER = [join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js")];
const SCREENSHOT = join(ROOT, "artifacts", "explorer.png");
const FAILURE_SCREENSHOT = join(ROOT, "artifacts", "explorer-failure.png");
const EMAIL = "explorer@example.com";

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

const wranglerEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };

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

/** `wrangler dev` in its own process group, so that stopping it stops workerd too. */
function startWorker(port: number, persistTo: string): ChildProcess {
  const args = ["dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistTo];
  const child = spawn(process.execPath, [...WRANGLER, ...args], {
    cwd: ROOT,
    env: wranglerEnv,
    detached: true,
    stdio: "pipe",
  });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  child.once("exit", (code) => {
    if (!stopping) console.error(`wrangler dev exited (${code}):\n${log.slice(-4000)}`);
  });
  return child;
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
process.once("exit", stopWorker);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    stopWorker();
    process.exit(1);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

/** An API key for a new user, through the development sign-in and key management (README: "Sign in and manage keys"). */
async function apiKey(origin: string): Promise<string> {
  const signIn = await fetch(`${origin}/auth/complete`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ sessionId: `dev:${EMAIL}` }),
  });
  const session = ((await signIn.json()) as { sessionData?: { token?: string } }).sessionData?.token;
  if (!session) throw new Error(`sign-in failed: ${signIn.status}`);
  const created = await fetch(`${origin}/api/v1/api-keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${session}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Explorer browser test" }),
  });
  const key = ((await created.json()) as { key?: string }).key;
  if (created.status !== 201 || !key) throw new Error(`key creation failed: ${created.status}`);
  return key;
}

/** Runs Try-it on one operation with its defaults and returns the status the explorer shows. */
async function tryIt(page: Page, method: "get" | "post", path: string): Promise<string> {
  const block = page.locator(`.opblock-${method}`).filter({
    has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
  });
  if (!(await block.locator(".opblock-body").isVisible())) await block.locator(".opblock-summary").first().click();
  const tryOut = block.locator("button.try-out__btn", { hasText: "Try it out" });
  if (await tryOut.isVisible()) await tryOut.click();
  await block.locator("button.execute").click();
  const status = block.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor({ timeout: 15_000 });
  // Left on the page (and scrolled to) for the screenshot.
  await status.scrollIntoViewIfNeeded();
  return (await status.innerText()).trim();
}

async function authorize(page: Page, key: string) {
  await page.locator(".auth-wrapper button.authorize").click();
  const container = page.locator(".auth-container").filter({ hasText: "apiKeyAuth" });
  await container.locator("input").fill(key);
  await container.locator("button.authorize").click();
  await container.locator("button", { hasText: "Logout" }).waitFor();
  await page.locator(".dialog-ux button.btn-done").first().click();
}

async function isAuthorized(page: Page): Promise<boolean> {
  await page.locator(".auth-wrapper button.authorize").click();
  const container = page.locator(".auth-container").filter({ hasText: "apiKeyAuth" });
  const loggedIn = await container.locator("button", { hasText: "Logout" }).isVisible();
  await page.locator(".dialog-ux button.btn-done").first().click();
  return loggedIn;
}

function expectEqual(what: string, actual: unknown, expected: unknown) {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
  console.log(`ok: ${what} = ${String(actual)}`);
}

async function main() {
  const started = Date.now();
  const persistTo = await mkdtemp(join(tmpdir(), "explorer-d1-"));
  const port = await freePort();
  await mkdir(join(ROOT, "artifacts"), { recursive: true });
  const origin = `http://127.0.0.1:${port}`;
  // Chromium starts while wrangler applies the migrations and builds the Worker.
  const launching = chromium.launch({ executablePath: CHROMIUM, headless: true });
  launching.catch(() => undefined);
  let browser: Awaited<typeof launching> | undefined;
  let page: Page | undefined;
  try {
    await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo]);
    worker = startWorker(port, persistTo);
    await until(
      "wrangler dev",
      async () => ((await fetch(`${origin}/documentation/openapi.json`)).ok ? true : undefined),
      60_000,
    );
    console.log(`wrangler dev ready on ${origin} after ${Math.round((Date.now() - started) / 1000)} s`);
    const key = await apiKey(origin);
    browser = await launching;

    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const blocked: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      blocked.push(url);
      return route.abort("blockedbyclient");
    });
    page.setDefaultTimeout(15_000);

    await page.goto(`${origin}/documentation`);
    await page.locator(".swagger-ui .information-container .title").waitFor();
    await authorize(page, key);
    expectEqual("GET /api/v1/pages with its defaults", await tryIt(page, "get", "/api/v1/pages"), "200");
    expectEqual("POST /api/v1/pages with its defaults", await tryIt(page, "post", "/api/v1/pages"), "201");

    await page.reload();
    await page.locator(".swagger-ui .information-container .title").waitFor();
    expectEqual("authorized after a reload", await isAuthorized(page), true);
    expectEqual("GET /api/v1/pages after a reload", await tryIt(page, "get", "/api/v1/pages"), "200");

    await page.screenshot({ path: SCREENSHOT });
    console.log(`screenshot: ${SCREENSHOT}`);
    if (blocked.length > 0) console.log(`blocked (not the Worker's origin): ${blocked.join(", ")}`);
    console.log(`explorer browser test passed in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (error) {
    // What the explorer showed when it went wrong, beside the screenshot of a passing run.
    await page?.screenshot({ path: FAILURE_SCREENSHOT, fullPage: false }).catch(() => undefined);
    console.error(`screenshot of the failure: ${FAILURE_SCREENSHOT}`);
    throw error;
  } finally {
    await (browser ?? (await launching.catch(() => undefined)))?.close();
    await stopWorkerGracefully();
    await rm(persistTo, { recursive: true, force: true });
  }
}

const limit = setTimeout(() => {
  console.error(`explorer browser test: over ${TIME_LIMIT_MS / 1000} s, stopped`);
  stopWorker();
  process.exit(1);
}, TIME_LIMIT_MS);
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
