import type { RequestContext } from "../../lib/context";
import { describeError, log } from "../../lib/log";
import { firingKey } from "./presenter";

/** One due firing of a reminder: a reminder id and which occurrence of it. */
export interface QueuedFiring {
  reminderId: string;
  /** The firing's key (its instant, ISO-8601 UTC); one delivery per (reminder, occurrence). */
  occurrence: string;
  /** When to fire, epoch milliseconds. */
  fireAt: number;
}

/** The user's ReminderQueue (one Durable Object per user). */
export const reminderQueueOf = (env: Env, userId: string) =>
  env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(userId));

export const queuedFiring = (reminderId: string, fireAt: number): QueuedFiring => ({
  reminderId,
  occurrence: firingKey(fireAt),
  fireAt,
});

/**
 * Tells the user's queue about firings after a write to D1 has committed. D1 stays the truth:
 * if the object cannot be reached now, the next cron sweep hands the firing over, so a failure
 * here is logged and does not fail the request.
 */
export async function tellQueue(ctx: RequestContext, userId: string, firings: QueuedFiring[]): Promise<void> {
  if (firings.length === 0) return;
  try {
    await reminderQueueOf(ctx.env, userId).schedule(userId, firings);
  } catch (error) {
    log(ctx, "warn", "Reminder queue not reached; the cron sweep will hand the firing over", {
      error: describeError(error),
    });
  }
}
