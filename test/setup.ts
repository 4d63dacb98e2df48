import { applyD1Migrations, env, runInDurableObject } from "cloudflare:test";
import { afterEach } from "vitest";
import { ROUTE_GROUPS } from "../src/lazy-app";
import { loadPdfWriter } from "../src/services/exports/export";
import { loadStripe } from "../src/services/payments/stripe";
import { loadLocalParser } from "../src/services/quick-tasks/quick-tasks";
import { recordMigratedDatabase, resetToMigratedDatabase } from "./helpers/migrated-database";

// Every router's module loaded before any test, through the Worker's own loaders: the Worker loads
// a path prefix's routers with import() at its first request (src/lazy-app.ts). Bundled, as wrangler
// deploys and serves it, that is no I/O. Here modules are not bundled: the test runner resolves an
// import() with a call to its module server, which concurrent first requests under one prefix would
// share, and workerd refuses a request that waits on another request's I/O ("Cannot perform I/O on
// behalf of a different request"). test/lib/lazy-app.test.ts covers the lazy loading itself.
await Promise.all(ROUTE_GROUPS.map((group) => group.load()));
// The same for the modules a request imports when it needs them, through the Worker's loaders,
// which keep what they loaded (lib/load-once.ts): the runner answers every import() call with a call
// to its module server, even for a module it has, and concurrent requests would share it.
await Promise.all([loadStripe(), loadPdfWriter(), loadLocalParser()]);

// Idempotent: applied migrations are recorded in the d1_migrations table. The first file of the run
// finds the database empty and records it as the migrations left it; every later file starts from that
// again, whatever the files before it wrote (test files share one D1: vitest.config.ts).
const alreadyMigrated = await env.DB.prepare("SELECT 1 FROM sqlite_master WHERE name = 'd1_migrations'").first();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await (alreadyMigrated ? resetToMigratedDatabase() : recordMigratedDatabase());

// Durable Object alarms outlive a test's isolated storage (workers-sdk#5388): an alarm that
// goes off after its test ended works on storage that is gone and stalls the run. So after
// each test, the alarm of every reminder queue of the test's users is removed (tests that
// need a firing run the alarm themselves, with runDurableObjectAlarm).
afterEach(async () => {
  const { results } = await env.DB.prepare("SELECT DISTINCT user_id FROM reminders").all<{ user_id: string }>();
  for (const { user_id: userId } of results) {
    const queue = env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(userId));
    await runInDurableObject(queue, (_instance, state) => state.storage.deleteAlarm());
  }
});
