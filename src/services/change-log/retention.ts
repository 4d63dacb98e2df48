import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext } from "../../lib/context";
import { CHANGE_RETENTION_DAYS } from "./events";

// The Cron Trigger's sweep of the change log. It removes the log's oldest events, in id order, up
// to the first one still within the retention, so what is kept is always every event after one id,
// `change_log_horizon.swept_through`: a feed cursor at or after it has missed nothing, one before it
// is told so (410). At most `limit` events a run (the sweep runs every minute); the horizon moves in
// the same batch as the deletion.

/** Removes up to `limit` of the oldest events older than the retention; returns how many. */
export async function sweepExpiredChanges(ctx: RequestContext, limit = 5000): Promise<number> {
  const cutoff = new Date(ctx.now().getTime() - CHANGE_RETENTION_DAYS * 86_400_000).toISOString();
  // The oldest `limit` events, and among them the prefix older than the cutoff.
  const oldest = sql`(SELECT id, occurred_at FROM change_events ORDER BY id LIMIT ${limit})`;
  const firstKept = sql`(SELECT min(k.id) FROM ${oldest} k WHERE k.occurred_at >= ${cutoff})`;
  const [, removed] = await batchAll<[unknown, { removed: number }]>(ctx.db, [
    sql`UPDATE change_log_horizon SET swept_through = max(swept_through, coalesce(
        (SELECT max(o.id) FROM ${oldest} o WHERE o.id < coalesce(${firstKept}, 9223372036854775807)), 0))
      WHERE id = 1`,
    sql`DELETE FROM change_events WHERE id <= (SELECT swept_through FROM change_log_horizon WHERE id = 1)
      RETURNING 0 AS removed`,
  ]);
  return removed.length;
}
