import { z } from "@hono/zod-openapi";
import { integerParameter } from "../../lib/integer-parameter";
import { JSON_DEPTH_MESSAGE, withinJsonDepth } from "../../lib/json-depth";
import { PaginationQuery } from "../../lib/pagination";
import { BLOCK_ID_DESCRIPTION } from "../../openapi/path-params";
import { QueryBoolean } from "../../openapi/query";
import { HIERARCHY_DEFAULT_DEPTH, HIERARCHY_MAX_DEPTH } from "../../services/blocks/queries";

const nullableId = z.string().min(1).max(128).nullable();

export const BlockIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: BLOCK_ID_DESCRIPTION,
      example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d",
    }),
});

const blockType = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "Block types are letters, digits, '_' and '-', starting with a letter");

const properties = z.record(z.string(), z.unknown()).refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE);
const content = z.unknown().refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE);

export const CreateBlockBody = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/, "Block ids are letters, digits, '_' and '-'")
      .optional()
      .openapi({ description: "Caller-supplied id; a UUID is generated when absent" }),
    type: blockType,
    properties: properties.optional().openapi({ description: "Defaults to {}" }),
    parent_id: nullableId.optional(),
    parentId: nullableId.optional().openapi({ description: "Alternative spelling of parent_id" }),
    database_id: nullableId.optional(),
    databaseId: nullableId.optional().openapi({ description: "Alternative spelling of database_id" }),
    teamspace_id: nullableId.optional(),
    teamspaceId: nullableId.optional().openapi({ description: "Alternative spelling of teamspace_id" }),
    content: content.optional(),
    position: z.number().optional().openapi({ description: "Defaults to after the last sibling the caller sees" }),
  })
  .openapi("CreateBlockRequest", {
    // Valid on an empty account (the explorer's Try-it sends it as is): a page at the workspace's top level.
    example: { type: "page", properties: { title: "Launch plan" } },
  });

const serverControlled = z.unknown().optional().openapi({ description: "Server-controlled: accepted and ignored" });

export const UpdateBlockBody = z
  .strictObject({
    type: blockType.optional(),
    properties: properties.optional().openapi({
      description: "Merged into the stored properties as an RFC 7396 merge patch: null removes a key",
    }),
    parent_id: nullableId.optional(),
    parentId: nullableId.optional(),
    database_id: nullableId.optional(),
    databaseId: nullableId.optional(),
    teamspace_id: nullableId.optional(),
    teamspaceId: nullableId.optional(),
    content: content.optional().openapi({ description: "Replaces the stored content" }),
    position: z.number().optional(),
    archived: z.boolean().optional(),
    in_trash: z.boolean().optional(),
    id: serverControlled,
    created_by: serverControlled,
    created_at: serverControlled,
    updated_at: serverControlled,
    last_edited_by: serverControlled,
  })
  .openapi("UpdateBlockRequest", { example: { properties: { title: "Launch plan (final)" }, archived: false } });

export const MoveBlockBody = z
  .strictObject({
    parent_id: nullableId.optional(),
    parentId: nullableId.optional(),
    teamspace_id: nullableId.optional(),
    teamspaceId: nullableId.optional(),
    position: z.number().optional(),
  })
  .openapi("MoveBlockRequest", { example: { parent_id: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d", position: 2.5 } });

export const ConvertBlockBody = z
  .strictObject({
    type: blockType,
    properties: properties.optional().openapi({ description: "Merged into the stored properties (RFC 7396)" }),
  })
  .openapi("ConvertBlockRequest", { example: { type: "heading-2" } });

export const ArchiveBlockBody = z
  .strictObject({
    archived: z.boolean().default(true).openapi({ description: "false unarchives" }),
  })
  .openapi("ArchiveBlockRequest", { example: { archived: true } });

export const DuplicateBlockBody = z
  .strictObject({
    include_children: z.boolean().default(true).openapi({ description: "Copy the active descendants too" }),
  })
  .openapi("DuplicateBlockRequest", { example: { include_children: true } });

export const ListBlocksQuery = PaginationQuery.extend({
  q: z
    .string()
    .max(500)
    .optional()
    .openapi({ description: "Full-text search over titles, properties and content", examples: ["launch plan"] }),
  type: z.string().min(1).max(64).optional().openapi({ description: "Only blocks of this type", example: "page" }),
  parent_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Only children of this block", examples: ["6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d"] }),
  parentId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Alternative spelling of parent_id", examples: ["6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d"] }),
  database_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Only rows of this database", examples: ["5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a"] }),
  databaseId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({
      description: "Alternative spelling of database_id",
      examples: ["5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a"],
    }),
  archived: QueryBoolean.optional().openapi({ description: "List archived blocks (default false)", example: "false" }),
  in_trash: QueryBoolean.optional().openapi({
    description: "List blocks in the trash (default false)",
    example: "false",
  }),
  sortBy: z
    .enum(["position", "updated_at", "created_at"])
    .optional()
    .openapi({ description: "Default updated_at; with q, relevance", example: "updated_at" }),
  sortOrder: z.enum(["asc", "desc"]).optional().openapi({ description: "Default desc", example: "desc" }),
}).strict();

export const HierarchyQuery = z.strictObject({
  depth: integerParameter((integer) => integer.min(0).max(HIERARCHY_MAX_DEPTH))
    .optional()
    .openapi({
      description: `Levels below the block, default ${HIERARCHY_DEFAULT_DEPTH}, max ${HIERARCHY_MAX_DEPTH}`,
      example: 3,
    }),
});

export const DeleteBlockResponse = z
  .object({ success: z.boolean(), message: z.string(), deleted_count: z.number().int() })
  .openapi("DeleteBlockResponse", {
    example: { success: true, message: "Block permanently deleted", deleted_count: 3 },
  });
