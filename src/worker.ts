import { backgroundContext } from "./lib/context";
import { log } from "./lib/log";
import type { WebhookDeliveryMessage } from "./lib/webhook-queue";

/**
 * The Worker's handlers around an app: requests, the Cron Trigger and the webhook queue. One for
 * each entry (src/index.ts for development and tests, src/index.production.ts for deployments).
 */
export const createWorker = (app: { fetch: ExportedHandlerFetchHandler<Env> }) =>
  ({
    fetch: app.fetch,
    /**
     * The Cron Trigger (`[triggers]` in wrangler.toml, every minute): work that no request
     * does. Reminders due within the next minutes are handed to their users' ReminderQueue
     * objects (so a lost alarm is caught), Web Push deliveries owed are retried, media uploads
     * or deletions interrupted half-way are finished off, and payment event ids, idempotency
     * keys and change-log events (with their webhook deliveries) past their retention are forgotten,
     * and webhook deliveries that are due and were not enqueued (or not sent) are enqueued.
     */
    async scheduled(controller, env, execution) {
      // The services are loaded by the handler that runs them, not at the isolate's startup.
      const [
        { dispatchDueReminders },
        { retryOwedPushes },
        { sweepMediaLeftovers },
        { pruneAppliedEvents },
        { sweepExpiredKeys },
        { sweepExpiredChanges },
        { enqueueOwedDeliveries, sweepSweptDeliveries },
      ] = await Promise.all([
        import("./services/reminders/firing"),
        import("./services/reminders/push-delivery"),
        import("./services/media/storage"),
        import("./services/payments/webhook"),
        import("./services/idempotency/keys"),
        import("./services/change-log/retention"),
        import("./services/webhooks/deliveries"),
      ]);
      const ctx = backgroundContext(env, execution, { requestId: `cron:${controller.scheduledTime}` });
      const now = Date.now();
      execution.waitUntil(
        dispatchDueReminders(ctx, now).then((handed) => log(ctx, "info", "reminders dispatched", { ...handed })),
      );
      execution.waitUntil(retryOwedPushes(ctx, now));
      execution.waitUntil(sweepMediaLeftovers(ctx));
      execution.waitUntil(pruneAppliedEvents(ctx));
      execution.waitUntil(sweepExpiredKeys(ctx));
      execution.waitUntil(sweepExpiredChanges(ctx));
      execution.waitUntil(sweepSweptDeliveries(ctx));
      execution.waitUntil(enqueueOwedDeliveries(ctx));
    },
    /**
     * The WEBHOOK_QUEUE consumer: each message names a webhook delivery, sent and recorded by
     * services/webhooks/sending.ts (which enqueues its retries itself). Every message is acknowledged
     * once its delivery is recorded; a batch that fails before that is retried by the queue.
     */
    async queue(batch, env, execution) {
      const { sendDeliveries } = await import("./services/webhooks/sending");
      const ctx = backgroundContext(env, execution, { requestId: `queue:${crypto.randomUUID()}` });
      await sendDeliveries(
        ctx,
        batch.messages.map((message) => message.body),
      );
      batch.ackAll();
    },
  }) satisfies ExportedHandler<Env, WebhookDeliveryMessage>;
