import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";

/** Runs the Cron Trigger once, as the runtime does every minute, and waits for its work. */
export async function cronTick(): Promise<void> {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" });
  const execution = createExecutionContext();
  await worker.scheduled?.(controller, env, execution);
  await waitOnExecutionContext(execution);
}
