import { DurableObject } from "cloudflare:workers";

/** One due firing of a reminder: a reminder id and which occurrence of it. */
export interface QueuedFiring {
  reminderId: string;
  /** Occurrence key (the occurrence's due time, ISO-8601); one firing per (reminder, occurrence). */
  occurrence: string;
  /** When to fire, epoch milliseconds. */
  fireAt: number;
}

/**
 * A user's due queue (one object per user, `idFromName(userId)`): firings ordered by
 * time, the alarm set to the earliest. D1 stays the source of truth; this object only
 * orders and fires, and its ledger makes firing idempotent per (reminder, occurrence),
 * so handing it the same firing twice (cron sweep plus alarm) never fires it twice.
 */
export class ReminderQueue extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.ctx.storage.sql.exec(`
        CREATE TABLE IF NOT EXISTS queue (
          reminder_id TEXT NOT NULL, occurrence TEXT NOT NULL, fire_at INTEGER NOT NULL,
          PRIMARY KEY (reminder_id, occurrence));
        CREATE INDEX IF NOT EXISTS queue_fire_at ON queue (fire_at);
        CREATE TABLE IF NOT EXISTS fired (
          reminder_id TEXT NOT NULL, occurrence TEXT NOT NULL, fired_at INTEGER NOT NULL,
          PRIMARY KEY (reminder_id, occurrence));`);
    });
  }

  /** Adds firings not already queued or fired, and moves the alarm earlier if needed. */
  async schedule(firings: QueuedFiring[]): Promise<number> {
    let added = 0;
    for (const firing of firings) {
      const cursor = this.ctx.storage.sql.exec(
        `INSERT INTO queue (reminder_id, occurrence, fire_at)
         SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM fired WHERE reminder_id = ?1 AND occurrence = ?2)
         ON CONFLICT (reminder_id, occurrence) DO UPDATE SET fire_at = excluded.fire_at`,
        firing.reminderId,
        firing.occurrence,
        firing.fireAt,
      );
      added += cursor.rowsWritten > 0 ? 1 : 0;
    }
    await this.armAlarm();
    return added;
  }

  /** Queued firings, earliest first. */
  async pending(): Promise<QueuedFiring[]> {
    return this.ctx.storage.sql
      .exec<{ reminder_id: string; occurrence: string; fire_at: number }>(
        "SELECT reminder_id, occurrence, fire_at FROM queue ORDER BY fire_at, reminder_id",
      )
      .toArray()
      .map((row) => ({ reminderId: row.reminder_id, occurrence: row.occurrence, fireAt: row.fire_at }));
  }

  /** Firings already delivered, for idempotency checks and inspection. */
  async firedCount(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM fired").one().n;
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    // Queue and ledger change together in this object's storage, so a firing
    // moves from one to the other exactly once.
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec(
        "INSERT OR IGNORE INTO fired (reminder_id, occurrence, fired_at) SELECT reminder_id, occurrence, ? FROM queue WHERE fire_at <= ?",
        now,
        now,
      );
      this.ctx.storage.sql.exec("DELETE FROM queue WHERE fire_at <= ?", now);
    });
    await this.armAlarm();
  }

  private async armAlarm(): Promise<void> {
    const next = this.ctx.storage.sql
      .exec<{ fire_at: number | null }>("SELECT min(fire_at) AS fire_at FROM queue")
      .one();
    if (next.fire_at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next.fire_at);
  }
}
