import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

// Every table, column and index the migrations make that Drizzle can declare is declared here, so
// `drizzle-kit generate` finds nothing to do on a clean checkout; `npm run check` fails when this file
// and the migrated database disagree (scripts/migrations-meta.ts). Drizzle cannot declare the FTS5
// table `blocks_search`, the row-value index `row_values` (WITHOUT ROWID, untyped values), views or
// triggers: they are hand-written migrations, listed in migrations/README.md with where each is defined.

/** Timestamps are ISO-8601 UTC strings so they sort as text and read as the API returns them. */
const nowIso = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name"),
  /**
   * Who the identity provider says this is, qualified by provider (`clerk:user_...`,
   * `development:ada@example.com`): sign-in finds the user by it. Null for a user
   * made by `npm run key` before first signing in.
   */
  externalId: text("external_id").unique(),
  createdAt: text("created_at").notNull().default(nowIso),
  /**
   * App sessions issued before this instant are refused (`POST /auth/sign-out` sets it; ISO-8601 with
   * milliseconds, compared with a token's `iat_ms`). Null: no session of the user was ended.
   */
  sessionsValidFrom: text("sessions_valid_from"),
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
    /** What the key may do, comma-separated: `read` (GET, HEAD), `write` (everything else). */
    scopes: text("scopes").notNull().default("read,write"),
    createdAt: text("created_at").notNull().default(nowIso),
    /** Written at most once a minute per key, after the response. */
    lastUsedAt: text("last_used_at"),
    /** After this instant the key is refused; null: never expires. */
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("api_keys_user_idx").on(table.userId, table.createdAt)],
);

/**
 * The payment provider's view of a customer's subscription, one record per
 * customer, kept from its webhook events. `user_id` is null until the checkout
 * that links the customer to a user has been seen (events may arrive in any order).
 */
export const subscriptions = sqliteTable("subscriptions", {
  customerId: text("customer_id").primaryKey(),
  userId: text("user_id")
    .unique()
    .references(() => users.id, { onDelete: "set null" }),
  subscriptionId: text("subscription_id"),
  /** Stripe's status: active, trialing, past_due, unpaid, canceled, incomplete, incomplete_expired, paused. */
  status: text("status"),
  priceId: text("price_id"),
  /** The price's lookup key or nickname, else its id. */
  plan: text("plan"),
  currentPeriodEnd: text("current_period_end"),
  cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
  /**
   * When the provider produced the state held here (an event's `created`, Unix seconds):
   * an event older than this changes nothing, so out-of-order delivery cannot go back in time.
   */
  stateAt: integer("state_at").notNull().default(0),
  /**
   * When the checkout that linked `user_id` to this customer happened (its event's `created`, Unix
   * seconds); null: never linked. An older checkout never takes a link back from a newer one.
   */
  linkedAt: integer("linked_at"),
  updatedAt: text("updated_at").notNull().default(nowIso),
});

/** Webhook events already applied, by the provider's event id: a redelivery changes nothing. */
export const paymentEvents = sqliteTable("payment_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: text("received_at").notNull().default(nowIso),
});

/**
 * Checkouts that would have taken a subscription that has not ended away from its user, kept for
 * the operator instead of applied (migrations/0014_held_checkouts.sql says why). `released_at`:
 * when it was applied, once the conflict was gone: by a resend, or by the end of the subscription
 * its user was on (migrations/0018_subscription_states.sql).
 */
export const heldCheckouts = sqliteTable("held_checkouts", {
  /** The `checkout.session.completed` event's id (not recorded as applied while held). */
  eventId: text("event_id").primaryKey(),
  /** The session's customer. */
  customerId: text("customer_id").notNull(),
  /** The user it named (`users.id`). */
  userId: text("user_id").notNull(),
  /** `user_on_another_subscription` or `customer_of_another_user`. */
  reason: text("reason").notNull(),
  /** The customer the user was linked to, when that is what stood in the way. */
  userCustomerId: text("user_customer_id"),
  /** The user the customer was linked to, when that is what stood in the way. */
  customerUserId: text("customer_user_id"),
  /** The event's `created`, Unix seconds. */
  checkoutAt: integer("checkout_at").notNull(),
  heldAt: text("held_at").notNull().default(nowIso),
  releasedAt: text("released_at"),
  /**
   * What released it: its own event id (a resend), or the write that ended the subscription in its
   * way (that event's id; `stripe_answer:<uuid>` for a cancellation's answer). Null while held.
   */
  releasedBy: text("released_by"),
});

/**
 * The latest state of each subscription of a customer (the precedence of `subscriptions.state_at`),
 * the one its record shows and the others: a state of another subscription while the shown one has
 * not ended is kept here, held, and shown once that one ends (migrations/0018_subscription_states.sql
 * says why). Not pruned: one row per subscription.
 */
export const subscriptionStates = sqliteTable(
  "subscription_states",
  {
    customerId: text("customer_id").notNull(),
    subscriptionId: text("subscription_id").notNull(),
    status: text("status").notNull(),
    priceId: text("price_id"),
    plan: text("plan"),
    currentPeriodEnd: text("current_period_end"),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    /** When Stripe produced the state kept here (an event's `created`, Unix seconds), as `subscriptions.state_at`. */
    stateAt: integer("state_at").notNull(),
    /** When a state of it was first held: its customer's record showed another subscription that had not ended. */
    heldAt: text("held_at"),
    /** When the record showed it, having held it. */
    releasedAt: text("released_at"),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [primaryKey({ columns: [table.customerId, table.subscriptionId] })],
);

/**
 * What each invoice event says of its subscription (paid, or its payment failed), replayed over
 * the subscription's stored state whenever either is written, so the state does not depend on
 * the order events arrive in (migrations/0015_invoice_outcomes.sql says why). Pruned with the
 * applied event ids.
 */
export const invoiceOutcomes = sqliteTable(
  "invoice_outcomes",
  {
    eventId: text("event_id").primaryKey(),
    customerId: text("customer_id").notNull(),
    subscriptionId: text("subscription_id").notNull(),
    /** `paid` or `payment_failed`. */
    outcome: text("outcome").notNull(),
    /** The event's `created`, Unix seconds. */
    created: integer("created").notNull(),
    receivedAt: text("received_at").notNull().default(nowIso),
  },
  (table) => [index("invoice_outcomes_subscription_idx").on(table.customerId, table.subscriptionId, table.created)],
);

/**
 * One table for editor blocks, pages, databases and database rows.
 * `properties` and `content` hold JSON text.
 *
 * Triggers fire on every write of it, whichever path writes (migrations/README.md lists each one
 * and the migration holding its current definition):
 * - `blocks_search_*` (insert, update of properties or content, delete) keep the FTS5 index
 *   `blocks_search` (keyed by `seq`) over the text of `blocks_search_source`: 0001_blocks_search.
 * - `blocks_mentions_*` (insert, update of content) replace the block's `origin = 'content'`
 *   `mentions` with those of `block_mentions_source`: 0008_mentions_from_content.
 * - `blocks_version_update` (update leaving `version` as it was) increments `version`: 0020_block_versions.
 * - `row_values_row_*` (insert, update of database or type, of properties, of position, delete)
 *   keep a database row's entries of the row-value index `row_values` from `row_values_source`:
 *   triggers in 0012_row_values, the view redefined in 0013_row_state_index_and_option_entries.
 * - `change_events_block_*` (insert, update of what a block shows, delete) and
 *   `change_events_schema_update` (update of `schema_version`) log the change in `change_events`:
 *   0021_change_log.
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
    /**
     * Databases: incremented by every schema change. Row and view writes validated
     * against a schema apply only while its version holds (see services/databases).
     */
    schemaVersion: integer("schema_version").notNull().default(0),
    /**
     * Incremented by every write of the block: the validator of its entity tag (RFC 9110 §8.8.3;
     * lib/entity-tags.ts). Writes that answer the block bump it themselves; the trigger
     * `blocks_version_update` bumps it after any other (0020_block_versions).
     */
    version: integer("version").notNull().default(0),
    /**
     * The default order of a database's rows: the position, unpositioned rows last (the largest
     * float). Computed by SQLite, never written; the expression is the migration's text.
     */
    positionKey: real("position_key").generatedAlwaysAs(sql`coalesce(\`position\`, 1.7976931348623157e308)`, {
      mode: "virtual",
    }),
  },
  (table) => [
    index("blocks_parent_position_idx").on(table.parentId, table.position),
    // A new block's place among the siblings its writer sees: one seek per owner (services/blocks/positions.ts).
    index("blocks_parent_owner_position_idx").on(table.parentId, table.createdBy, table.position),
    index("blocks_database_idx").on(table.databaseId),
    // A database's rows in their default order (the rowid, seq, breaks ties): exports read it by keyset.
    index("blocks_database_position_idx").on(table.databaseId, table.position),
    // The same order with unpositioned rows last: an unsorted row query walks it (services/databases/row-query/walk.ts).
    index("blocks_database_order_idx").on(table.databaseId, table.positionKey),
    // What a row query checks of each row it counts or sorts, keyed by seq: read instead of the wide row
    // (INDEXED BY, services/databases/row-query/indexed-page.ts).
    index("blocks_row_state_idx").on(
      table.seq,
      table.databaseId,
      table.type,
      table.createdBy,
      table.archived,
      table.inTrash,
      table.positionKey,
    ),
    index("blocks_owner_updated_idx").on(table.createdBy, table.updatedAt),
    index("blocks_owner_created_idx").on(table.createdBy, table.createdAt),
    // Covers the listing's bounded count (owner, state, type) without reading rows.
    index("blocks_owner_state_idx").on(table.createdBy, table.archived, table.inTrash, table.type),
  ],
);

/**
 * Authoritative schema of a database block: one row per property, keyed by a
 * canonical `prop_...` id. Rows store values under these ids only.
 *
 * Triggers `row_values_property_*` (insert, update of id, database or type, delete) keep the
 * property's entries of the row-value index `row_values`: 0012_row_values (migrations/README.md).
 */
export const databaseProperties = sqliteTable(
  "database_properties",
  {
    /** Unique within its database (a duplicated database keeps its property ids, so its rows stay valid). */
    id: text("id").notNull(),
    databaseId: text("database_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    name: text("name").notNull(),
    /**
     * The name case-folded: names are unique per database whatever their case. The default is only
     * what let migration 0005 add the column to existing rows; every insert writes it.
     */
    nameKey: text("name_key").notNull().default(""),
    type: text("type").notNull(),
    /** Select-like options, JSON `[{id, name, color}]`. */
    options: text("options").notNull().default("[]"),
    position: integer("position").notNull(),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [
    primaryKey({ columns: [table.databaseId, table.id] }),
    uniqueIndex("database_properties_name_idx").on(table.databaseId, table.name),
    uniqueIndex("database_properties_name_key_idx").on(table.databaseId, table.nameKey),
    index("database_properties_position_idx").on(table.databaseId, table.position),
  ],
);

/** Saved views of a database (table, board, calendar, timeline, ...). */
export const databaseViews = sqliteTable(
  "database_views",
  {
    id: text("id").primaryKey(),
    databaseId: text("database_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    name: text("name").notNull(),
    viewType: text("view_type").notNull(),
    dateProperty: text("date_property"),
    startDateProperty: text("start_date_property"),
    endDateProperty: text("end_date_property"),
    timelineScale: text("timeline_scale"),
    /** JSON arrays, stored as given after validation against the schema. */
    filters: text("filters").notNull().default("[]"),
    sorts: text("sorts").notNull().default("[]"),
    visibleProperties: text("visible_properties"),
    position: real("position"),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
    /** Incremented by every update: an update validated against one version applies only to it. */
    version: integer("version").notNull().default(0),
  },
  (table) => [index("database_views_database_idx").on(table.databaseId, table.position)],
);

/**
 * Comments on a block or page. A reply names its parent comment (one level of
 * threads); deleting a comment deletes its replies, deleting the block deletes both.
 *
 * Triggers `change_events_comment_*` (insert, update of content or resolution, delete) log each
 * change in `change_events`: 0021_change_log.
 */
export const comments = sqliteTable(
  "comments",
  {
    id: text("id").primaryKey(),
    blockId: text("block_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    parentId: text("parent_id").references((): AnySQLiteColumn => comments.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
    resolved: integer("resolved", { mode: "boolean" }).notNull().default(false),
    resolvedAt: text("resolved_at"),
    resolvedBy: text("resolved_by"),
  },
  (table) => [
    index("comments_block_idx").on(table.blockId, table.createdAt),
    index("comments_parent_idx").on(table.parentId),
  ],
);

/**
 * Inline mentions and links held by a block's content (`origin` content, written by the
 * `blocks_mentions_*` triggers on `blocks` with every content write: 0008_mentions_from_content),
 * or recorded through the API (`origin` api). Backlinks are read from here: the rows whose target
 * is a page.
 */
export const mentions = sqliteTable(
  "mentions",
  {
    id: text("id").primaryKey(),
    blockId: text("block_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    /** page, block, user or date. */
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    /** `mention` (an inline mention span) or `link` (a link in content to the target's id). */
    kind: text("kind").notNull().default("mention"),
    /** `content`: derived from the block's content and replaced with it; `api`: made by POST. */
    origin: text("origin").notNull().default("api"),
    /** The text around the mention, for backlink listings. */
    snippet: text("snippet").notNull().default(""),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull().default(nowIso),
  },
  (table) => [
    index("mentions_block_idx").on(table.blockId, table.createdAt),
    index("mentions_target_idx").on(table.targetType, table.targetId, table.createdAt),
  ],
);

/** Synced blocks: an instance block follows a source block's content, properties and children. */
export const syncedBlocks = sqliteTable(
  "synced_blocks",
  {
    id: text("id").primaryKey(),
    sourceBlockId: text("source_block_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    /** An instance follows at most one source. */
    instanceBlockId: text("instance_block_id")
      .notNull()
      .unique()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    /** `synced` or `unlinked`. */
    status: text("status").notNull().default("synced"),
    lastSyncedAt: text("last_synced_at"),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull().default(nowIso),
  },
  (table) => [index("synced_blocks_source_idx").on(table.sourceBlockId, table.createdAt)],
);

/**
 * Media files: the record of an object in the MEDIA bucket at `path` (`<user_id>/<unique name>`).
 * Record and object are written and removed together (services/media/storage.ts): a record is
 * `uploading` before its object is written and `deleting` before its object is removed, and only
 * `ready` records are ever shown, so a failure at any step leaves a trace in D1 to clean up from.
 */
export const media = sqliteTable(
  "media",
  {
    id: text("id").primaryKey(),
    /** The bucket's public name (`media`), as `bucket` fields of the API carry it. */
    bucket: text("bucket").notNull(),
    /** The object key: `<user_id>/<unique name>`. */
    path: text("path").notNull(),
    filename: text("filename").notNull(),
    /** From the bytes (magic numbers) when the declared type disagrees. */
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    /** SHA-256 of the bytes, hex. */
    sha256: text("sha256").notNull(),
    /** A JSON object, changed by RFC 7396 merge patches. */
    metadata: text("metadata").notNull().default("{}"),
    /** `uploading` | `ready` | `deleting`: only `ready` records exist for the API. */
    state: text("state").notNull().default("uploading"),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [
    uniqueIndex("media_bucket_path_idx").on(table.bucket, table.path),
    index("media_owner_created_idx").on(table.createdBy, table.createdAt),
    // Leftovers of interrupted uploads and deletions, for the sweep.
    index("media_state_updated_idx").on(table.state, table.updatedAt),
  ],
);

/**
 * Reminders: personal (one user's), on a database row's date property. D1 is the source of
 * truth; the user's ReminderQueue Durable Object only orders and fires them. `remind_at` is
 * the current occurrence (the upcoming one, or the latest fired one while `fired`), `next_fire_at`
 * when anything is next to fire (epoch ms; null when nothing is). States and transitions:
 * services/reminders/states.ts.
 */
export const reminders = sqliteTable(
  "reminders",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    targetBlockId: text("target_block_id")
      .notNull()
      .references(() => blocks.id, { onDelete: "cascade", onUpdate: "cascade" }),
    sourcePropertyId: text("source_property_id").notNull(),
    /** The series' first occurrence as requested (`recurrence_rule.anchor_at`, else `remind_at`), ISO UTC. */
    seriesStart: text("series_start").notNull(),
    /** The current occurrence, ISO UTC. */
    remindAt: text("remind_at").notNull(),
    /**
     * `due_at` minus `remind_at` in the reminder's local wall-clock time (so a due time one day later at
     * 09:00 stays 09:00 across DST), applied to every occurrence; null without a due time.
     */
    dueOffsetMs: integer("due_offset_ms"),
    timezone: text("timezone").notNull(),
    /** `push` or `in_app`. */
    channel: text("channel").notNull(),
    /** JSON object or null (not recurring). */
    recurrenceRule: text("recurrence_rule"),
    /** JSON object. */
    metadata: text("metadata").notNull().default("{}"),
    /** `metadata.schedule_id`, kept apart for the one-reminder-per-schedule index. */
    scheduleId: text("schedule_id"),
    status: text("status").notNull(),
    nextFireAt: integer("next_fire_at"),
    snoozedUntil: text("snoozed_until"),
    occurrenceCount: integer("occurrence_count").notNull().default(0),
    /** Bumped by every write: a firing computed from a read applies only to the version it read. */
    version: integer("version").notNull().default(1),
    createdAt: text("created_at").notNull().default(nowIso),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [
    // One reminder per schedule id and user, whatever its state: re-sending a schedule finds it.
    uniqueIndex("reminders_schedule_idx").on(table.userId, table.scheduleId).where(sql`schedule_id IS NOT NULL`),
    index("reminders_next_fire_idx").on(table.nextFireAt).where(sql`next_fire_at IS NOT NULL`),
    index("reminders_user_created_idx").on(table.userId, table.createdAt),
    index("reminders_user_target_idx").on(table.userId, table.targetBlockId),
  ],
);

/**
 * The in-app inbox: one notification per fired (reminder, occurrence), which is what makes
 * firing idempotent whoever fires it. `occurrence` is the firing's instant (ISO UTC).
 */
export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull().default("reminder"),
    reminderId: text("reminder_id").references(() => reminders.id, { onDelete: "set null" }),
    occurrence: text("occurrence").notNull(),
    targetBlockId: text("target_block_id"),
    title: text("title").notNull(),
    body: text("body").notNull().default(""),
    /** `push` when Web Push was asked for (deliveries in push_deliveries), else `in_app`. */
    channel: text("channel").notNull(),
    createdAt: text("created_at").notNull().default(nowIso),
    readAt: text("read_at"),
  },
  (table) => [
    uniqueIndex("notifications_firing_idx").on(table.reminderId, table.occurrence),
    index("notifications_user_created_idx").on(table.userId, table.createdAt),
  ],
);

/** A browser's Web Push subscription (PushManager.subscribe): where and how to encrypt for it. */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    /** The subscription's P-256 public key and auth secret, base64url as the browser gives them. */
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    /** Epoch ms, or null. */
    expirationTime: integer("expiration_time"),
    userAgent: text("user_agent"),
    createdAt: text("created_at").notNull().default(nowIso),
  },
  (table) => [uniqueIndex("push_subscriptions_endpoint_idx").on(table.userId, table.endpoint)],
);

/**
 * Web Push deliveries still owed or done: one per (notification, subscription). `pending` ones
 * are sent when `next_attempt_at` comes (claimed by moving it forward, so two senders never
 * send the same one at once), `sent` and `failed` (attempts exhausted) are kept for the record.
 */
export const pushDeliveries = sqliteTable(
  "push_deliveries",
  {
    notificationId: text("notification_id")
      .notNull()
      .references(() => notifications.id, { onDelete: "cascade" }),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    /** `pending` | `sent` | `failed`. */
    state: text("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** Epoch ms: when a pending delivery may next be tried (a claim pushes it past the attempt). */
    nextAttemptAt: integer("next_attempt_at").notNull(),
    /** The push service's last HTTP status, or null (network failure, not tried yet). */
    lastStatus: integer("last_status"),
    updatedAt: text("updated_at").notNull().default(nowIso),
  },
  (table) => [
    primaryKey({ columns: [table.notificationId, table.subscriptionId] }),
    index("push_deliveries_due_idx").on(table.nextAttemptAt).where(sql`state = 'pending'`),
  ],
);

/**
 * A user's workspace settings, one row per user, made by the first write that needs it.
 * Unset fields fall back to the server's configuration (TASK_CAPTURE_PROVIDER/MODEL) or defaults.
 */
export const userSettings = sqliteTable("user_settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** Quick-task capture: the provider of the parsing model, overriding TASK_CAPTURE_PROVIDER. */
  quickTaskProvider: text("quick_task_provider"),
  /** Quick-task capture: the parsing model, overriding TASK_CAPTURE_MODEL. */
  quickTaskModel: text("quick_task_model"),
  /** Where quick tasks go when a request names no database (not a foreign key: a deleted database falls back). */
  quickTaskDatabaseId: text("quick_task_database_id"),
  /** Requests to the preview route marked `preview=1` create at once. */
  quickTaskSkipPreview: integer("quick_task_skip_preview", { mode: "boolean" }).notNull().default(false),
  /**
   * The user's built-in Tasks database, once installed: recorded in the batch that installs it,
   * and the guard of that batch, so racing first creates install it once.
   */
  tasksDatabaseId: text("tasks_database_id"),
  updatedAt: text("updated_at").notNull().default(nowIso),
});

/**
 * AI streams running on the server's provider key, one row each: the per-user concurrency cap
 * counts the live ones. A row is written by one conditional INSERT (only while the user's live
 * leases are under the cap), deleted when its stream ends, and expires after the stream's
 * longest life, so a Worker that dies mid-stream frees its slot by itself.
 */
export const aiStreamLeases = sqliteTable(
  "ai_stream_leases",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    /** Epoch ms after which the lease no longer counts (and is swept). */
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [
    index("ai_stream_leases_user_idx").on(table.userId, table.expiresAt),
    index("ai_stream_leases_expiry_idx").on(table.expiresAt),
  ],
);

/**
 * Idempotency keys (draft-ietf-httpapi-idempotency-key-header), one row per user and key, so one
 * user's key is never another's: the request a key was first sent with (method, path and the
 * SHA-256 of its body), the attempt holding it (`token`), whether that attempt's writes landed
 * (`committed_at`, set inside each of its write batches) and the response to replay. Reserved by
 * one conditional upsert (services/idempotency/keys.ts); swept by the Cron Trigger once expired.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The key as the client sent it (the decoded sf-string). */
    key: text("idempotency_key").notNull(),
    method: text("method").notNull(),
    /** The path with its query string, as sent. */
    path: text("path").notNull(),
    /** Lowercase hex SHA-256 of the request body's bytes. */
    bodySha256: text("body_sha256").notNull(),
    /** The attempt holding the key: every write batch of that attempt checks it still does. */
    token: text("token").notNull(),
    /** Epoch ms of the first request with this key. */
    createdAt: integer("created_at").notNull(),
    /** Epoch ms after which the key is forgotten (a request with it runs again) and swept. */
    expiresAt: integer("expires_at").notNull(),
    /** Epoch ms until which an attempt that has written nothing keeps the key from a retry. */
    lockedUntil: integer("locked_until").notNull(),
    /** Epoch ms of the attempt's first write batch that committed; null while nothing landed. */
    committedAt: integer("committed_at"),
    /** Epoch ms the response was recorded; null while the request runs. */
    recordedAt: integer("recorded_at"),
    responseStatus: integer("response_status"),
    /** The replayed headers (Location, ETag, X-Next-Cursor, Content-Type...), a JSON object. */
    responseHeaders: text("response_headers"),
    /** The response body as text; null once recorded means it was not kept (a replay is refused). */
    responseBody: text("response_body"),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.key] }),
    index("idempotency_keys_expiry_idx").on(table.expiresAt),
  ],
);

/**
 * Who makes the writes of the batch running now, for the change-log triggers to read: one row
 * (`id` 1), written by the first statement of every write batch of a request and deleted by its
 * last (db/write-context.ts), so between batches it is empty and a write made outside a request
 * (the Cron Trigger, a Durable Object) is logged with no actor. D1 runs a batch as one
 * transaction on the one primary, so no other batch's row is ever read.
 */
export const writeContext = sqliteTable("write_context", {
  id: integer("id").primaryKey(),
  /** The user the request acts for. */
  actorId: text("actor_id"),
  /** The request's X-Request-Id. */
  requestId: text("request_id"),
  /** The request's clock when the batch was sent, ISO UTC: the events' `occurred_at`. */
  occurredAt: text("occurred_at"),
  /**
   * A database whose rows this batch rewrites for a schema change (an option renamed or removed, a
   * property removed): those rewrites are the batch's one `database.schema_updated` event, not one
   * `block.updated` per row. Set by the schema change's own batch (services/databases/schema-commands.ts).
   */
  schemaRowsOf: text("schema_rows_of"),
});

/**
 * The change log: one event per change of a block, a comment or a database's schema, written by
 * triggers on `blocks` and `comments` in the statement that makes the change, whichever path makes
 * it (migrations/0021_change_log.sql). `id` is monotonic in commit order (AUTOINCREMENT: never
 * reused, even after the newest events are swept), the feed's cursor. Kept 30 days, swept by the
 * Cron Trigger (services/change-log/retention.ts).
 */
export const changeEvents = sqliteTable(
  "change_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** `block.created`, `block.updated`, `block.deleted`, `comment.*`, `database.schema_updated`. */
    type: text("type").notNull(),
    /** The block, comment or database changed. */
    objectId: text("object_id").notNull(),
    /**
     * Who may see the event, as who may see the object: the block's `created_by` (a comment's: its
     * block's), null for a shared block (seen by every user), as `visibleTo` reads blocks.
     */
    ownerId: text("owner_id"),
    /** The user whose request made the change; null for a change made outside a request. */
    actorId: text("actor_id"),
    /** The X-Request-Id of that request. */
    requestId: text("request_id"),
    occurredAt: text("occurred_at").notNull(),
    /** A JSON array of the fields that changed (updates only), else null. */
    changedFields: text("changed_fields"),
    /** The object after the change as JSON (the shape its GET answers), null after a delete. */
    data: text("data"),
  },
  (table) => [
    // The feed: one seek per side of the visibility rule (the caller's own, the shared), in id order.
    index("change_events_owner_idx").on(table.ownerId, table.id),
    // A block's history, newest first.
    index("change_events_object_idx").on(table.objectId, table.id),
  ],
);

/**
 * How far the sweep has removed the change log (one row, `id` 1): every event up to
 * `swept_through` is gone, so a feed cursor before it has missed events (410 `cursor_expired`).
 */
export const changeLogHorizon = sqliteTable("change_log_horizon", {
  id: integer("id").primaryKey(),
  sweptThrough: integer("swept_through").notNull().default(0),
});

/**
 * A user's webhook endpoints (Standard Webhooks): where the change log's events the user may see
 * are delivered, signed with `secret` (`whsec_` + base64 of its bytes; during a rotation also with
 * `previous_secret` until `previous_secret_expires_at`). `event_types` is a JSON array of the
 * change log's types, or null for all. The trigger `webhook_deliveries_from_events`
 * (migrations/0023_webhook_deliveries_by_owner.sql) reads it for each new event. `failing_since` is when its
 * deliveries began failing without a success since; three days of that disable it.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    eventTypes: text("event_types"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: text("previous_secret_expires_at"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason"),
    disabledAt: text("disabled_at"),
    failingSince: text("failing_since"),
    /** Bumped by every change: the entity tag's version. */
    version: integer("version").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("webhook_endpoints_user_idx").on(table.userId, table.enabled)],
);

/**
 * The outbox of webhook deliveries: one row per (event, endpoint), written by the trigger
 * `webhook_deliveries_from_events` on `change_events` in the statement that writes the event, so
 * a committed event is always delivered. `pending` ones are sent when `next_attempt_at` comes,
 * claimed by `lease_id` until `lease_until`; `enqueued_at` is when a queue message for it is due
 * (the Cron Trigger enqueues again what is overdue). `request_id` is the request that wrote the
 * event, which enqueues its own deliveries after its write (db/write-context.ts).
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: integer("event_id").notNull(),
    eventType: text("event_type").notNull(),
    requestId: text("request_id"),
    /** `pending`, `succeeded` or `failed` (retries exhausted). */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: text("created_at").notNull(),
    lastAttemptAt: text("last_attempt_at"),
    nextAttemptAt: text("next_attempt_at"),
    enqueuedAt: text("enqueued_at"),
    leaseId: text("lease_id"),
    leaseUntil: text("lease_until"),
    responseStatus: integer("response_status"),
    responseDurationMs: integer("response_duration_ms"),
    /** Why the last attempt failed without a status: `timeout`, `network`, `redirect`. */
    lastError: text("last_error"),
  },
  (table) => [
    // A webhook's deliveries, newest first.
    index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.id),
    // The Cron Trigger's pick of what is due.
    index("webhook_deliveries_due_idx").on(table.status, table.nextAttemptAt),
    // A request's own deliveries, enqueued after its write.
    index("webhook_deliveries_request_idx").on(table.requestId).where(sql`${table.enqueuedAt} IS NULL`),
    // The retention sweep, by event.
    index("webhook_deliveries_event_idx").on(table.eventId),
  ],
);
