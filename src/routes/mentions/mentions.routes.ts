import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { BacklinkSchema, MentionRecordSchema } from "../../schemas/mentions";
import {
  BacklinkCountResponse,
  BlockParams,
  CreateMentionBody,
  ListQuery,
  MentionParams,
  PageParams,
  SyncMentionsBody,
  SyncMentionsResponse,
  TargetPageParams,
  UpdateMentionBody,
} from "./mentions.schemas";

const tags = ["Mentions"];
const base = "/api/v1/mentions";
const listResponse = (description: string) => ({
  ...jsonContent(z.array(MentionRecordSchema), description),
  headers: paginationHeaders,
});
const UNAVAILABLE = errorResponse("The mentions table is missing: its migration is not applied (`code` unavailable)");

export const listByBlock = defineRoute({
  operationId: "listBlockMentions",
  method: "get",
  path: `${base}/block/{blockId}`,
  tags,
  access: "user",
  summary: "Mentions in a block",
  description:
    "The mentions a block holds: those read from its content (kept in step with every content write) and those recorded through the API, oldest first. Paginated like every listing. A block the caller cannot see is a 404.",
  request: { params: BlockParams, query: ListQuery },
  responses: { 200: listResponse("One page of mentions"), 503: UNAVAILABLE },
});

export const listByPage = defineRoute({
  operationId: "listPageMentions",
  method: "get",
  path: `${base}/page/{pageId}`,
  tags,
  access: "user",
  summary: "Mentions on a page",
  description:
    "The mentions held by a page (or database row) and the blocks that belong to it, not those of its sub-pages, oldest first. Paginated like every listing. A page the caller cannot see is a 404.",
  request: { params: PageParams, query: ListQuery },
  responses: { 200: listResponse("One page of mentions"), 503: UNAVAILABLE },
});

export const create = defineRoute({
  operationId: "createMention",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/mentions/{id}",
  summary: "Record a mention",
  description:
    "Records a mention (origin `api`) in a block the caller can see, of a page or block they can see, an existing user, or a date. Mentions written in content (`{text, mention: {type, id}}` spans) are recorded by themselves and need no call. A missing or invisible block or target is a 404.",
  request: { body: jsonBody(CreateMentionBody) },
  responses: { 201: jsonContent(MentionRecordSchema, "The mention"), 404: ERROR_RESPONSES[404], 503: UNAVAILABLE },
});

export const sync = defineRoute({
  operationId: "syncMentions",
  method: "post",
  path: `${base}/sync`,
  tags,
  access: "user",
  summary: "Recompute a block's mentions from its content",
  description:
    "Reads the block's content (or `content`, which is then stored, validated as any content write) and replaces the mentions it holds, atomically: after any failure the old set stands whole. A sync that changes no content (no `content`, or the content already stored) does not write the block: its `ETag`, `updated_at` and the change log stay as they were. Content writes do this by themselves; this call repairs or previews. Mentions recorded through the API are kept. A block the caller cannot see is a 404; 503 when the mentions table is missing (its migration not applied).",
  request: { body: jsonBody(SyncMentionsBody) },
  responses: {
    200: jsonContent(SyncMentionsResponse, "The block's mentions now (up to 1,000)"),
    404: ERROR_RESPONSES[404],
    503: UNAVAILABLE,
  },
});

export const update = defineRoute({
  operationId: "updateMention",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Change a mention's target",
  description:
    "Points a mention recorded through the API at another target. Only its author may (403 when the caller can see it, 404 when not); a mention read from content changes with the content (409).",
  request: { params: MentionParams, body: jsonBody(UpdateMentionBody) },
  responses: {
    200: jsonContent(MentionRecordSchema, "The mention"),
    403: ERROR_RESPONSES[403],
    409: ERROR_RESPONSES[409],
    503: UNAVAILABLE,
  },
});

export const remove = defineRoute({
  operationId: "deleteMention",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Delete a mention",
  description:
    "Deletes a mention recorded through the API; its author only (403 when the caller can see it, 404 when not). A mention read from content goes when the content no longer holds it (409).",
  request: { params: MentionParams },
  responses: {
    200: jsonContent(SuccessSchema, "Deleted"),
    403: ERROR_RESPONSES[403],
    409: ERROR_RESPONSES[409],
    503: UNAVAILABLE,
  },
});

// Backlinks are mentions read the other way: the blocks and pages that refer to a page.
const backlinkTags = ["Backlinks"];
const backlinkBase = "/api/v1/backlinks";

export const backlinks = defineRoute({
  operationId: "listBacklinks",
  method: "get",
  path: `${backlinkBase}/{targetPageId}`,
  tags: backlinkTags,
  access: "user",
  summary: "Blocks and pages that refer to a page",
  description:
    "The blocks and pages the caller can see whose content mentions the page or links to its id (or that hold an API mention of it), one entry per source block, oldest first, with the source's page and title and a snippet around the reference. Trashed or archived sources (or sources on a trashed or archived page) are not listed; the page's own blocks are not backlinks. Paginated like every listing. A page the caller cannot see is a 404.",
  request: { params: TargetPageParams, query: ListQuery },
  responses: { 200: { ...jsonContent(z.array(BacklinkSchema), "One page of backlinks"), headers: paginationHeaders } },
});

export const backlinkCount = defineRoute({
  operationId: "countBacklinks",
  method: "get",
  path: `${backlinkBase}/{targetPageId}/count`,
  tags: backlinkTags,
  access: "user",
  summary: "How many blocks and pages refer to a page",
  description: "The number of entries the backlinks listing has for the caller. A page the caller cannot see is a 404.",
  request: { params: TargetPageParams },
  responses: { 200: jsonContent(BacklinkCountResponse, "The count") },
});
