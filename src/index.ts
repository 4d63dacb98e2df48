import { createApp } from "./app";
import { backgroundContext } from "./lib/context";
import { sweepMediaLeftovers } from "./services/media/storage";
import { pruneAppliedEvents } from "./services/payments/webhook";

export { ReminderQueue } from "./durable-objects/reminder-queue";

const app = createApp();

export default {
  fetch: app.fetch,
  /**
   * The Cron Trigger (`[triggers]` in wrangler.toml, every minute): upkeep that no
   * request does. Media uploads or deletions interrupted half-way (a record without
   * its object, or the reverse) are finished off here, and payment event ids past their
   * retention are forgotten.
   */
  async scheduled(controller, env, execution) {
    const ctx = backgroundContext(env, execution, { requestId: `cron:${controller.scheduledTime}` });
    execution.waitUntil(sweepMediaLeftovers(ctx));
    execution.waitUntil(pruneAppliedEvents(ctx));
  },
} satisfies ExportedHandler<Env>;
