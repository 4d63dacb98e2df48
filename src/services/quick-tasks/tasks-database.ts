import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { blocks } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import { advancedTimestamp } from "../../lib/entity-tags";
import { notFound, unauthorized } from "../../lib/errors";
import { StaleWrite } from "../../lib/stale-write-retry";
import { createBlock } from "../blocks/commands";
import { parseProperties } from "../blocks/presenter";
import { visibleTo } from "../blocks/visibility";
import {
  type DatabaseSchema,
  DEFAULT_PROPERTIES,
  newOptionId,
  newPropertyId,
  type PropertyDefinition,
  type PropertyType,
} from "../databases/property-types";
import {
  insertPropertyRecords,
  type PropertyRecord,
  parseInlineSchema,
  presentProperty,
} from "../databases/schema-records";
import { titleText } from "../pages/pages";
import { REMINDER_LABELS } from "./task-values";

// The database a quick task lands in, and the user's built-in Tasks database: installed by the
// first create that needs it, in one batch that records it in the user's settings and is guarded
// by there being no live one recorded, so racing first creates install exactly one.

export const TASKS_DATABASE_TITLE = "Tasks";

type TemplateProperty = { name: string; type: PropertyType; options?: { name: string; color: string }[] };

/** The built-in Tasks database's columns (the default columns every database has, and the task ones). */
export const TASKS_TEMPLATE: TemplateProperty[] = [
  DEFAULT_PROPERTIES[0] as TemplateProperty,
  {
    name: "Status",
    type: "status",
    options: [
      { name: "Todo", color: "gray" },
      { name: "Doing", color: "blue" },
      { name: "Done", color: "green" },
    ],
  },
  { name: "Due", type: "date" },
  {
    name: "Priority",
    type: "select",
    options: [
      { name: "Low", color: "gray" },
      { name: "Medium", color: "yellow" },
      { name: "High", color: "red" },
    ],
  },
  { name: "Notes", type: "text" },
  { name: "Reminder", type: "select", options: REMINDER_LABELS.map((name) => ({ name, color: "purple" })) },
  ...(DEFAULT_PROPERTIES.slice(1) as TemplateProperty[]),
];

/** A database a quick task may be written to: visible, neither archived nor in the trash. */
export interface TaskDatabase {
  id: string;
  title: string;
  schema: DatabaseSchema;
}

/** What `findTaskDatabase` reads of a database's block. */
type DatabaseStateRow = Pick<
  RawRow<typeof blocks>,
  "id" | "type" | "properties" | "schema_version" | "archived" | "in_trash" | "created_at"
>;

/** The database `id` when the caller can use it, else undefined. One round trip. */
export async function findTaskDatabase(ctx: UserContext, id: string): Promise<TaskDatabase | undefined> {
  const [databases, records] = await batchAll<[DatabaseStateRow, PropertyRecord]>(ctx.db, [
    sql`SELECT b.id, b.type, b.properties, b.schema_version, b.archived, b.in_trash, b.created_at FROM blocks b
      WHERE b.id = ${id} AND ${visibleTo(ctx.actor)}`,
    sql`SELECT * FROM database_properties WHERE database_id = ${id} ORDER BY position, name`,
  ]);
  const database = databases[0];
  if (database?.type !== "database" || database.archived || database.in_trash) return undefined;
  const stored = parseProperties(database.properties);
  const legacy = records.length === 0;
  const schema: DatabaseSchema = {
    databaseId: id,
    properties: legacy ? parseInlineSchema(stored.schema) : records.map(presentProperty),
    legacy,
    version: database.schema_version,
    createdAt: database.created_at,
  };
  return { id, title: titleText(stored.title), schema };
}

/** The database `id` for a request that named it: 404 when the caller cannot use it. */
export async function requireTaskDatabase(ctx: UserContext, id: string): Promise<TaskDatabase> {
  const database = await findTaskDatabase(ctx, id);
  if (!database) throw notFound("Database not found", { field: "database_id", database_id: id });
  return database;
}

/** In SQL: the user has a live built-in Tasks database recorded (visible, not archived, not trashed). */
const liveTemplateRecorded = (ctx: UserContext): SQL => sql`EXISTS (
  SELECT 1 FROM user_settings s JOIN blocks t ON t.id = s.tasks_database_id
  WHERE s.user_id = ${ctx.actor.userId} AND t.type = 'database' AND t.created_by = ${ctx.actor.userId}
    AND t.archived = 0 AND t.in_trash = 0)`;

/** The template's columns with fresh ids: an installation's schema records (or, in a preview, a stand-in). */
export function templateProperties(): PropertyDefinition[] {
  return TASKS_TEMPLATE.map((property, position) => ({
    id: newPropertyId(),
    name: property.name,
    type: property.type,
    options: (property.options ?? []).map((option) => ({
      id: newOptionId(),
      name: option.name,
      color: option.color as PropertyDefinition["options"][number]["color"],
    })),
    position,
  }));
}

/**
 * The user's built-in Tasks database, installed now if the user has none that is live. One
 * batch: the database block (refused when a live one is recorded: the guard), its columns, and
 * the record in the settings, each landing only with the block. A create that lost the race
 * reads the winner's. The record is a change of the settings, so it advances their `updated_at`
 * (and with it their entity tag).
 */
export async function installTasksDatabase(ctx: UserContext): Promise<{ database: TaskDatabase; installed: boolean }> {
  const properties = templateProperties();
  const userId = ctx.actor.userId;
  try {
    const block = await createBlock(
      ctx,
      {
        type: "database",
        properties: { title: TASKS_DATABASE_TITLE },
        parentId: null,
        databaseId: null,
        teamspaceId: null,
        content: null,
      },
      {
        guard: sql`NOT ${liveTemplateRecorded(ctx)} AND EXISTS (SELECT 1 FROM users WHERE id = ${userId})`,
        alsoInBatch: ({ id, timestamp }) => {
          const written = sql`EXISTS (SELECT 1 FROM blocks d WHERE d.id = ${id} AND d.created_by = ${userId})`;
          return [
            insertPropertyRecords(id, properties, timestamp, written),
            sql`INSERT INTO user_settings (user_id, tasks_database_id, updated_at)
              SELECT ${userId}, ${id}, ${timestamp} WHERE ${written}
              ON CONFLICT (user_id) DO UPDATE SET tasks_database_id = excluded.tasks_database_id,
                updated_at = ${advancedTimestamp(sql`user_settings.updated_at`, timestamp)}`,
          ];
        },
      },
    );
    // A new database starts at schema version 0 (its first columns are not a change).
    const schema: DatabaseSchema = {
      databaseId: block.id,
      properties,
      legacy: false,
      version: 0,
      createdAt: block.created_at,
    };
    return { database: { id: block.id, title: TASKS_DATABASE_TITLE, schema }, installed: true };
  } catch (error) {
    if (!(error instanceof StaleWrite)) throw error;
  }
  // Another create installed it first (or the user is gone).
  const recorded = await ctx.db.get<{ id: string | null; caller_exists: number }>(sql`
    SELECT (SELECT tasks_database_id FROM user_settings WHERE user_id = ${userId}) AS id,
      EXISTS (SELECT 1 FROM users WHERE id = ${userId}) AS caller_exists`);
  if (!recorded?.caller_exists) throw unauthorized("The signed-in user no longer exists");
  const database = recorded.id ? await findTaskDatabase(ctx, recorded.id) : undefined;
  if (!database) throw new StaleWrite();
  return { database, installed: false };
}
