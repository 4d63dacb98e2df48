import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Timestamps are ISO-8601 UTC strings so they sort as text and read as the API returns them. */
const nowIso = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name"),
  createdAt: text("created_at").notNull().default(nowIso),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the raw key, hex. The raw key is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** Shown in masked listings: the first characters and the last four. */
    displayPrefix: text("display_prefix").notNull(),
    displaySuffix: text("display_suffix").notNull(),
    createdAt: text("created_at").notNull().default(nowIso),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("api_keys_user_idx").on(table.userId)],
);

/**
 * One table for editor blocks, pages, databases and database rows.
 * `properties` and `content` hold JSON text; the FTS index over their text is
 * maintained by triggers (see migrations/0001_blocks_search.sql), keyed by `seq`.
 */
export const blocks = sqliteTable(
  "blocks",
  {
    /** Integer row key: a stable rowid for the FTS index to point at. Never exposed. */
    seq: integer("seq").primaryKey(),
    id: text("id").notNull().unique(),
    type: text("type").notNull(),
    parentId: text("parent_id"),
    databaseId: text("database_id"),
    teamspaceId: text("teamspace_id"),
    properties: text("properties").notNull().default("{}"),
    content: text("content"),
    position: real("position"),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    inTrash: integer("in_trash", { mode: "boolean" }).notNull().default(false),
    createdBy: text("created_by"),
    lastEditedBy: text("last_edited_by"),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [
    index("blocks_parent_position_idx").on(table.parentId, table.position),
    index("blocks_database_idx").on(table.databaseId),
    index("blocks_owner_updated_idx").on(table.createdBy, table.updatedAt),
    index("blocks_owner_created_idx").on(table.createdBy, table.createdAt),
  ],
);

export type BlockRow = typeof blocks.$inferSelect;
export type UserRow = typeof users.$inferSelect;
