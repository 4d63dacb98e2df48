import { createRoute, z } from "@hono/zod-openapi";
import {
  authenticatedErrors,
  bearerSecurity,
  conflictResponse,
  forbiddenResponse,
  jsonBody,
  jsonContent,
  paginationHeaders,
} from "../../openapi/responses";
import {
  ArchiveBlockBody,
  BlockIdParams,
  BlockSchema,
  BlockTreeSchema,
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

export const list = createRoute({
  operationId: "listBlocks",
  method: "get",
  path: base,
  tags,
  security: bearerSecurity,
  summary: "List or search visible blocks",
  request: { query: ListBlocksQuery },
  responses: {
    200: {
      ...jsonContent(z.array(BlockSchema), "One page of blocks"),
      headers: paginationHeaders,
    },
    ...authenticatedErrors,
  },
});

export const create = createRoute({
  operationId: "createBlock",
  method: "post",
  path: base,
  tags,
  security: bearerSecurity,
  summary: "Create a block",
  request: { body: jsonBody(CreateBlockBody) },
  responses: { 201: oneBlock("The created block"), ...authenticatedErrors, ...forbiddenResponse, ...conflictResponse },
});

/** The contract also names unversioned creation paths (used for creating databases); same behaviour. */
export const createUnversioned = createRoute({
  ...create,
  operationId: "createBlockUnversioned",
  path: "/api/blocks",
  summary: "Create a block (unversioned alias of POST /api/v1/blocks)",
});

export const get = createRoute({
  operationId: "getBlock",
  method: "get",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "Get an active block",
  request: { params: BlockIdParams },
  responses: { 200: oneBlock("The block"), ...authenticatedErrors },
});

export const update = createRoute({
  operationId: "updateBlock",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "Update a block",
  request: { params: BlockIdParams, body: jsonBody(UpdateBlockBody) },
  responses: { 200: oneBlock("The updated block"), ...authenticatedErrors, ...forbiddenResponse },
});

export const remove = createRoute({
  operationId: "deleteBlock",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  security: bearerSecurity,
  summary: "Permanently delete a block and its descendants",
  request: { params: BlockIdParams },
  responses: { 200: jsonContent(DeleteBlockResponse, "Deleted"), ...authenticatedErrors },
});

export const children = createRoute({
  operationId: "listBlockChildren",
  method: "get",
  path: `${base}/{id}/children`,
  tags,
  security: bearerSecurity,
  summary: "Active visible direct children, by position",
  request: { params: BlockIdParams },
  responses: { 200: jsonContent(z.array(BlockSchema), "The children"), ...authenticatedErrors },
});

export const hierarchy = createRoute({
  operationId: "getBlockHierarchy",
  method: "get",
  path: `${base}/{id}/hierarchy`,
  tags,
  security: bearerSecurity,
  summary: "The block with its descendants nested to a depth",
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
    ...authenticatedErrors,
  },
});

export const duplicate = createRoute({
  operationId: "duplicateBlock",
  method: "post",
  path: `${base}/{id}/duplicate`,
  tags,
  security: bearerSecurity,
  summary: "Duplicate a block (with its children by default), placed after the original",
  request: { params: BlockIdParams, body: jsonBody(DuplicateBlockBody, false) },
  responses: { 201: oneBlock("The copy of the block"), ...authenticatedErrors },
});

export const convert = createRoute({
  operationId: "convertBlock",
  method: "post",
  path: `${base}/{id}/convert`,
  tags,
  security: bearerSecurity,
  summary: "Change a block's type (and merge properties)",
  request: { params: BlockIdParams, body: jsonBody(ConvertBlockBody) },
  responses: { 200: oneBlock("The converted block"), ...authenticatedErrors, ...forbiddenResponse },
});

export const archive = createRoute({
  operationId: "archiveBlock",
  method: "post",
  path: `${base}/{id}/archive`,
  tags,
  security: bearerSecurity,
  summary: "Archive or unarchive a block",
  request: { params: BlockIdParams, body: jsonBody(ArchiveBlockBody, false) },
  responses: { 200: oneBlock("The block"), ...authenticatedErrors },
});

export const trash = createRoute({
  operationId: "trashBlock",
  method: "post",
  path: `${base}/{id}/trash`,
  tags,
  security: bearerSecurity,
  summary: "Move a block to the trash",
  request: { params: BlockIdParams },
  responses: { 200: oneBlock("The block"), ...authenticatedErrors },
});

export const restore = createRoute({
  operationId: "restoreBlock",
  method: "post",
  path: `${base}/{id}/restore`,
  tags,
  security: bearerSecurity,
  summary: "Take a block out of the trash and the archive",
  request: { params: BlockIdParams },
  responses: { 200: oneBlock("The block"), ...authenticatedErrors },
});

export const move = createRoute({
  operationId: "moveBlock",
  method: "post",
  path: `${base}/{id}/move`,
  tags,
  security: bearerSecurity,
  summary: "Change a block's parent, teamspace and/or position",
  request: { params: BlockIdParams, body: jsonBody(MoveBlockBody) },
  responses: { 200: oneBlock("The moved block"), ...authenticatedErrors },
});
