// npm run test:browser
// The explorer as a new user meets it, in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): `wrangler dev` on a free local port with a fresh local D1, the network limited
// to the Worker's origin (the explorer's assets are served by the Worker itself), a key pasted in
// the Authorize dialog, Try-it on a listing (GET /api/v1/pages: 200) and a create (POST
// /api/v1/pages: 201) with their defaults, then a reload that keeps the key (the listing still 200).
// A screenshot is left in artifacts/explorer.png. wrangler is stopped on every way out, and the
// whole run is bounded (TIME_LIMIT_MS).
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { ROOT, runBounded, withLocalWorker } from "./wrangler-dev.ts";

const TIME_LIMIT_MS = 120_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = join(ROOT, "artifacts", "explorer.png");
const FAILURE_SCREENSHOT = join(ROOT, "artifacts", "explorer-failure.png");
const EMAIL = "explorer@example.com";

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
  // The operation's body renders after the click: wait for its toggle ("Try it out", or "Cancel"
  // when Try-it is already on) rather than look for it at once, which misses it on a busy machine.
  const toggle = block.locator("button.try-out__btn");
  await toggle.waitFor();
  if ((await toggle.innerText()).includes("Try it out")) await toggle.click();
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
  // The dialog renders after the click: wait for it rather than look into it at once.
  await container.waitFor();
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
  await mkdir(join(ROOT, "artifacts"), { recursive: true });
  // Chromium starts while wrangler applies the migrations and builds the Worker.
  const launching = chromium.launch({ executablePath: CHROMIUM, headless: true });
  launching.catch(() => undefined);
  let browser: Awaited<typeof launching> | undefined;
  let page: Page | undefined;
  try {
    await withLocalWorker("explorer", async ({ origin }) => {
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
    });
    console.log(`explorer browser test passed in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (error) {
    // What the explorer showed when it went wrong, beside the screenshot of a passing run.
    await page?.screenshot({ path: FAILURE_SCREENSHOT, fullPage: false }).catch(() => undefined);
    console.error(`screenshot of the failure: ${FAILURE_SCREENSHOT}`);
    throw error;
  } finally {
    await (browser ?? (await launching.catch(() => undefined)))?.close();
  }
}

runBounded("explorer browser test", TIME_LIMIT_MS, main);
