import { applyD1Migrations, env, runInDurableObject } from "cloudflare:test";
import { afterEach } from "vitest";

// Idempotent: applied migrations are recorded in the d1_migrations table.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

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
