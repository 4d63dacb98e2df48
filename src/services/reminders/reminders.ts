import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import { isRecurring, type RecurrenceRule } from "../../domain/recurrence-rule";
import type { UserContext } from "../../lib/context";
import { assertPreconditions, type Preconditions, preconditionSql } from "../../lib/entity-tags";
import { badRequest, conflict, notFound, unauthorized } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  type Listing,
  listingQueries,
  type OrderKey,
  type PageWindow,
  type ResultPage,
  readPage,
} from "../../lib/pagination";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import {
  type CreateReminderInput,
  REMINDER_LATEST,
  type Reminder,
  type ReminderStatus,
  type UpdateReminderInput,
} from "../../schemas/reminders";
import { isActive, visibleTo } from "../blocks/visibility";
import {
  dueAtOf,
  isoOrNull,
  parseRule,
  presentReminder,
  type ReminderRecord,
  reminderValidator,
  reminderVersioned,
  seriesOf,
  timingOf,
} from "./presenter";
import { queuedFiring, tellQueue } from "./queue";
import { afterDismissOccurrence, initialTiming, isLive, LIVE_STATUS_LIST, type Series, type Timing } from "./states";
import { localDistanceMs } from "./wall-clock";

// Reminders are personal: every statement is scoped to the caller's user id, so another
// user's reminder is simply not found (404). Writes are conditional statements in one batch
// with the read that explains a refusal; where the new timing has to be computed from the
// stored one (update, dismiss), the write is guarded by the version it was computed from.

const reminderNotFound = (id: string) => notFound("Reminder not found", { id });
const LIVE = sql.raw(LIVE_STATUS_LIST);

const ended = (record: ReminderRecord, action: string) =>
  conflict(`The reminder is ${record.status}: it cannot be ${action}`, { id: record.id, status: record.status });

/**
 * One row saying whether `targetId` is a database row the caller can see and that is active
 * (`database_id`), what type its database gives `propertyId`, and whether the caller's user exists.
 */
const targetState = (ctx: UserContext, targetId: string, propertyId: string): SQL => sql`
  SELECT
    (SELECT b.database_id FROM blocks b WHERE b.id = ${targetId} AND b.type = 'database_row'
       AND b.database_id IS NOT NULL AND ${visibleTo(ctx.actor)} AND ${isActive()}) AS database_id,
    (SELECT p.type FROM blocks b JOIN database_properties p ON p.database_id = b.database_id
       WHERE b.id = ${targetId} AND p.id = ${propertyId}) AS property_type,
    ${callerExists(ctx)} AS caller_exists`;

/** True in SQL when the target is such a row and the property a date property of its database. */
const validTarget = (ctx: UserContext, targetId: string, propertyId: string): SQL => sql`EXISTS (
  SELECT 1 FROM blocks b JOIN database_properties p ON p.database_id = b.database_id AND p.id = ${propertyId}
  WHERE b.id = ${targetId} AND b.type = 'database_row' AND p.type = 'date' AND ${visibleTo(ctx.actor)} AND ${isActive()})`;

function explainTarget(state: TargetState | undefined, targetId: string, propertyId: string): never {
  if (!state?.caller_exists) throw unauthorized("The signed-in user no longer exists");
  if (!state.database_id) {
    throw notFound("Target row not found", { field: "target_block_id", target_block_id: targetId });
  }
  throw badRequest(
    state.property_type === null
      ? "source_property_id is not a property of the row's database"
      : `source_property_id is a ${state.property_type} property, not a date property`,
    { field: "source_property_id", source_property_id: propertyId, database_id: state.database_id },
  );
}

/** The JSON stored for a rule (zod's output order, so equal rules store equal text). */
const ruleJson = (rule: RecurrenceRule | null | undefined): string | null => (rule ? JSON.stringify(rule) : null);

/** The canonical spelling of a time zone name the runtime knows ("europe/paris" is stored "Europe/Paris"). */
const canonicalZone = (name: string): string =>
  new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;

/** In an upsert: the stored reminder and the new one describe the same occurrences. */
const SAME_SCHEDULE =
  "reminders.series_start = excluded.series_start AND reminders.timezone = excluded.timezone AND reminders.recurrence_rule IS excluded.recurrence_rule";

/** The series a rule defines from `remindAt` (its `anchor_at` when it has one). */
const seriesFrom = (
  rule: RecurrenceRule | null,
  timeZone: string,
  remindAt: number,
  dueOffsetMs: number | null,
): Series => ({
  rule,
  timeZone,
  start: rule?.anchor_at ? Date.parse(rule.anchor_at) : remindAt,
  dueOffsetMs,
});

const timingColumns = (timing: Timing): SQL => sql`
  status = ${timing.status}, remind_at = ${new Date(timing.remindAt).toISOString()},
  next_fire_at = ${timing.nextFireAt}, snoozed_until = ${isoOrNull(timing.snoozedUntil)}`;

/** Hands the reminder's next firing (if any) to the user's queue. */
async function queueNext(ctx: UserContext, record: ReminderRecord): Promise<void> {
  if (record.next_fire_at !== null) {
    await tellQueue(ctx, record.user_id, [queuedFiring(record.id, record.next_fire_at)]);
  }
}

/** The caller's user, which an app session may outlive: its reminders would have no owner. */
const callerExists = (ctx: UserContext): SQL => sql`EXISTS (SELECT 1 FROM users WHERE id = ${ctx.actor.userId})`;

type TargetState = { database_id: string | null; property_type: string | null; caller_exists: number };

/** The statement that creates (or updates, by schedule id) a reminder, for a batch; `id` is the new one's. */
export interface ReminderUpsert {
  id: string;
  statement: SQL;
}

/**
 * One upsert of a reminder: it lands only when its target is a visible, active row whose
 * database gives `source_property_id` the date type, so in a batch after the row's own insert
 * it lands with it (quick tasks) or not at all.
 */
export function reminderUpsert(ctx: UserContext, input: CreateReminderInput): ReminderUpsert {
  const now = ctx.now();
  const timezone = canonicalZone(input.timezone ?? "UTC");
  const rule = input.recurrence_rule ?? null;
  const remindAt = Date.parse(input.remind_at);
  const dueOffset = input.due_at ? localDistanceMs(remindAt, Date.parse(input.due_at), timezone) : null;
  const series = seriesFrom(rule, timezone, remindAt, dueOffset);
  const timing = initialTiming(series, remindAt, now.getTime());
  const id = newId();
  const timestamp = now.toISOString();
  const metadata = input.metadata ?? {};
  const scheduleId = typeof metadata.schedule_id === "string" ? metadata.schedule_id : null;
  const keepOr = (column: string) =>
    sql.raw(`${column} = CASE WHEN ${SAME_SCHEDULE} THEN reminders.${column} ELSE excluded.${column} END`);
  const statement = sql`INSERT INTO reminders (id, user_id, target_block_id, source_property_id, series_start, remind_at,
          due_offset_ms, timezone, channel, recurrence_rule, metadata, schedule_id, status, next_fire_at, snoozed_until,
          created_at, updated_at)
        SELECT ${id}, ${ctx.actor.userId}, ${input.target_block_id}, ${input.source_property_id},
          ${new Date(series.start).toISOString()}, ${new Date(timing.remindAt).toISOString()}, ${dueOffset}, ${timezone},
          ${input.channel ?? "push"}, ${ruleJson(rule)}, ${JSON.stringify(metadata)}, ${scheduleId}, ${timing.status},
          ${timing.nextFireAt}, NULL, ${timestamp}, ${timestamp}
        WHERE ${validTarget(ctx, input.target_block_id, input.source_property_id)} AND ${callerExists(ctx)}
        ON CONFLICT (user_id, schedule_id) WHERE schedule_id IS NOT NULL DO UPDATE SET
          ${keepOr("status")}, ${keepOr("remind_at")}, ${keepOr("next_fire_at")}, ${keepOr("snoozed_until")},
          target_block_id = excluded.target_block_id, source_property_id = excluded.source_property_id,
          series_start = excluded.series_start, due_offset_ms = excluded.due_offset_ms, timezone = excluded.timezone,
          channel = excluded.channel, recurrence_rule = excluded.recurrence_rule, metadata = excluded.metadata,
          version = reminders.version + 1, updated_at = excluded.updated_at
        RETURNING *`;
  return { id, statement };
}

/**
 * After a reminder upsert committed: hands its next firing to the caller's queue and presents it.
 * For upserts run in someone else's batch, which cannot return the row, it is read by id.
 */
export async function afterReminderWrite(ctx: UserContext, written: ReminderRecord | string): Promise<Reminder> {
  const record =
    typeof written === "string"
      ? await ctx.db.get<ReminderRecord | undefined>(
          sql`SELECT * FROM reminders WHERE id = ${written} AND user_id = ${ctx.actor.userId}`,
        )
      : written;
  if (!record) throw reminderNotFound(typeof written === "string" ? written : "");
  await queueNext(ctx, record);
  return presentReminder(record);
}

/**
 * Creates a reminder, or, when the caller already has one with the same `metadata.schedule_id`
 * (in any state), updates that one (`created` false). One statement decides which, so two racing
 * creates never make two reminders. An update that leaves the schedule as it was (same start,
 * zone and rule) keeps the reminder's state: re-sending a date property's reminders neither fires
 * them again nor brings back one that was dismissed; a changed schedule re-arms it.
 */
export async function createReminder(
  ctx: UserContext,
  input: CreateReminderInput,
): Promise<{ reminder: Reminder; created: boolean }> {
  const upsert = reminderUpsert(ctx, input);
  const [states, rows] = await batchAll<[TargetState, ReminderRecord]>(ctx.db, [
    targetState(ctx, input.target_block_id, input.source_property_id),
    upsert.statement,
  ]);
  const record = rows[0];
  if (!record) explainTarget(states[0], input.target_block_id, input.source_property_id);
  return { reminder: await afterReminderWrite(ctx, record), created: record.id === upsert.id };
}

export interface ReminderFilters {
  status?: ReminderStatus;
  target_block_id?: string;
  /** Inclusive lower bound of `remind_at`, ISO. */
  from?: string;
  /** Exclusive upper bound of `remind_at`, ISO. */
  to?: string;
}

const isoOf = (value: string) => new Date(Date.parse(value)).toISOString();

/** By `remind_at` then id (unique): the listings' order, and their cursors' keys. */
const BY_REMIND_AT: OrderKey[] = [
  { expression: sql`r.remind_at`, direction: "asc" },
  { expression: sql`r.id`, direction: "asc" },
];

/** The caller's reminders, by `remind_at` then id. */
export async function listReminders(
  ctx: UserContext,
  filters: ReminderFilters,
  window: PageWindow,
): Promise<ResultPage<Reminder>> {
  const conditions: SQL[] = [sql`r.user_id = ${ctx.actor.userId}`];
  if (filters.status) conditions.push(sql`r.status = ${filters.status}`);
  if (filters.target_block_id) conditions.push(sql`r.target_block_id = ${filters.target_block_id}`);
  if (filters.from) conditions.push(sql`r.remind_at >= ${isoOf(filters.from)}`);
  if (filters.to) conditions.push(sql`r.remind_at < ${isoOf(filters.to)}`);
  const listing: Listing = {
    name: "reminders",
    filters: {
      status: filters.status,
      target_block_id: filters.target_block_id,
      from: filters.from && isoOf(filters.from),
      to: filters.to && isoOf(filters.to),
    },
    keys: BY_REMIND_AT,
  };
  return listWhere(ctx, listing, sql.join(conditions, sql` AND `), window);
}

/**
 * The caller's reminders whose time has come by `before` (default now): live (scheduled, snoozed
 * or fired, not dismissed, cancelled or completed), `remind_at` at or before it, and not snoozed
 * past it. Without `before`, each page reads its own now, and a cursor keeps walking.
 */
export async function listDueReminders(
  ctx: UserContext,
  before: string | undefined,
  window: PageWindow,
): Promise<ResultPage<Reminder>> {
  const at = (before === undefined ? ctx.now() : new Date(before)).toISOString();
  const listing: Listing = {
    name: "reminders.due",
    filters: { before: before === undefined ? null : at },
    keys: BY_REMIND_AT,
  };
  return listWhere(
    ctx,
    listing,
    sql`r.user_id = ${ctx.actor.userId} AND r.status IN ${LIVE} AND r.remind_at <= ${at}
      AND NOT (r.status = 'snoozed' AND r.snoozed_until > ${at})`,
    window,
  );
}

async function listWhere(
  ctx: UserContext,
  listing: Listing,
  where: SQL,
  window: PageWindow,
): Promise<ResultPage<Reminder>> {
  const [page, count] = await listingQueries(
    ctx,
    listing,
    { select: sql`SELECT r.*`, from: sql`FROM reminders r`, where },
    window,
  );
  const [rows, counts] = await batchAll<[ReminderRecord, { total: number }]>(ctx.db, [page, count]);
  return readPage(ctx, listing, rows, counts, window, presentReminder);
}

const ownReminder = (ctx: UserContext, id: string): SQL =>
  sql`SELECT * FROM reminders WHERE id = ${id} AND user_id = ${ctx.actor.userId}`;

async function readOwn(ctx: UserContext, id: string): Promise<ReminderRecord> {
  const [rows] = await batchAll<[ReminderRecord]>(ctx.db, [ownReminder(ctx, id)]);
  const record = rows[0];
  if (!record) throw reminderNotFound(id);
  return record;
}

/** One of the caller's reminders. */
export const getReminder = async (ctx: UserContext, id: string): Promise<Reminder> =>
  presentReminder(await readOwn(ctx, id));

/**
 * Changes the given fields. A `remind_at` at another instant restarts the schedule from it
 * (state `scheduled`, snooze cleared, as a new reminder would be). A changed `timezone` or
 * `recurrence_rule` keeps the series' start (unless the rule names a new `anchor_at`) and goes on
 * from the current occurrence, or after it once it has fired. Other fields keep the state.
 * Dismissed and cancelled reminders cannot be changed (409).
 */
export async function updateReminder(
  ctx: UserContext,
  id: string,
  input: UpdateReminderInput,
  preconditions: Preconditions = {},
): Promise<Reminder> {
  const record = await retryWhileStale("reminder", async () => {
    const stored = await readOwn(ctx, id);
    // The write below applies only to the version read, so the preconditions hold for what it changes.
    assertPreconditions(preconditions, reminderValidator(stored));
    if (stored.status === "dismissed" || stored.status === "cancelled") throw ended(stored, "changed");
    const now = ctx.now();
    const timezone = input.timezone === undefined ? stored.timezone : canonicalZone(input.timezone);
    const rule = input.recurrence_rule === undefined ? parseRule(stored.recurrence_rule) : input.recurrence_rule;
    const baseRemindAt = input.remind_at === undefined ? Date.parse(stored.remind_at) : Date.parse(input.remind_at);
    const dueOffset =
      input.due_at === undefined
        ? stored.due_offset_ms
        : input.due_at === null
          ? null
          : localDistanceMs(baseRemindAt, Date.parse(input.due_at), timezone);
    const timing = rescheduled(stored, input, rule, timezone, dueOffset, now.getTime());
    assertDueInRange(timing?.timing.remindAt ?? Date.parse(stored.remind_at), dueOffset, timezone);
    const targetId = input.target_block_id ?? stored.target_block_id;
    const propertyId = input.source_property_id ?? stored.source_property_id;
    const retargeted = input.target_block_id !== undefined || input.source_property_id !== undefined;
    const metadata = input.metadata ?? (JSON.parse(stored.metadata) as Record<string, unknown>);
    const scheduleId = typeof metadata.schedule_id === "string" ? metadata.schedule_id : null;
    const [states, rows] = await batchAll<[TargetState, ReminderRecord]>(ctx.db, [
      targetState(ctx, targetId, propertyId),
      sql`UPDATE reminders SET
            ${timing ? sql`${timingColumns(timing.timing)}, series_start = ${new Date(timing.start).toISOString()},` : sql``}
            target_block_id = ${targetId}, source_property_id = ${propertyId}, due_offset_ms = ${dueOffset},
            timezone = ${timezone}, channel = ${input.channel ?? stored.channel}, recurrence_rule = ${ruleJson(rule)},
            metadata = ${JSON.stringify(metadata)}, schedule_id = ${scheduleId},
            version = version + 1, updated_at = ${now.toISOString()}
          WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND version = ${stored.version}
            ${retargeted ? sql`AND ${validTarget(ctx, targetId, propertyId)}` : sql``}
          RETURNING *`,
    ]);
    const updated = rows[0];
    if (updated) return updated;
    if (retargeted && (!states[0]?.database_id || states[0].property_type !== "date")) {
      explainTarget(states[0], targetId, propertyId);
    }
    throw new StaleWrite();
  });
  await queueNext(ctx, record);
  return presentReminder(record);
}

/**
 * An update keeping the due time's distance (a new `remind_at` without `due_at`) may carry the due
 * time past 2099, an instant the API refuses as input: 400, as if it had been sent.
 */
function assertDueInRange(remindAt: number, dueOffsetMs: number | null, timeZone: string): void {
  const dueAt = dueAtOf({ due_offset_ms: dueOffsetMs, timezone: timeZone }, remindAt);
  if (dueAt !== null && dueAt >= REMINDER_LATEST) {
    throw badRequest("The due time, kept at its distance from remind_at, would fall after 2099: send due_at too", {
      field: "due_at",
      due_at: new Date(dueAt).toISOString(),
    });
  }
}

/** The new timing (and series start) an update asks for, or null when the schedule stays as it is. */
function rescheduled(
  stored: ReminderRecord,
  input: UpdateReminderInput,
  rule: RecurrenceRule | null,
  timeZone: string,
  dueOffsetMs: number | null,
  now: number,
): { timing: Timing; start: number } | null {
  const storedRemindAt = Date.parse(stored.remind_at);
  if (input.remind_at !== undefined && Date.parse(input.remind_at) !== storedRemindAt) {
    const remindAt = Date.parse(input.remind_at);
    const series = seriesFrom(rule, timeZone, remindAt, dueOffsetMs);
    return { timing: initialTiming(series, remindAt, now), start: series.start };
  }
  const ruleChanged = input.recurrence_rule !== undefined && ruleJson(rule) !== stored.recurrence_rule;
  if (!ruleChanged && timeZone === stored.timezone) return null;
  const series: Series = {
    rule,
    timeZone,
    start: rule?.anchor_at ? Date.parse(rule.anchor_at) : Date.parse(stored.series_start),
    dueOffsetMs,
  };
  const hasFired = stored.status === "fired" || stored.status === "completed";
  if (!isRecurring(rule)) {
    // A one-off keeps its time: one that fired stays fired, one still waiting keeps waiting (or its snooze).
    if (!hasFired) return null;
    return {
      timing: { status: "fired", remindAt: storedRemindAt, nextFireAt: null, snoozedUntil: null },
      start: series.start,
    };
  }
  return { timing: initialTiming(series, storedRemindAt, now, hasFired), start: series.start };
}

/**
 * One conditional write on a live reminder of the caller, with the read that explains a
 * refusal in the same batch: 404 when it is not the caller's; a reminder already in
 * `repeatOf` is answered as it is (a repeated request); `explainLive` explains a live
 * reminder `guard` refused; otherwise 409 (it has ended).
 */
async function writeLive(
  ctx: UserContext,
  id: string,
  set: SQL,
  action: string,
  options: {
    repeatOf?: ReminderStatus;
    guard?: SQL;
    explainLive?: (state: ReminderRecord) => never;
    /** The request's If-Match / If-None-Match, checked in the write itself. */
    preconditions?: Preconditions;
  } = {},
): Promise<{ record: ReminderRecord; changed: boolean }> {
  const expected = preconditionSql(options.preconditions, reminderVersioned(id));
  const [states, rows] = await batchAll<[ReminderRecord, ReminderRecord]>(ctx.db, [
    ownReminder(ctx, id),
    sql`UPDATE reminders SET ${set}, version = version + 1, updated_at = ${ctx.now().toISOString()}
      WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND status IN ${LIVE} ${options.guard ?? sql``}
        ${expected ? sql`AND ${expected}` : sql``} RETURNING *`,
  ]);
  const updated = rows[0];
  if (updated) return { record: updated, changed: true };
  const state = states[0];
  if (!state) throw reminderNotFound(id);
  // Read in the same batch, before the write: the version the write's precondition was checked against.
  if (options.preconditions) assertPreconditions(options.preconditions, reminderValidator(state));
  if (state.status === options.repeatOf) return { record: state, changed: false };
  if (isLive(state.status) && options.explainLive) options.explainLive(state);
  throw ended(state, action);
}

/** When a snoozed reminder fires again: at `until` (an ISO-8601 instant) or `minutes` from now, one of the two. */
export interface SnoozeReminderInput {
  until?: string;
  minutes?: number;
}

/**
 * Fires the reminder again at `until` (in the future), or `minutes` from now. A reminder still
 * waiting for its time cannot be snoozed to before it: that would remind earlier, not later (PUT a
 * new `remind_at`).
 */
export async function snoozeReminder(
  ctx: UserContext,
  id: string,
  input: SnoozeReminderInput,
  preconditions: Preconditions = {},
): Promise<Reminder> {
  const until = input.until ? new Date(input.until) : new Date(ctx.now().getTime() + (input.minutes ?? 0) * 60_000);
  if (until.getTime() <= ctx.now().getTime()) {
    throw badRequest("until must be in the future", { field: "until", until: until.toISOString() });
  }
  if (until.getTime() >= REMINDER_LATEST) {
    // `until` is checked by its schema; `minutes` from now can pass 2099 only this late in the century.
    throw badRequest("The snooze would end after 2099", { field: "minutes", until: until.toISOString() });
  }
  const untilIso = until.toISOString();
  const { record } = await writeLive(
    ctx,
    id,
    sql`status = 'snoozed', next_fire_at = ${until.getTime()}, snoozed_until = ${untilIso}`,
    "snoozed",
    {
      preconditions,
      guard: sql`AND NOT (status = 'scheduled' AND remind_at > ${untilIso})`,
      explainLive: (state) => {
        throw badRequest("until is before the reminder's own time: a snooze reminds later, not earlier", {
          field: "until",
          until: untilIso,
          remind_at: state.remind_at,
        });
      },
    },
  );
  await queueNext(ctx, record);
  return presentReminder(record);
}

/** Ends the reminder. Cancelling a cancelled reminder answers it as it is. */
export async function cancelReminder(
  ctx: UserContext,
  id: string,
  preconditions: Preconditions = {},
): Promise<Reminder> {
  const { record } = await writeLive(
    ctx,
    id,
    sql`status = 'cancelled', next_fire_at = NULL, snoozed_until = NULL`,
    "cancelled",
    { repeatOf: "cancelled", preconditions },
  );
  return presentReminder(record);
}

/**
 * `series`: the reminder ends (dismissed). `occurrence`: the current occurrence is done; a
 * one-off reminder ends, a repeating one moves on to its next occurrence (completed when none).
 */
export async function dismissReminder(
  ctx: UserContext,
  id: string,
  scope: "occurrence" | "series",
  preconditions: Preconditions = {},
): Promise<Reminder> {
  if (scope === "series") {
    const { record } = await writeLive(
      ctx,
      id,
      sql`status = 'dismissed', next_fire_at = NULL, snoozed_until = NULL`,
      "dismissed",
      { repeatOf: "dismissed", preconditions },
    );
    return presentReminder(record);
  }
  const record = await retryWhileStale("reminder", async () => {
    const stored = await readOwn(ctx, id);
    assertPreconditions(preconditions, reminderValidator(stored));
    if (stored.status === "dismissed") return stored;
    if (!isLive(stored.status)) throw ended(stored, "dismissed");
    const timing = afterDismissOccurrence(seriesOf(stored), timingOf(stored), ctx.now().getTime());
    const [rows] = await batchAll<[ReminderRecord]>(ctx.db, [
      sql`UPDATE reminders SET ${timingColumns(timing)}, version = version + 1, updated_at = ${ctx.now().toISOString()}
        WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND version = ${stored.version} RETURNING *`,
    ]);
    if (!rows[0]) throw new StaleWrite();
    return rows[0];
  });
  await queueNext(ctx, record);
  return presentReminder(record);
}
