import { DurableObject } from "cloudflare:workers";
import { backgroundUserContext } from "../lib/context";
import { log } from "../lib/log";
import type { QueuedFiring } from "../services/reminders/queue";

/** A firing whose reminder changed while it was being fired is looked at again this much later. */
const RETRY_DELAY_MS = 1_000;
/** Fired firings are remembered this long, for inspection. */
const LEDGER_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** The furthest ahead an alarm is set; a later firing re-arms it when it goes off. */
const ALARM_HORIZON_MS = 365 * 24 * 60 * 60_000;

/**
 * A user's due queue (one object per user, `idFromName(userId)`): firings ordered by time,
 * the alarm set to the earliest. D1 stays the source of truth (services/reminders/firing.ts
 * decides there whether a firing still applies, and makes delivery idempotent); this object
 * orders and fires; its ledger records what it fired (kept a week, for inspection).
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
          PRIMARY KEY (reminder_id, occurrence));
        CREATE TABLE IF NOT EXISTS owner (id INTEGER PRIMARY KEY CHECK (id = 1), user_id TEXT NOT NULL);`);
    });
  }

  /** Adds firings not already queued or fired, and moves the alarm earlier if needed. */
  async schedule(userId: string, firings: QueuedFiring[]): Promise<number> {
    let added = 0;
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO owner (id, user_id) VALUES (1, ?)", userId);
      for (const firing of firings) added += this.enqueue(firing);
    });
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

  /** Answers at once: `GET /health` calls it on an instance of its own to see the namespace answer. */
  async ping(): Promise<true> {
    return true;
  }

  /** Firings this object fired (and still remembers). */
  async firedCount(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM fired").one().n;
  }

  override async alarm(): Promise<void> {
    const owner = this.ctx.storage.sql.exec<{ user_id: string }>("SELECT user_id FROM owner").toArray()[0];
    if (!owner) {
      await this.ctx.storage.deleteAlarm();
      return;
    }
    // Loaded here, not at startup: firing reaches the reminders' recurrence rules and the pages' content.
    const { FIRING_BATCH, fireDue } = await import("../services/reminders/firing");
    const now = Date.now();
    const due = this.ctx.storage.sql
      .exec<{ reminder_id: string; occurrence: string; fire_at: number }>(
        "SELECT reminder_id, occurrence, fire_at FROM queue WHERE fire_at <= ? ORDER BY fire_at, reminder_id LIMIT ?",
        now,
        FIRING_BATCH,
      )
      .toArray()
      .map((row) => ({ reminderId: row.reminder_id, occurrence: row.occurrence, fireAt: row.fire_at }));
    if (due.length > 0) {
      const ctx = backgroundUserContext(this.env, this.ctx, owner.user_id, {
        requestId: `reminders:${owner.user_id}:${now}`,
      });
      // A D1 failure throws here, before the queue changes: the alarm is retried and fires them then.
      const outcome = await fireDue(ctx, due, now);
      this.ctx.storage.transactionSync(() => {
        for (const firing of outcome.fired) {
          this.ctx.storage.sql.exec(
            "INSERT OR IGNORE INTO fired (reminder_id, occurrence, fired_at) VALUES (?, ?, ?)",
            firing.reminderId,
            firing.occurrence,
            now,
          );
        }
        for (const firing of [...outcome.fired, ...outcome.skipped, ...outcome.obsolete]) {
          this.ctx.storage.sql.exec(
            "DELETE FROM queue WHERE reminder_id = ? AND occurrence = ?",
            firing.reminderId,
            firing.occurrence,
          );
        }
        for (const firing of outcome.retry) {
          this.ctx.storage.sql.exec(
            "UPDATE queue SET fire_at = ? WHERE reminder_id = ? AND occurrence = ?",
            Math.max(firing.fireAt, now + RETRY_DELAY_MS),
            firing.reminderId,
            firing.occurrence,
          );
        }
        for (const firing of outcome.next) this.enqueue(firing);
        this.ctx.storage.sql.exec("DELETE FROM fired WHERE fired_at < ?", now - LEDGER_RETENTION_MS);
      });
      log(ctx, "info", "reminders fired", {
        fired: outcome.fired.length,
        obsolete: outcome.obsolete.length,
        skipped: outcome.skipped.length,
        retried: outcome.retry.length,
        d1_round_trips: ctx.meter.count,
      });
    }
    await this.armAlarm();
  }

  /**
   * Queues a firing; a firing queued again keeps one entry. The ledger is not consulted: D1 says
   * whether a firing is still owed (a reminder rescheduled onto an instant that already fired must
   * still move on), and its inbox makes a repeated firing deliver nothing.
   */
  private enqueue(firing: QueuedFiring): number {
    const cursor = this.ctx.storage.sql.exec(
      `INSERT INTO queue (reminder_id, occurrence, fire_at) VALUES (?, ?, ?)
       ON CONFLICT (reminder_id, occurrence) DO NOTHING`,
      firing.reminderId,
      firing.occurrence,
      firing.fireAt,
    );
    return cursor.rowsWritten > 0 ? 1 : 0;
  }

  /**
   * The alarm goes off at the earliest queued time, kept between now and a year from now: the
   * runtime refuses alarms before 1687 or after 2189, and one refused alarm would stop the queue.
   */
  private async armAlarm(): Promise<void> {
    const next = this.ctx.storage.sql
      .exec<{ fire_at: number | null }>("SELECT min(fire_at) AS fire_at FROM queue")
      .one();
    if (next.fire_at === null) {
      await this.ctx.storage.deleteAlarm();
      return;
    }
    const now = Date.now();
    await this.ctx.storage.setAlarm(Math.min(Math.max(next.fire_at, now), now + ALARM_HORIZON_MS));
  }
}
