import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { EmptyBody, jsonBody, jsonContent } from "../../openapi/responses";
import { BlockSchema, BlockTreeSchema } from "../../schemas/blocks";
import { MAX_PROPERTIES } from "../../services/databases/property-types";
import {
  ArchiveBlockBody,
  BlockIdParams,
  ConvertBlockBody,
  CreateBlockBody,
  DeleteBlockResponse,
  DuplicateBlockBody,
  HierarchyQuery,
  ListBlocksQuery,
  MoveBlockBody,
  UpdateBlockBody,
} from "./blocks.schemas";

const tags = ["Blocks"];
const base = "/api/v1/blocks";
const oneBlock = (description: string) => jsonContent(BlockSchema, description);

export const list = defineRoute({
  operationId: "listBlocks",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "List or search visible blocks",
  description:
    "The caller's visible blocks (their own and shared ones), newest change first by default. With `q`, a full-text search over titles, properties and content: every word must occur, the last one also as a prefix, ranked by relevance unless `sortBy` is given. Archived and trashed blocks are listed only with `archived=true` / `in_trash=true`. Paginated: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: ListBlocksQuery },
  responses: {
    200: {
      ...jsonContent(z.array(BlockSchema), "One page of blocks"),
      headers: paginationHeaders,
    },
  },
});

const createSpec = {
  operationId: "createBlock",
  entityTag: "create" as const,
  method: "post" as const,
  path: base,
  tags,
  access: "user" as const,
  location: "/api/v1/blocks/{id}",
  summary: "Create a block",
  description: `Creates an editor block, page, database or row owned by the caller. \`parent_id\` and \`database_id\` must name visible blocks (404 otherwise). A \`database\` gets its schema records in the same write: the default columns (title, created_time, created_by, last_edited_time, last_edited_by) and the properties of an inline \`properties.schema\` given with it (ids kept; the inline schema is not kept in \`properties\`; an invalid one, or one giving the database more than ${MAX_PROPERTIES} properties with its default columns, is a 400 at its path); a \`database_row\` has its properties validated against its database's schema (aliases translated to \`prop_\` ids, options matched exactly); a page-like block's \`content\` must be canonical editor items. An id already taken is a 409; the internal type \`provider_audit_log\` is a 403.`,
  request: { body: jsonBody(CreateBlockBody) },
  responses: {
    201: oneBlock("The created block"),
    403: ERROR_RESPONSES[403],
    404: ERROR_RESPONSES[404],
    409: ERROR_RESPONSES[409],
  },
};

export const create = defineRoute(createSpec);

/** The contract also names unversioned creation paths (used for creating databases); same behaviour. */
export const createUnversioned = defineRoute({
  ...createSpec,
  operationId: "createBlockUnversioned",
  path: "/api/blocks",
  summary: "Create a block (unversioned alias of POST /api/v1/blocks)",
  description: `The unversioned creation path the contract names (used to create databases). ${createSpec.description}`,
});

export const get = defineRoute({
  operationId: "getBlock",
  entityTag: "read",
  method: "get",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Get an active block",
  description:
    "One active (not archived, not trashed) block the caller can see. Another user's block, or a missing one, is a 404.",
  request: { params: BlockIdParams },
  responses: { 200: oneBlock("The block") },
});

export const update = defineRoute({
  operationId: "updateBlock",
  entityTag: "write",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Update a block",
  description:
    "Changes a visible block in any state. `properties` merge as an RFC 7396 merge patch (null removes a key; a row's values are each replaced whole and validated against its database's schema); `content` replaces. Changing `type` or `database_id` so that the block becomes a row validates all its values against the new schema. Server-controlled fields in the body are ignored.",
  request: { params: BlockIdParams, body: jsonBody(UpdateBlockBody) },
  responses: { 200: oneBlock("The updated block"), 403: ERROR_RESPONSES[403], 409: ERROR_RESPONSES[409] },
});

export const remove = defineRoute({
  operationId: "deleteBlock",
  entityTag: "remove",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Permanently delete a block and its descendants",
  description:
    "Permanently deletes a visible block with its visible descendants (children, and a database's rows) in one atomic write. Other users' blocks under it are detached to the top level, never deleted.",
  request: { params: BlockIdParams },
  responses: { 200: jsonContent(DeleteBlockResponse, "Deleted") },
});

export const children = defineRoute({
  operationId: "listBlockChildren",
  method: "get",
  path: `${base}/{id}/children`,
  tags,
  access: "user",
  summary: "Active visible direct children, by position",
  description: "The active visible direct children of a block, ordered by `position` (unpositioned last).",
  request: { params: BlockIdParams },
  responses: { 200: jsonContent(z.array(BlockSchema), "The children") },
});

export const hierarchy = defineRoute({
  operationId: "getBlockHierarchy",
  method: "get",
  path: `${base}/{id}/hierarchy`,
  tags,
  access: "user",
  summary: "The block with its descendants nested to a depth",
  description:
    "The block with its active visible descendants nested in `children`, to `depth` levels (default 10, at most 25), from one query. A tree of more than 10,000 blocks is cut breadth-first and flagged with `X-Hierarchy-Truncated: true`.",
  request: { params: BlockIdParams, query: HierarchyQuery },
  responses: {
    200: {
      ...jsonContent(BlockTreeSchema, "The block tree"),
      headers: {
        "X-Hierarchy-Truncated": {
          schema: { type: "string" as const, enum: ["true"] },
          description: "Present when the tree exceeded 10,000 blocks and was cut breadth-first",
        },
      },
    },
  },
});

export const duplicate = defineRoute({
  operationId: "duplicateBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/duplicate`,
  tags,
  access: "user",
  location: "/api/v1/blocks/{id}",
  summary: "Duplicate a block (with its children by default), placed after the original",
  description:
    "Copies a visible block, by default with its active descendants (a database with its schema and rows), placed right after the original (halfway to the next sibling the caller sees; concurrent copies each get a place of their own). The copies belong to the caller; references inside the copied subtree point to the copies. At most 10,000 blocks per call. `If-Match` and `If-None-Match` are held to the block being copied, the request's target (RFC 9110 §13.1.1, §13.1.2): the `ETag` of GET /api/v1/blocks/{id}, checked in the copy's own write (a stale tag copies nothing: 412 with the source's current tag); the answer's `ETag` is the copy's.",
  request: { params: BlockIdParams, body: jsonBody(DuplicateBlockBody, false) },
  responses: { 201: oneBlock("The copy of the block") },
});

export const convert = defineRoute({
  operationId: "convertBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/convert`,
  tags,
  access: "user",
  summary: "Change a block's type (and merge properties)",
  description:
    "Changes a block's type, merging `properties` as PATCH does. A block turned into a page, database or row keeps its text as canonical content; turned into a row, all its values are validated against the database's schema; turned into a database, it gets its default columns and the properties of the inline `properties.schema` it holds or is given, as records; a row turned into anything else keeps its values under their properties' names (its title as `title`).",
  request: { params: BlockIdParams, body: jsonBody(ConvertBlockBody) },
  responses: { 200: oneBlock("The converted block"), 403: ERROR_RESPONSES[403], 409: ERROR_RESPONSES[409] },
});

export const archive = defineRoute({
  operationId: "archiveBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/archive`,
  tags,
  access: "user",
  summary: "Archive or unarchive a block",
  description:
    'Sets the block\'s `archived` flag (`{"archived": false}` unarchives). Archived blocks drop out of reads until unarchived or restored.',
  request: { params: BlockIdParams, body: jsonBody(ArchiveBlockBody, false) },
  responses: { 200: oneBlock("The block") },
});

export const trash = defineRoute({
  operationId: "trashBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/trash`,
  tags,
  access: "user",
  summary: "Move a block to the trash",
  description: "Moves the block to the trash. Trashed blocks drop out of reads until restored.",
  request: { params: BlockIdParams, body: jsonBody(EmptyBody, false) },
  responses: { 200: oneBlock("The block") },
});

export const restore = defineRoute({
  operationId: "restoreBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/restore`,
  tags,
  access: "user",
  summary: "Take a block out of the trash and the archive",
  description: "Takes the block out of the trash and the archive.",
  request: { params: BlockIdParams, body: jsonBody(EmptyBody, false) },
  responses: { 200: oneBlock("The block") },
});

export const move = defineRoute({
  operationId: "moveBlock",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/move`,
  tags,
  access: "user",
  summary: "Change a block's parent, teamspace and/or position",
  description:
    "Changes a block's parent, teamspace and/or position. A parent must be visible (404) and cannot be the block itself or one of its descendants (400).",
  request: { params: BlockIdParams, body: jsonBody(MoveBlockBody) },
  responses: { 200: oneBlock("The moved block") },
});
