import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { CommentSchema, DeleteCommentResponseSchema } from "../../schemas/comments";
import {
  BlockIdParams,
  CommentIdParams,
  CreateCommentBody,
  ListCommentsQuery,
  PageIdParams,
  ResolveCommentBody,
  UpdateCommentBody,
} from "./comments.schemas";

const tags = ["Comments"];
const base = "/api/v1/comments";

const LISTING =
  "Oldest first; `resolved=true|false` keeps only resolved or open comments (replies are filtered like any comment). Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.";
const AUTHOR_ONLY =
  "Only the comment's author may do this: another user who can see the comment's block gets a 403, a caller who cannot see it a 404.";

const oneComment = (description: string) => jsonContent(CommentSchema, description);
const listing = (description: string) => ({
  ...jsonContent(z.array(CommentSchema), description),
  headers: paginationHeaders,
});

export const listByBlock = defineRoute({
  operationId: "listBlockComments",
  method: "get",
  path: `${base}/block/{blockId}`,
  tags,
  access: "user",
  summary: "Comments on a block",
  description: `The comments on one block or page (not on the blocks under it), top-level comments and replies alike. The block must be visible to the caller and active (not archived or trashed): otherwise a 404. ${LISTING}`,
  request: { params: BlockIdParams, query: ListCommentsQuery },
  responses: { 200: listing("One page of the block's comments") },
});

export const listByPage = defineRoute({
  operationId: "listPageComments",
  method: "get",
  path: `${base}/page/{pageId}`,
  tags,
  access: "user",
  summary: "Comments on a page and its blocks",
  description: `Every comment on the page itself and on the blocks under it, at any depth, but not those of its sub-pages, databases or rows (page-like blocks have comments of their own). Blocks the caller cannot see, and archived or trashed blocks, are left out with what is under them. \`pageId\` must be a page, database or row the caller can see and that is active: otherwise a 404. ${LISTING}`,
  request: { params: PageIdParams, query: ListCommentsQuery },
  responses: { 200: listing("One page of the page's comments") },
});

export const create = defineRoute({
  operationId: "createComment",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/comments/{id}",
  summary: "Comment on a block or page",
  description:
    "Adds a comment to `block_id`, which must be visible to the caller and active (404 otherwise, `details.block_id`). With `parent_id`, a reply: the parent must be a comment on a block the caller can see (404 otherwise, `details.field` parent_id), on the same block (400), and a top-level comment, since threads are one level deep (400). `content`: 1 to 10,000 characters, not only whitespace.",
  request: { body: jsonBody(CreateCommentBody) },
  responses: { 201: oneComment("The new comment"), 404: ERROR_RESPONSES[404] },
});

export const update = defineRoute({
  operationId: "updateComment",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Edit a comment",
  description: `Replaces the comment's \`content\`. ${AUTHOR_ONLY} A comment on an archived or trashed block can still be edited.`,
  request: { params: CommentIdParams, body: jsonBody(UpdateCommentBody) },
  responses: { 200: oneComment("The edited comment") },
});

export const remove = defineRoute({
  operationId: "deleteComment",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Delete a comment and its replies",
  description: `Deletes the comment; a top-level comment's replies (whoever wrote them) go with it, in the same atomic write. \`deleted_count\` counts both. ${AUTHOR_ONLY}`,
  request: { params: CommentIdParams },
  responses: { 200: jsonContent(DeleteCommentResponseSchema, "Deleted") },
});

export const resolve = defineRoute({
  operationId: "resolveComment",
  method: "post",
  path: `${base}/{id}/resolve`,
  tags,
  access: "user",
  summary: "Resolve a comment",
  description: `Marks the comment resolved (\`resolved\`, \`resolved_at\`, \`resolved_by\`). Resolving a resolved comment changes nothing and answers it as it is (200). ${AUTHOR_ONLY}`,
  request: { params: CommentIdParams, body: jsonBody(ResolveCommentBody, false) },
  responses: { 200: oneComment("The resolved comment") },
});

export const unresolve = defineRoute({
  operationId: "unresolveComment",
  method: "post",
  path: `${base}/{id}/unresolve`,
  tags,
  access: "user",
  summary: "Reopen a resolved comment",
  description: `Reopens the comment (\`resolved\` false; \`resolved_at\` and \`resolved_by\` cleared). Reopening an open comment changes nothing and answers it as it is (200). ${AUTHOR_ONLY}`,
  request: { params: CommentIdParams, body: jsonBody(ResolveCommentBody, false) },
  responses: { 200: oneComment("The reopened comment") },
});
