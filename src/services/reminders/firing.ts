import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext, UserContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { describeError, log } from "../../lib/log";
import { isActive, visibleTo } from "../blocks/visibility";
import { propertyPathOfColumn } from "../databases/property-path";
import { titleText } from "../pages/pages";
import { dueAtOf, firingKey, isoOrNull, type ReminderRecord, seriesOf, timingOf } from "./presenter";
import { sendOwedPushes } from "./push-delivery";
import { type QueuedFiring, queuedFiring, reminderQueueOf } from "./queue";
import { afterFiring, afterSkipping, isLive, LIVE_STATUS_LIST } from "./states";

// Firing: what a user's ReminderQueue does on its alarm, and the cron sweep that makes sure
// every due reminder reaches its queue. D1 decides everything: a firing applies only while
// the reminder still waits for exactly that firing (same `next_fire_at`, same version), and
// the inbox holds one notification per (reminder, firing key), so a firing handed over twice,
// fired by two alarms, or replayed after the object was evicted mid-batch delivers once.

/** Firings one alarm run takes on at most (the rest follow on the next run, at once). */
export const FIRING_BATCH = 50;

export interface FiringOutcome {
  /** Fired now, or found already fired: into the queue's ledger. */
  fired: QueuedFiring[];
  /** No longer wanted (the reminder moved, ended or is gone): dropped without firing. */
  obsolete: QueuedFiring[];
  /** Due, but its row is in the trash or archived, or its date property is gone: passed over, nothing delivered. */
  skipped: QueuedFiring[];
  /** The reminder changed while this was computed: try again. */
  retry: QueuedFiring[];
  /** The next firing of each repeating reminder that fired. */
  next: QueuedFiring[];
}

/** A reminder with its row's title (as its owner sees it) and whether it still has its row and date property. */
type DueRecord = ReminderRecord & { title_json: string | null; target_active: number };

/** A row's title is its database's title property; other pages have `properties.title`. */
const TITLE_JSON = sql.raw(`(SELECT b.properties -> (${propertyPathOfColumn("dp.id")}) FROM database_properties dp
    WHERE dp.database_id = b.database_id AND dp.type = 'title' LIMIT 1)`);

/** Titles are cut to this many characters: a push message carries at most about 4 KB. */
export const NOTIFICATION_TITLE_MAX = 200;

function notificationTitle(record: DueRecord): string {
  let title = "";
  try {
    title = record.title_json === null ? "" : titleText(JSON.parse(record.title_json)).trim();
  } catch {
    title = "";
  }
  const characters = [...title];
  if (characters.length > NOTIFICATION_TITLE_MAX) return `${characters.slice(0, NOTIFICATION_TITLE_MAX - 1).join("")}…`;
  return title || "Reminder";
}

/** "Due Tue, Nov 24, 10:00 AM (Europe/Paris)", in the reminder's own zone. */
function notificationBody(record: DueRecord, remindAt: number): string {
  const dueAt = dueAtOf(record, remindAt);
  if (dueAt === null) return "";
  const due = new Date(dueAt);
  const when = new Intl.DateTimeFormat("en-US", {
    timeZone: record.timezone,
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(due);
  return `Due ${when} (${record.timezone})`;
}

/**
 * Fires the user's due firings in due order: one read of their reminders, one batch of
 * conditional writes (notification, push deliveries owed, the reminder's next state), then
 * the pushes. Throws only when D1 fails (the alarm is then retried; nothing was half-written).
 */
export async function fireDue(ctx: UserContext, firings: QueuedFiring[], now: number): Promise<FiringOutcome> {
  const outcome: FiringOutcome = { fired: [], obsolete: [], skipped: [], retry: [], next: [] };
  if (firings.length === 0) return outcome;
  const ids = [...new Set(firings.map((firing) => firing.reminderId))];
  const [records] = await batchAll<[DueRecord]>(ctx.db, [
    sql`SELECT r.*, CASE WHEN b.id IS NULL THEN NULL ELSE ${TITLE_JSON} END AS title_json,
        (b.id IS NOT NULL AND ${isActive()} AND EXISTS (SELECT 1 FROM database_properties p
          WHERE p.database_id = b.database_id AND p.id = r.source_property_id AND p.type = 'date')) AS target_active
      FROM reminders r LEFT JOIN blocks b ON b.id = r.target_block_id AND ${visibleTo(ctx.actor)}
      WHERE r.user_id = ${ctx.actor.userId} AND r.id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
  ]);
  const byId = new Map(records.map((record) => [record.id, record]));
  const writes: SQL[] = [];
  // Each applied firing's writes, in order; the reminder's update (last of them) says whether it applied.
  const applied: {
    firing: QueuedFiring;
    nextFireAt: number | null;
    notificationId: string | null;
    push: boolean;
    lastWrite: number;
  }[] = [];
  const timestamp = new Date(now).toISOString();
  for (const firing of [...firings].sort((a, b) => a.fireAt - b.fireAt)) {
    const record = byId.get(firing.reminderId);
    const waiting =
      record &&
      record.next_fire_at !== null &&
      firingKey(record.next_fire_at) === firing.occurrence &&
      isLive(record.status);
    if (!record || !waiting || record.next_fire_at === null) {
      outcome.obsolete.push(firing);
      continue;
    }
    if (record.next_fire_at > now) {
      // Handed over early (the sweep looks ahead): the alarm fires it at its time.
      outcome.retry.push({ ...firing, fireAt: record.next_fire_at });
      continue;
    }
    if (!record.target_active) {
      // Its row is in the trash or archived, or its date property is gone: skip, deliver nothing.
      const skipped = afterSkipping(seriesOf(record), timingOf(record), record.next_fire_at);
      writes.push(
        sql`UPDATE reminders SET status = ${skipped.status}, remind_at = ${new Date(skipped.remindAt).toISOString()},
            next_fire_at = ${skipped.nextFireAt}, snoozed_until = NULL, version = version + 1, updated_at = ${timestamp}
          WHERE id = ${record.id} AND version = ${record.version} RETURNING id`,
      );
      applied.push({
        firing,
        nextFireAt: skipped.nextFireAt,
        notificationId: null,
        push: false,
        lastWrite: writes.length - 1,
      });
      continue;
    }
    const timing = afterFiring(seriesOf(record), timingOf(record), record.next_fire_at);
    const notificationId = newId();
    const guard = sql`r.id = ${record.id} AND r.version = ${record.version}`;
    writes.push(
      sql`INSERT INTO notifications (id, user_id, kind, reminder_id, occurrence, target_block_id, title, body, channel, created_at)
        SELECT ${notificationId}, r.user_id, 'reminder', r.id, ${firing.occurrence}, r.target_block_id,
          ${notificationTitle(record)}, ${notificationBody(record, timing.remindAt)}, r.channel, ${timestamp}
        FROM reminders r WHERE ${guard}
        ON CONFLICT (reminder_id, occurrence) DO NOTHING`,
      // Only a notification made just now owes pushes: a repeat of the firing finds it made.
      sql`INSERT INTO push_deliveries (notification_id, subscription_id, user_id, state, attempts, next_attempt_at, updated_at)
        SELECT n.id, s.id, n.user_id, 'pending', 0, ${now}, ${timestamp}
        FROM notifications n JOIN push_subscriptions s ON s.user_id = n.user_id
        WHERE n.id = ${notificationId} AND n.channel = 'push'`,
      sql`UPDATE reminders SET status = ${timing.status}, remind_at = ${new Date(timing.remindAt).toISOString()},
          next_fire_at = ${timing.nextFireAt}, snoozed_until = ${isoOrNull(timing.snoozedUntil)},
          occurrence_count = occurrence_count + 1, version = version + 1, updated_at = ${timestamp}
        WHERE id = ${record.id} AND version = ${record.version} RETURNING id`,
    );
    applied.push({
      firing,
      nextFireAt: timing.nextFireAt,
      notificationId,
      push: record.channel === "push",
      lastWrite: writes.length - 1,
    });
  }
  if (applied.length === 0) return outcome;
  const results = await batchAll<unknown[]>(ctx.db, writes);
  const pushNotifications: string[] = [];
  for (const entry of applied) {
    const updated = ((results[entry.lastWrite] as unknown[] | undefined) ?? []).length > 0;
    if (!updated) {
      // Changed between the read and the write (an edit, a snooze): read again and decide again.
      outcome.retry.push(entry.firing);
      continue;
    }
    if (entry.notificationId === null) outcome.skipped.push(entry.firing);
    else outcome.fired.push(entry.firing);
    if (entry.push && entry.notificationId) pushNotifications.push(entry.notificationId);
    if (entry.nextFireAt !== null) outcome.next.push(queuedFiring(entry.firing.reminderId, entry.nextFireAt));
  }
  // In-app firings owe no push: no query for them.
  await sendOwedPushes(ctx, { notificationIds: pushNotifications, now });
  return outcome;
}

/** How far ahead the cron sweep hands firings to the queues (a tick is a minute; one missed tick is covered). */
export const SWEEP_HORIZON_MS = 2 * 60_000;
/** Reminders one sweep hands over at most; a larger backlog drains over the following ticks. */
export const SWEEP_LIMIT = 20_000;
/** Queues told at once. */
const SWEEP_CONCURRENCY = 50;

/**
 * The Cron Trigger's sweep: every live reminder due within the horizon (or overdue: an alarm
 * that was lost) is handed to its user's queue, which ignores what it already holds or fired.
 * Returns how many firings and users were handed over.
 */
export async function dispatchDueReminders(
  ctx: RequestContext,
  now: number,
): Promise<{ firings: number; users: number; unreached: number }> {
  const [rows] = await batchAll<[{ id: string; user_id: string; next_fire_at: number }]>(ctx.db, [
    sql`SELECT id, user_id, next_fire_at FROM reminders
      WHERE next_fire_at IS NOT NULL AND next_fire_at <= ${now + SWEEP_HORIZON_MS} AND status IN ${sql.raw(LIVE_STATUS_LIST)}
      ORDER BY next_fire_at LIMIT ${SWEEP_LIMIT}`,
  ]);
  const byUser = new Map<string, QueuedFiring[]>();
  for (const row of rows) {
    const firings = byUser.get(row.user_id) ?? [];
    firings.push(queuedFiring(row.id, row.next_fire_at));
    byUser.set(row.user_id, firings);
  }
  const users = [...byUser.entries()];
  let unreached = 0;
  for (let start = 0; start < users.length; start += SWEEP_CONCURRENCY) {
    const results = await Promise.allSettled(
      users
        .slice(start, start + SWEEP_CONCURRENCY)
        .map(([userId, firings]) => reminderQueueOf(ctx.env, userId).schedule(userId, firings)),
    );
    for (const result of results) {
      if (result.status === "rejected") {
        unreached++;
        log(ctx, "warn", "Reminder queue not reached by the sweep; the next tick tries again", {
          error: describeError(result.reason),
        });
      }
    }
  }
  return { firings: rows.length, users: users.length, unreached };
}
