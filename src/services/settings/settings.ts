import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { userSettings } from "../../db/schema";
import { NAMED_PROVIDERS } from "../../domain/ai-providers";
import type { UserContext } from "../../lib/context";
import {
  advancedTimestamp,
  derivedDigest,
  type Preconditions,
  preconditionFailed,
  preconditionSql,
  tagOfParts,
  type Versioned,
  versionPartsSql,
  withValidator,
} from "../../lib/entity-tags";
import { badRequest, notFound, unauthorized } from "../../lib/errors";
import type { Settings, UpdateSettingsInput } from "../../schemas/settings";
import { isActive, visibleTo } from "../blocks/visibility";
import { chooseModelParser, parserConfiguration } from "./quick-task-parser";

// A user's workspace settings: one `user_settings` row, made by the first write. Reads of a
// user who never wrote any answer the defaults. A write is one upsert whose WHERE carries its
// checks (the database visible, the user still there), so nothing is checked apart from the write.

/** A `user_settings` row as D1 returns it. */
export type SettingsRecord = RawRow<typeof userSettings>;

export const readSettings = (ctx: UserContext): Promise<SettingsRecord | undefined> =>
  ctx.db.get<SettingsRecord | undefined>(sql`SELECT * FROM user_settings WHERE user_id = ${ctx.actor.userId}`);

/**
 * The settings' version in SQL: the row's `updated_at` (null before the first write; every write
 * advances it, `advancedTimestamp`) and a digest of the server configuration the answer's parser
 * is chosen from, so a tag names one representation (RFC 9110 §8.8.3).
 */
const settingsVersioned = (ctx: UserContext): Versioned => ({
  kind: "s",
  id: ctx.actor.userId,
  columns: [
    sql`(SELECT updated_at FROM user_settings WHERE user_id = ${ctx.actor.userId})`,
    sql`${derivedDigest(parserConfiguration(ctx))}`,
  ],
});

/** The parser quick tasks would use, as the settings show it. */
function parserOf(ctx: UserContext, record: SettingsRecord | undefined): Settings["quickTaskParser"] {
  const provider = (record?.quick_task_provider ?? null) as Settings["quickTaskProvider"];
  const choice = chooseModelParser(ctx, { provider, model: record?.quick_task_model ?? null });
  return {
    provider: choice.provider,
    model: choice.model,
    ready: choice.ready,
    reason: choice.ready ? null : choice.reason,
  };
}

export function presentSettings(ctx: UserContext, record: SettingsRecord | undefined): Settings {
  const { kind, id } = settingsVersioned(ctx);
  return withValidator(presentSettingsFields(record, parserOf(ctx, record)), {
    kind,
    id,
    parts: [record?.updated_at ?? null, derivedDigest(parserConfiguration(ctx))],
  });
}

function presentSettingsFields(record: SettingsRecord | undefined, parser: Settings["quickTaskParser"]): Settings {
  return {
    quickTaskProvider: (record?.quick_task_provider ?? null) as Settings["quickTaskProvider"],
    quickTaskModel: record?.quick_task_model ?? null,
    quickTaskDatabaseId: record?.quick_task_database_id ?? null,
    quickTaskSkipPreview: record?.quick_task_skip_preview === 1,
    quickTaskTemplateDatabaseId: record?.tasks_database_id ?? null,
    quickTaskParser: parser,
    updatedAt: record?.updated_at ?? null,
  };
}

export const getSettings = async (ctx: UserContext): Promise<Settings> => presentSettings(ctx, await readSettings(ctx));

/** The providers a user may choose: the five named ones, and a compatible server where one is configured. */
export function selectableProviders(ctx: UserContext): string[] {
  const compatible = ctx.env.OPENAI_COMPATIBLE_BASE_URL?.trim() ? ["openai-compatible"] : [];
  return [...NAMED_PROVIDERS, ...compatible];
}

/** True in SQL when `id` is a database the caller can see, neither archived nor in the trash. */
export const usableDatabase = (ctx: UserContext, id: string, alias = "db"): SQL =>
  sql`EXISTS (SELECT 1 FROM blocks ${sql.raw(alias)} WHERE ${sql.raw(alias)}.id = ${id}
    AND ${sql.raw(alias)}.type = 'database' AND ${visibleTo(ctx.actor, alias)} AND ${isActive(alias)})`;

/** Changes the given settings; null clears a field. 404 for a database the caller cannot use. */
export async function updateSettings(
  ctx: UserContext,
  input: UpdateSettingsInput,
  preconditions: Preconditions = {},
): Promise<Settings> {
  if (input.quickTaskProvider && !selectableProviders(ctx).includes(input.quickTaskProvider)) {
    throw badRequest(`quickTaskProvider '${input.quickTaskProvider}' is not configured on this server`, {
      field: "quickTaskProvider",
      allowed: selectableProviders(ctx),
    });
  }
  const timestamp = ctx.now().toISOString();
  const userId = ctx.actor.userId;
  const given = <K extends keyof UpdateSettingsInput>(key: K) => input[key] !== undefined;
  const assignments: SQL[] = [sql`updated_at = ${advancedTimestamp(sql`user_settings.updated_at`, timestamp)}`];
  if (given("quickTaskProvider")) assignments.push(sql`quick_task_provider = excluded.quick_task_provider`);
  if (given("quickTaskModel")) assignments.push(sql`quick_task_model = excluded.quick_task_model`);
  else if (given("quickTaskProvider")) {
    // A model name means nothing to another provider: a new provider without a model clears it.
    assignments.push(sql`quick_task_model = CASE WHEN user_settings.quick_task_provider IS excluded.quick_task_provider
      THEN user_settings.quick_task_model END`);
  }
  if (given("quickTaskDatabaseId")) assignments.push(sql`quick_task_database_id = excluded.quick_task_database_id`);
  if (given("quickTaskSkipPreview")) assignments.push(sql`quick_task_skip_preview = excluded.quick_task_skip_preview`);
  const databaseId = input.quickTaskDatabaseId ?? null;
  const callerExists = sql`EXISTS (SELECT 1 FROM users WHERE id = ${userId})`;
  // The preconditions name the settings as stored before this write and the parser as configured now.
  const versioned = settingsVersioned(ctx);
  const expected = preconditionSql(preconditions, versioned);
  const [states, rows] = await batchAll<
    [{ caller_exists: number; database_ok: number; expected_ok: number; current_version: string }, SettingsRecord]
  >(ctx.db, [
    sql`SELECT ${callerExists} AS caller_exists,
      ${databaseId === null ? sql`1` : usableDatabase(ctx, databaseId)} AS database_ok,
      ${expected ?? sql`1`} AS expected_ok, ${versionPartsSql(versioned)} AS current_version`,
    sql`INSERT INTO user_settings (user_id, quick_task_provider, quick_task_model, quick_task_database_id,
          quick_task_skip_preview, updated_at)
        SELECT ${userId}, ${input.quickTaskProvider ?? null}, ${input.quickTaskModel ?? null}, ${databaseId},
          ${input.quickTaskSkipPreview ? 1 : 0}, ${timestamp}
        WHERE ${callerExists} AND ${databaseId === null ? sql`1` : usableDatabase(ctx, databaseId)}
          AND ${expected ?? sql`1`}
        ON CONFLICT (user_id) DO UPDATE SET ${sql.join(assignments, sql`, `)}
        RETURNING *`,
  ]);
  const record = rows[0];
  if (record) return presentSettings(ctx, record);
  if (!states[0]?.caller_exists) throw unauthorized("The signed-in user no longer exists");
  if (states[0].expected_ok === 0) throw preconditionFailed(tagOfParts(versioned, states[0].current_version));
  throw notFound("Database not found", { field: "quickTaskDatabaseId", database_id: databaseId });
}
