// The baseline of `npm run bench -- reminders`: the D1 work of firing every due reminder,
// with no Durable Objects. One cron tick reads the due reminders with the sweep's query
// (src/services/reminders/firing.ts `dispatchDueReminders`), then fires them in batches of
// FIRING_BATCH, one after the other, each batch what one ReminderQueue alarm run sends
// (`fireDue`): one read of the batch's reminders with their row titles, then one D1 batch of
// the same three conditional statements per reminder (the notification, the push
// deliveries it owes, the reminder's next state). The bench divides the Worker's drain time
// by this one's.
//
// Not copied from the Worker: the per-user queues (their storage, alarms and ledger), the
// claim of owed pushes after each batch (the bench's reminders are in_app: there are none),
// and recurrence (the bench's reminders are one-off: a fired one-off is `fired` with no next
// firing). The batches span users, so the visibility condition takes each reminder's own
// user (`r.user_id`) where the Worker binds the queue's user.
//
// Keep the SQL in step with firing.ts: the bench checks that both servers wrote one
// notification per reminder, which catches a change in what the statements do, not in
// what they cost.
import type { D1Database } from "@cloudflare/workers-types/index.ts";

interface Env {
  DB: D1Database;
}

const FIRING_BATCH = 50;
const SWEEP_HORIZON_MS = 2 * 60_000;
const SWEEP_LIMIT = 20_000;
const LIVE_STATUS_LIST = "('scheduled', 'snoozed', 'fired')";

interface DueRecord {
  id: string;
  user_id: string;
  remind_at: string;
  due_offset_ms: number | null;
  timezone: string;
  status: string;
  next_fire_at: number | null;
  version: number;
  title_json: string | null;
}

const TITLE_JSON = `(SELECT b.properties -> ('$."' || dp.id || '"') FROM database_properties dp
    WHERE dp.database_id = b.database_id AND dp.type = 'title' LIMIT 1)`;

/** services/pages/pages.ts `titleText`, then firing.ts `notificationTitle`. */
function notificationTitle(record: DueRecord): string {
  try {
    const value: unknown = record.title_json === null ? "" : JSON.parse(record.title_json);
    const text =
      typeof value === "string"
        ? value
        : Array.isArray(value)
          ? value.map((span) => String(span?.text ?? span?.plain_text ?? "")).join("")
          : "";
    return text.trim() || "Reminder";
  } catch {
    return "Reminder";
  }
}

function notificationBody(record: DueRecord, remindAt: number): string {
  if (record.due_offset_ms === null) return "";
  const when = new Intl.DateTimeFormat("en-US", {
    timeZone: record.timezone,
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(new Date(remindAt + record.due_offset_ms));
  return `Due ${when} (${record.timezone})`;
}

/** One batch: one read, one write batch. */
async function fireBatch(db: D1Database, ids: string[], now: number): Promise<{ fired: number; roundTrips: number }> {
  const { results: records } = await db
    .prepare(
      `SELECT r.*, CASE WHEN b.id IS NULL THEN NULL ELSE ${TITLE_JSON} END AS title_json
      FROM reminders r LEFT JOIN blocks b ON b.id = r.target_block_id
        AND (b.created_by = r.user_id OR b.created_by IS NULL) AND b.type <> 'provider_audit_log'
      WHERE r.id IN (${ids.map(() => "?").join(", ")})`,
    )
    .bind(...ids)
    .all<DueRecord>();
  const timestamp = new Date(now).toISOString();
  const writes = [];
  for (const record of records) {
    if (record.next_fire_at === null || record.next_fire_at > now || !LIVE_STATUS_LIST.includes(`'${record.status}'`)) {
      continue;
    }
    const occurrence = new Date(record.next_fire_at).toISOString();
    const remindAt = Date.parse(record.remind_at);
    const notificationId = crypto.randomUUID();
    writes.push(
      db
        .prepare(
          `INSERT INTO notifications (id, user_id, kind, reminder_id, occurrence, target_block_id, title, body, channel, created_at)
          SELECT ?, r.user_id, 'reminder', r.id, ?, r.target_block_id, ?, ?, r.channel, ?
          FROM reminders r WHERE r.id = ? AND r.version = ?
          ON CONFLICT (reminder_id, occurrence) DO NOTHING`,
        )
        .bind(
          notificationId,
          occurrence,
          notificationTitle(record),
          notificationBody(record, remindAt),
          timestamp,
          record.id,
          record.version,
        ),
      db
        .prepare(
          `INSERT INTO push_deliveries (notification_id, subscription_id, user_id, state, attempts, next_attempt_at, updated_at)
          SELECT n.id, s.id, n.user_id, 'pending', 0, ?, ?
          FROM notifications n JOIN push_subscriptions s ON s.user_id = n.user_id
          WHERE n.id = ? AND n.channel = 'push'`,
        )
        .bind(now, timestamp, notificationId),
      db
        .prepare(
          `UPDATE reminders SET status = 'fired', remind_at = ?, next_fire_at = NULL, snoozed_until = NULL,
            occurrence_count = occurrence_count + 1, version = version + 1, updated_at = ?
          WHERE id = ? AND version = ? RETURNING id`,
        )
        .bind(new Date(remindAt).toISOString(), timestamp, record.id, record.version),
    );
  }
  if (writes.length === 0) return { fired: 0, roundTrips: 1 };
  const results = await db.batch(writes);
  const fired = results.filter((result, index) => index % 3 === 2 && result.results.length > 0).length;
  return { fired, roundTrips: 2 };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    // Readiness probe, and proof that this server reads the seeded reminders.
    if (new URL(request.url).pathname !== "/") return Response.json({ error: "Route not found" }, { status: 404 });
    const row = await env.DB.prepare(
      `SELECT COUNT(*) AS due FROM reminders WHERE next_fire_at IS NOT NULL AND status IN ${LIVE_STATUS_LIST}`,
    ).first<{ due: number }>();
    return Response.json({ due: row?.due ?? 0 });
  },

  async scheduled(_controller: unknown, env: Env): Promise<void> {
    const now = Date.now();
    const { results: due } = await env.DB.prepare(
      `SELECT id, user_id, next_fire_at FROM reminders
      WHERE next_fire_at IS NOT NULL AND next_fire_at <= ? AND status IN ${LIVE_STATUS_LIST}
      ORDER BY next_fire_at LIMIT ?`,
    )
      .bind(now + SWEEP_HORIZON_MS, SWEEP_LIMIT)
      .all<{ id: string; user_id: string; next_fire_at: number }>();
    let d1RoundTrips = 1;
    let fired = 0;
    let batches = 0;
    for (let start = 0; start < due.length; start += FIRING_BATCH) {
      // Each batch reads the clock, as an alarm run does.
      const ids = due.slice(start, start + FIRING_BATCH).map((row) => row.id);
      const batch = await fireBatch(env.DB, ids, Date.now());
      fired += batch.fired;
      d1RoundTrips += batch.roundTrips;
      batches += 1;
    }
    console.log(JSON.stringify({ message: "baseline reminders fired", fired, due: due.length, batches, d1RoundTrips }));
  },
};
