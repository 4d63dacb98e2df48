import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { notifications } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { Notification } from "../../schemas/reminders";

// The in-app inbox: every fired reminder lands here (services/reminders/firing.ts), whatever
// its channel. Notifications are the caller's own; another user's is not found.

/** A notification as SELECT reads it: the row, and its push deliveries counted by state. */
type NotificationRow = RawRow<typeof notifications, { kind: "reminder"; channel: "push" | "in_app" }> & {
  push_pending: number;
  push_sent: number;
  push_failed: number;
};

const SELECT = sql.raw(`SELECT n.*,
  (SELECT count(*) FROM push_deliveries d WHERE d.notification_id = n.id AND d.state = 'pending') AS push_pending,
  (SELECT count(*) FROM push_deliveries d WHERE d.notification_id = n.id AND d.state = 'sent') AS push_sent,
  (SELECT count(*) FROM push_deliveries d WHERE d.notification_id = n.id AND d.state = 'failed') AS push_failed`);

const present = (row: NotificationRow): Notification => ({
  id: row.id,
  kind: row.kind,
  reminder_id: row.reminder_id,
  occurrence: row.occurrence,
  target_block_id: row.target_block_id,
  title: row.title,
  body: row.body,
  channel: row.channel,
  push: row.channel === "push" ? { pending: row.push_pending, sent: row.push_sent, failed: row.push_failed } : null,
  created_at: row.created_at,
  read_at: row.read_at,
});

/** The caller's notifications, newest first; `unread` keeps only unread (true) or read (false) ones. */
export async function listNotifications(
  ctx: UserContext,
  filters: { unread?: boolean },
  window: PageWindow,
): Promise<ResultPage<Notification>> {
  const conditions: SQL[] = [sql`n.user_id = ${ctx.actor.userId}`];
  if (filters.unread !== undefined)
    conditions.push(filters.unread ? sql`n.read_at IS NULL` : sql`n.read_at IS NOT NULL`);
  const listing: Listing = {
    name: "notifications",
    filters: { unread: filters.unread ?? null },
    keys: [
      { expression: sql`n.created_at`, direction: "desc" },
      { expression: sql`n.id`, direction: "asc" },
    ],
  };
  const [page, count] = await listingQueries(
    ctx,
    listing,
    { select: SELECT, from: sql`FROM notifications n`, where: sql.join(conditions, sql` AND `) },
    window,
  );
  const [rows, counts] = await batchAll<[NotificationRow, { total: number }]>(ctx.db, [page, count]);
  return readPage(ctx, listing, rows, counts, window, present);
}

/** Marks the notification read; one already read keeps its first `read_at`. */
export async function markNotificationRead(ctx: UserContext, id: string): Promise<Notification> {
  const [, rows] = await batchAll<[unknown, NotificationRow]>(ctx.db, [
    sql`UPDATE notifications SET read_at = ${ctx.now().toISOString()}
      WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND read_at IS NULL`,
    sql`${SELECT} FROM notifications n WHERE n.id = ${id} AND n.user_id = ${ctx.actor.userId}`,
  ]);
  const row = rows[0];
  if (!row) throw notFound("Notification not found", { id });
  return present(row);
}
