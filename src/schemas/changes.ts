import { z } from "@hono/zod-openapi";
import { BlockSchema } from "./blocks";
import { CommentSchema } from "./comments";
import { DatabaseSchemaSchema } from "./databases";

// The change log as clients read it: events of the feed (GET /api/v1/changes) and versions of a
// block's history (GET /api/v1/blocks/{id}/history). Written by triggers (migrations/0021_change_log.sql).

const EXAMPLE_USER = "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d";
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";
const EXAMPLE_REQUEST = "5b0e7a52-3c1d-4f6e-8a9b-0c1d2e3f4a5b";

/** What the log records; a move, an archive, a trash and a restore are `block.updated` (see `changed_fields`). */
export const CHANGE_EVENT_TYPES = [
  "block.created",
  "block.updated",
  "block.deleted",
  "comment.created",
  "comment.updated",
  "comment.deleted",
  "database.schema_updated",
] as const;
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

/** The types whose `data` is a version of a block: what a block's history lists. */
export const BLOCK_VERSION_TYPES = ["block.created", "block.updated"] as const satisfies readonly ChangeEventType[];

/** The fields a `block.updated` may name, in the order of the Block. */
export const BLOCK_CHANGED_FIELDS = [
  "type",
  "parent_id",
  "database_id",
  "teamspace_id",
  "properties",
  "content",
  "position",
  "archived",
  "in_trash",
] as const;
/** The fields a `comment.updated` may name. */
export const COMMENT_CHANGED_FIELDS = ["content", "resolved", "resolved_at", "resolved_by"] as const;

const TYPES_DESCRIPTION = `What happened:
- \`block.created\`: a block, page, database or row was created (also by a duplicate, bulk rows, a synced-block propagation, a quick task, an import);
- \`block.updated\`: any of its ${BLOCK_CHANGED_FIELDS.map((field) => `\`${field}\``).join(", ")} changed: a move, an archive, a trash and a restore are updates, and \`changed_fields\` says which;
- \`block.deleted\`: deleted for good (\`data\` null); a trashed block is \`block.updated\` with \`in_trash\` true;
- \`comment.created\`, \`comment.updated\` (content, resolved or reopened), \`comment.deleted\` (a comment deleted with its block is said by the block's \`block.deleted\`);
- \`database.schema_updated\`: a property or option of a database was added, changed or removed (\`data\` is the schema after it). The rows it rewrote (an option renamed or removed, a property removed) are not events of their own: read the database's rows again after it. A rewritten row whose owner is not the database's (a shared row in a private database), which users the database's event does not reach can see, has its own \`block.updated\`.`;

export const CommentEventDataSchema = CommentSchema.omit({ page_id: true }).openapi("CommentEventData", {
  description: "A comment as its routes answer it, without `page_id` (which depends on who reads)",
});

export const ChangeEventSchema = z
  .object({
    id: z.number().int().openapi({
      description: "Monotonic in commit order: a later change has a larger id (ids of changes rolled back are skipped)",
      example: 4711,
    }),
    type: z.enum(CHANGE_EVENT_TYPES).openapi({ description: TYPES_DESCRIPTION, example: "block.updated" }),
    object_id: z.string().openapi({
      description: "The block, comment or database (a database's id for `database.schema_updated`)",
      example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
    }),
    occurred_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    actor_id: z.string().nullable().openapi({
      description:
        "The user whose request made the change; null for a change the service made by itself (Cron Trigger, Durable Object)",
      example: EXAMPLE_USER,
    }),
    request_id: z.string().nullable().openapi({
      description:
        "The X-Request-Id of that request: the events of one request share it (a duplicate's copies, a batch of rows); null when no request made the change",
      example: EXAMPLE_REQUEST,
    }),
    changed_fields: z
      .array(z.string())
      .nullable()
      .openapi({
        description: `For \`block.updated\` and \`comment.updated\`: the fields whose value changed (of a block: ${BLOCK_CHANGED_FIELDS.join(", ")}; of a comment: ${COMMENT_CHANGED_FIELDS.join(", ")}; \`updated_at\` and \`last_edited_by\` change with each and are not listed). Null for the other types.`,
        example: ["properties", "content"],
      }),
    data: z.union([BlockSchema, CommentEventDataSchema, DatabaseSchemaSchema]).nullable().openapi({
      description:
        "The object as it was right after the change, in the shape its GET answers: a Block (`block.*`), a comment (`comment.*`), a DatabaseSchema (`database.schema_updated`). Null after a deletion.",
    }),
  })
  .openapi("ChangeEvent", {
    example: {
      id: 4711,
      type: "block.updated",
      object_id: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
      occurred_at: EXAMPLE_TIME,
      actor_id: EXAMPLE_USER,
      request_id: EXAMPLE_REQUEST,
      changed_fields: ["properties"],
      data: {
        id: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
        type: "page",
        parent_id: null,
        database_id: null,
        teamspace_id: null,
        properties: { title: "Launch plan (v2)" },
        content: [{ type: "paragraph", children: [{ text: "Ship on Friday." }] }],
        position: 1,
        archived: false,
        in_trash: false,
        created_by: EXAMPLE_USER,
        last_edited_by: EXAMPLE_USER,
        created_at: "2026-11-20T08:00:00.000Z",
        updated_at: EXAMPLE_TIME,
      },
    },
  });
export type ChangeEvent = z.infer<typeof ChangeEventSchema>;

export const BlockVersionSchema = z
  .object({
    event_id: z.number().int().openapi({
      description: "The change that made this version: restore it with POST .../history/{event_id}/restore",
      example: 4711,
    }),
    type: z.enum(BLOCK_VERSION_TYPES).openapi({ example: "block.updated" }),
    occurred_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    actor_id: z.string().nullable().openapi({
      description: "Who made it; null when the service made it by itself",
      example: EXAMPLE_USER,
    }),
    changed_fields: z
      .array(z.string())
      .nullable()
      .openapi({
        description: "What this change changed (null for the creation)",
        example: ["content"],
      }),
    block_type: z.string().openapi({ description: "The block's type in this version", example: "page" }),
    properties: BlockSchema.shape.properties,
    content: BlockSchema.shape.content,
  })
  .openapi("BlockVersion", {
    description: "One version of a block, from the change log: what it held right after one change",
  });
export type BlockVersion = z.infer<typeof BlockVersionSchema>;
