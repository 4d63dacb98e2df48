import { type SQL, sql } from "drizzle-orm";
import type { UserContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { loadOnce } from "../../lib/load-once";
import { log } from "../../lib/log";
import { retryWhileStale } from "../../lib/stale-write-retry";
import type { QuickTaskCreated, QuickTaskPreview, QuickTaskTargetDatabase } from "../../schemas/quick-tasks";
import { StructuredOutputError } from "../ai/structured-output";
import { createTypedBlock } from "../block-writes/writes";
import { presentPage } from "../pages/pages";
import { afterReminderWrite, type ReminderUpsert, reminderUpsert } from "../reminders/reminders";
import { chooseModelParser } from "../settings/quick-task-parser";
import { readSettings, type SettingsRecord } from "../settings/settings";
import type { QuickTaskParse } from "./local-parser";
import { parseQuickTaskWithModel } from "./model-parser";
import {
  mapTaskProperties,
  type PlannedReminder,
  type PropertyMapping,
  type TaskWrite,
  taskWrite,
} from "./task-values";
import {
  findTaskDatabase,
  installTasksDatabase,
  requireTaskDatabase,
  TASKS_DATABASE_TITLE,
  type TaskDatabase,
  templateProperties,
} from "./tasks-database";

// Quick-task capture: one line of text parsed (by the configured structured-output model, else
// locally), the target database resolved (the request's, the saved default, else the user's
// built-in Tasks database), and for a create the row written to that database's own property
// ids with its reminder record in the same atomic batch.

export interface QuickTaskInput {
  text: string;
  timezone: string;
  reference_at?: string;
  database_id?: string;
}

export type TargetSource = QuickTaskTargetDatabase["source"];
export type QuickTaskOutcome = QuickTaskPreview | QuickTaskCreated;

interface ParseOutcome {
  parse: QuickTaskParse;
  parser: "model" | "local";
  fallbackReason: string | null;
}

/** The model parser when one is configured and answers well in time; the local parser otherwise. */
async function parseText(
  ctx: UserContext,
  settings: SettingsRecord | undefined,
  input: QuickTaskInput,
  referenceAt: Date,
): Promise<ParseOutcome> {
  const choice = chooseModelParser(ctx, {
    provider: settings?.quick_task_provider ?? null,
    model: settings?.quick_task_model ?? null,
  });
  let fallbackReason = choice.ready ? null : choice.reason;
  if (choice.ready) {
    try {
      const parse = await parseQuickTaskWithModel(
        ctx,
        choice.target,
        choice.model,
        { text: input.text, timeZone: input.timezone, referenceAt },
        { timeoutMs: choice.timeoutMs },
      );
      return { parse, parser: "model", fallbackReason: null };
    } catch (error) {
      if (!(error instanceof StructuredOutputError)) throw error;
      fallbackReason = `${choice.provider} (${choice.model}) ${error.reason}: ${error.message}`;
      log(ctx, "warn", "Quick-task model parser failed; the local parser answered", {
        provider: choice.provider,
        model: choice.model,
        reason: error.reason,
      });
    }
  }
  const { parseQuickTaskLocally } = await loadLocalParser();
  return { parse: parseQuickTaskLocally(input.text, input.timezone, referenceAt), parser: "local", fallbackReason };
}

/**
 * The local parser: chrono-node (which builds its English parsers as it loads) is loaded by the
 * first local parse, not at every isolate's startup (docs/performance.md, Startup).
 */
export const loadLocalParser = loadOnce(() => import("./local-parser"));

interface ResolvedTarget {
  /** Undefined only in a preview before the built-in Tasks database is installed. */
  database: TaskDatabase | undefined;
  source: TargetSource;
  installed: boolean;
  note: string | null;
}

/**
 * The database a task would go to: the request's `database_id` (404 when the caller cannot use
 * it), else the saved quickTaskDatabaseId while it is usable, else the built-in Tasks database
 * (undefined while it is not installed: finding writes nothing).
 */
async function findTarget(
  ctx: UserContext,
  settings: SettingsRecord | undefined,
  requested: string | undefined,
): Promise<ResolvedTarget> {
  if (requested)
    return { database: await requireTaskDatabase(ctx, requested), source: "request", installed: false, note: null };
  let note: string | null = null;
  const saved = settings?.quick_task_database_id;
  if (saved) {
    const database = await findTaskDatabase(ctx, saved);
    if (database) return { database, source: "settings", installed: false, note: null };
    note = `The saved quickTaskDatabaseId (${saved}) is no longer a database you can use (deleted, archived or in the trash): the built-in Tasks database is used`;
  }
  const template = settings?.tasks_database_id ? await findTaskDatabase(ctx, settings.tasks_database_id) : undefined;
  return { database: template, source: "template", installed: false, note };
}

/** The database a task goes to, as `findTarget` finds it, the built-in Tasks database installed when there is none. */
async function targetForCreate(
  ctx: UserContext,
  settings: SettingsRecord | undefined,
  requested: string | undefined,
): Promise<ResolvedTarget & { database: TaskDatabase }> {
  const target = await findTarget(ctx, settings, requested);
  if (target.database) return { ...target, database: target.database };
  const { database, installed } = await retryWhileStale("Tasks database", () => installTasksDatabase(ctx));
  return { ...target, database, installed };
}

function targetView(target: ResolvedTarget, mapping: PropertyMapping, placeholder: boolean): QuickTaskTargetDatabase {
  const property_mapping = placeholder
    ? (Object.fromEntries(
        Object.entries(mapping).map(([field, mapped]) => [field, mapped ? { ...mapped, id: null } : null]),
      ) as PropertyMapping)
    : mapping;
  return {
    id: target.database?.id ?? null,
    title: target.database?.title ?? TASKS_DATABASE_TITLE,
    source: target.source,
    installed: target.installed,
    property_mapping,
    note: target.note,
  };
}

/** In SQL: the database still has this date property (the reminder's source). */
const dueStillDate = (databaseId: string, propertyId: string): SQL =>
  sql`EXISTS (SELECT 1 FROM database_properties dp WHERE dp.database_id = ${databaseId} AND dp.id = ${propertyId}
    AND dp.type = 'date')`;

/** Four-digit years: beyond 9999 ISO text is written `+010000-...`, which no date value takes. */
const ISO_YEAR = /^\d{4}-/;

/**
 * A parse made fit to write: a title that was all date and priority ("tomorrow 9am!!") is the
 * text before its notes; a due date beyond year 9999 is left out, as an ambiguity.
 */
function sensibleParse(parse: QuickTaskParse, text: string): QuickTaskParse {
  let result = parse;
  if (!result.title.trim()) {
    const notesAt = result.notes ? text.lastIndexOf(result.notes) : -1;
    const beforeNotes = notesAt > 0 ? text.slice(0, notesAt).replace(/[\s\-—:]+$/, "") : text;
    result = { ...result, title: beforeNotes.trim() || text.trim() };
  }
  const due = result.due_at ?? result.due_date;
  if (due && !ISO_YEAR.test(due)) {
    result = {
      ...result,
      due_at: null,
      due_date: null,
      all_day: false,
      ambiguities: [
        ...result.ambiguities,
        { field: "due", text: `${due} is beyond the year 9999: left out`, alternatives: [] },
      ],
    };
  }
  return result;
}

/** Reads a request's reference instant (default now). */
const referenceOf = (ctx: UserContext, input: QuickTaskInput): Date =>
  input.reference_at ? new Date(input.reference_at) : ctx.now();

/** What a quick task would be, before anything is written. */
interface QuickTaskPlan {
  mapping: PropertyMapping;
  write: TaskWrite;
  /** The answer of a preview. */
  preview: QuickTaskPreview;
}

/**
 * Parses the text and plans the row for `target`. Writes nothing: before the built-in Tasks
 * database is installed its mapping is shown with null ids.
 */
async function planQuickTask(
  ctx: UserContext,
  settings: SettingsRecord | undefined,
  input: QuickTaskInput,
  referenceAt: Date,
  target: ResolvedTarget,
): Promise<QuickTaskPlan> {
  const { parse: rawParse, parser, fallbackReason } = await parseText(ctx, settings, input, referenceAt);
  const parse = sensibleParse(rawParse, input.text);
  const properties = target.database?.schema.properties ?? templateProperties();
  const mapping = mapTaskProperties(properties);
  const write = taskWrite({
    parse,
    properties,
    mapping,
    timeZone: input.timezone,
    scheduleId: `quick_task_${newId()}`,
    // A reminder's source property must be a schema record: an older inline schema has none.
    remindersAllowed: !target.database?.schema.legacy,
  });
  const preview: QuickTaskPreview = {
    parse: { ...parse, ambiguities: [...parse.ambiguities, ...write.ambiguities] },
    parser,
    parser_fallback_reason: fallbackReason,
    target_database: targetView(target, mapping, !target.database),
    created: false,
    skipped_preview: false,
  };
  return { mapping, write, preview };
}

/**
 * Parses the text and answers what the task would be, writing nothing (not even the built-in
 * Tasks database). A preview marked (`preview=1`) by a user whose quickTaskSkipPreview is set
 * creates the task instead (`skipped_preview`).
 */
export async function previewQuickTask(
  ctx: UserContext,
  input: QuickTaskInput,
  options: { previewMarked: boolean },
): Promise<QuickTaskOutcome> {
  const settings = await readSettings(ctx);
  if (options.previewMarked && settings?.quick_task_skip_preview === 1) {
    return createWithSettings(ctx, settings, input, { skippedPreview: true });
  }
  const referenceAt = referenceOf(ctx, input);
  // The target first: a database the caller cannot use is a 404 before any model is paid for.
  const target = await findTarget(ctx, settings, input.database_id);
  return (await planQuickTask(ctx, settings, input, referenceAt, target)).preview;
}

/** Parses the text and writes the task, with its reminder when it has one, in one atomic batch. */
export async function createQuickTask(ctx: UserContext, input: QuickTaskInput): Promise<QuickTaskCreated> {
  return createWithSettings(ctx, await readSettings(ctx), input, { skippedPreview: false });
}

async function createWithSettings(
  ctx: UserContext,
  settings: SettingsRecord | undefined,
  input: QuickTaskInput,
  options: { skippedPreview: boolean },
): Promise<QuickTaskCreated> {
  const referenceAt = referenceOf(ctx, input);
  // The target first: a database the caller cannot use is a 404 before any model is paid for.
  const target = await targetForCreate(ctx, settings, input.database_id);
  const plan = await planQuickTask(ctx, settings, input, referenceAt, target);
  const { block, schema, reminder } = await writeTask(ctx, input, target.database, plan);
  return {
    ...plan.preview,
    created: true as const,
    skipped_preview: options.skippedPreview,
    task: await presentPage(ctx, block, schema),
    reminder: reminder ? await afterReminderWrite(ctx, reminder.id) : null,
  };
}

/** Writes the planned row to `database`, and its reminder record in the same batch. */
async function writeTask(ctx: UserContext, input: QuickTaskInput, database: TaskDatabase, plan: QuickTaskPlan) {
  const { mapping, write } = plan;
  const rowId = newId();
  const dueId = mapping.due?.id;
  const reminder =
    write.reminder && dueId ? reminderRecord(ctx, rowId, dueId, write.reminder, input.timezone) : undefined;
  const { block, schema } = await createTypedBlock(
    ctx,
    {
      id: rowId,
      type: "database_row",
      properties: write.properties,
      parentId: null,
      databaseId: database.id,
      teamspaceId: null,
      content: write.content,
    },
    {
      alsoInBatch: () => (reminder ? [reminder.statement] : []),
      // The reminder lands with the row or neither does: its date property must still be there.
      guard: reminder && dueId ? dueStillDate(database.id, dueId) : undefined,
    },
  );
  return { block, schema, reminder };
}

/** The reminder record of a new row, sourced from its due date property. */
const reminderRecord = (
  ctx: UserContext,
  rowId: string,
  dueId: string,
  reminder: PlannedReminder,
  timezone: string,
): ReminderUpsert =>
  reminderUpsert(ctx, {
    target_block_id: rowId,
    source_property_id: dueId,
    remind_at: reminder.remindAt,
    due_at: reminder.dueAt,
    timezone,
    channel: "push",
    metadata: {
      version: 1,
      source: "database_date_property",
      schedule_id: reminder.scheduleId,
      reminder_offset: reminder.offset,
      ...(reminder.time ? { reminder_time: reminder.time } : {}),
    },
  });
