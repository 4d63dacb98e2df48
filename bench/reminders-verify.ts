// What a server left in its D1 (and, for the Worker, in its ReminderQueue objects),
// read from the SQLite files once the server has stopped: two processes on one D1
// file fail, so nothing reads them while workerd runs.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SeededReminder } from "./reminders-seed.ts";

export interface FiringCheck {
  reminders: number;
  /** Notification rows for the seeded reminders. */
  notifications: number;
  /** Reminders with no notification for their occurrence. */
  lost: number;
  /** Notifications beyond one per reminder (whatever their occurrence). */
  duplicates: number;
  /** Most notifications for one (reminder, occurrence); 1 when each fired once. */
  maxPerOccurrence: number;
  /** Notifications for an occurrence the reminder was not due at. */
  wrongOccurrence: number;
  /** Reminders now `fired`, counted once, with nothing left to fire (one-off). */
  advanced: number;
  /** push_deliveries rows of the seeded push reminders' notifications, by state (one per notification expected). */
  pushDeliveries: Record<string, number>;
  /** Notification `created_at` (the firing's clock), first and last, epoch ms. */
  firstCreatedAt: number | null;
  lastCreatedAt: number | null;
}

export interface QueueCheck {
  queues: number;
  /** Firings still queued in some object: 0 once everything fired. */
  queued: number;
  /** Firings the objects' ledgers hold as fired. */
  fired: number;
}

/** The SQLite files of local state of one kind (`d1/miniflare-D1DatabaseObject`, ...), metadata aside. */
export async function sqliteFiles(persistDir: string, kind: string): Promise<string[]> {
  const dir = join(persistDir, "v3", kind);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite").map((name) => join(dir, name));
}

/** One notification per seeded reminder, for its occurrence, and the reminder advanced. */
export async function checkFirings(persistDir: string, seeded: readonly SeededReminder[]): Promise<FiringCheck> {
  const files = await sqliteFiles(persistDir, "d1/miniflare-D1DatabaseObject");
  if (files.length !== 1) throw new Error(`Expected one D1 database under ${persistDir}, found ${files.length}`);
  const db = new DatabaseSync(files[0] as string, { readOnly: true });
  try {
    const occurrences = new Map(seeded.map((reminder) => [reminder.id, reminder.occurrence]));
    const rows = db
      .prepare("SELECT reminder_id, occurrence, created_at FROM notifications WHERE kind = 'reminder'")
      .all() as { reminder_id: string | null; occurrence: string; created_at: string }[];
    const perReminder = new Map<string, number>();
    const perOccurrence = new Map<string, number>();
    const rightOccurrence = new Set<string>();
    let notifications = 0;
    let wrongOccurrence = 0;
    let firstCreatedAt: number | null = null;
    let lastCreatedAt: number | null = null;
    for (const row of rows) {
      const expected = row.reminder_id === null ? undefined : occurrences.get(row.reminder_id);
      if (row.reminder_id === null || expected === undefined) continue;
      notifications += 1;
      perReminder.set(row.reminder_id, (perReminder.get(row.reminder_id) ?? 0) + 1);
      const key = `${row.reminder_id} ${row.occurrence}`;
      perOccurrence.set(key, (perOccurrence.get(key) ?? 0) + 1);
      if (row.occurrence === expected) rightOccurrence.add(row.reminder_id);
      else wrongOccurrence += 1;
      const created = Date.parse(row.created_at);
      firstCreatedAt = Math.min(firstCreatedAt ?? created, created);
      lastCreatedAt = Math.max(lastCreatedAt ?? created, created);
    }
    const pushReminders = new Set(seeded.filter((r) => r.channel === "push").map((r) => r.id));
    const pushDeliveries: Record<string, number> = {};
    const deliveries = db
      .prepare(`SELECT n.reminder_id, d.state FROM push_deliveries d JOIN notifications n ON n.id = d.notification_id`)
      .all() as { reminder_id: string | null; state: string }[];
    for (const delivery of deliveries) {
      if (delivery.reminder_id === null || !pushReminders.has(delivery.reminder_id)) continue;
      pushDeliveries[delivery.state] = (pushDeliveries[delivery.state] ?? 0) + 1;
    }
    const advancedIds = new Set(
      (
        db
          .prepare(
            "SELECT id FROM reminders WHERE status = 'fired' AND occurrence_count = 1 AND next_fire_at IS NULL AND version = 2",
          )
          .all() as { id: string }[]
      ).map((row) => row.id),
    );
    return {
      reminders: seeded.length,
      notifications,
      lost: seeded.filter((reminder) => !rightOccurrence.has(reminder.id)).length,
      duplicates: [...perReminder.values()].reduce((sum, count) => sum + count - 1, 0),
      maxPerOccurrence: Math.max(0, ...perOccurrence.values()),
      wrongOccurrence,
      advanced: seeded.filter((reminder) => advancedIds.has(reminder.id)).length,
      pushDeliveries,
      firstCreatedAt,
      lastCreatedAt,
    };
  } finally {
    db.close();
  }
}

/** What the Worker's ReminderQueue objects still hold. */
export async function checkQueues(persistDir: string, className: string): Promise<QueueCheck> {
  const dirs = await readdir(join(persistDir, "v3", "do")).catch(() => [] as string[]);
  const dir = dirs.find((name) => name.endsWith(`-${className}`));
  const files = dir ? await sqliteFiles(persistDir, join("do", dir)) : [];
  const check: QueueCheck = { queues: 0, queued: 0, fired: 0 };
  for (const file of files) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const tables = new Set(
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (t) => t.name,
        ),
      );
      if (!tables.has("queue")) continue;
      check.queues += 1;
      check.queued += (db.prepare("SELECT count(*) AS n FROM queue").get() as { n: number }).n;
      check.fired += tables.has("fired") ? (db.prepare("SELECT count(*) AS n FROM fired").get() as { n: number }).n : 0;
    } finally {
      db.close();
    }
  }
  return check;
}
