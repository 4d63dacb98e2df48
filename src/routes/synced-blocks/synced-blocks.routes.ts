import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { EmptyBody, jsonBody, jsonContent } from "../../openapi/responses";
import { PropagateResultSchema, SyncedBlockSchema } from "../../schemas/synced-blocks";
import { CreateSyncedBlockBody, InstanceParams, ListInstancesQuery, SourceParams } from "./synced-blocks.schemas";

const tags = ["Synced blocks"];
const base = "/api/v1/synced-blocks";

export const create = defineRoute({
  operationId: "createSyncedBlock",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/synced-blocks/instance/{instance_block_id}",
  summary: "Make a block follow another (a synced block)",
  description:
    "Links an instance block to a source block: later propagations copy the source's type, properties, content and active subtree onto the instance. Both blocks must be visible to the caller (404 naming the field otherwise) and neither may be a database or a database row (400). A block cannot follow itself (400). The source must be at least as visible as the instance: a shared instance cannot follow a private source (400, `details.reason: source_less_visible`). An instance follows at most one source (409 while its link is synced; an unlinked instance may follow again, which replaces its old link, and so does a link whose source the caller cannot see). Links never form a cycle: the source may not lie inside the instance, the instance not inside the source, and the source may not already follow the instance through other links and the blocks that contain them (409, `details.reason`). Every check is made on the blocks and links the caller can see: no answer reveals another user's private blocks or links. The link is made with `last_synced_at` null; nothing is copied until a propagation.",
  request: { body: jsonBody(CreateSyncedBlockBody) },
  responses: { 201: jsonContent(SyncedBlockSchema, "The link"), 404: ERROR_RESPONSES[404], 409: ERROR_RESPONSES[409] },
});

export const listInstances = defineRoute({
  operationId: "listSyncedBlockInstances",
  method: "get",
  path: `${base}/source/{sourceBlockId}`,
  tags,
  access: "user",
  summary: "The instances that follow a source",
  description:
    "The links of a visible source (404 otherwise) to the instances the caller can see, synced and unlinked (or one `status`), oldest first. Paginated like every listing (`limit`, default 50, above 100 lowered to 100; `offset` or `cursor`, the previous page's X-Next-Cursor; the pagination headers).",
  request: { params: SourceParams, query: ListInstancesQuery },
  responses: {
    200: { ...jsonContent(z.array(SyncedBlockSchema), "One page of links"), headers: paginationHeaders },
  },
});

export const getInstance = defineRoute({
  operationId: "getSyncedBlockInstance",
  method: "get",
  path: `${base}/instance/{instanceBlockId}`,
  tags,
  access: "user",
  summary: "The synced-block link of an instance",
  description:
    "The link of an instance block: its source, status and last propagation. 404 when the block follows no source, or the caller cannot see the instance or its source.",
  request: { params: InstanceParams },
  responses: { 200: jsonContent(SyncedBlockSchema, "The link") },
});

export const propagate = defineRoute({
  operationId: "propagateSyncedBlock",
  method: "post",
  path: `${base}/source/{sourceBlockId}/propagate`,
  tags,
  access: "user",
  summary: "Copy a source onto every instance that follows it",
  description:
    "Copies the source's current type, properties (whole) and content onto every synced instance the caller can see, and replaces each instance's descendants with fresh copies (new ids) of the source's active descendants, all in one atomic batch; instances keep their id, parent, position, database, teamspace, owner, archive and trash flags. Copies belong to the instance's owner; under a shared instance each copy keeps its source block's owner (a private block's copy stays private). Links whose source is less visible than their instance (a private source, a shared instance: made before such links were refused) are never propagated. Unlinked instances and instances the caller cannot see are left as they are; instances that have become a database or a row are skipped and listed. Answers how many instances were updated; their links' `last_synced_at` is set. 404 when the caller cannot see the source; 409 when the source has become a database or row, or an instance lies inside the source, contains it or lies inside another instance; 400 beyond 10,000 blocks written (instances plus copies).",
  request: { params: SourceParams, body: jsonBody(EmptyBody, false) },
  responses: {
    200: jsonContent(PropagateResultSchema, "What was updated"),
    409: ERROR_RESPONSES[409],
  },
});

export const unlink = defineRoute({
  operationId: "unlinkSyncedBlockInstance",
  method: "post",
  path: `${base}/instance/{instanceBlockId}/unlink`,
  tags,
  access: "user",
  summary: "Stop an instance following its source",
  description:
    "Sets the link's status to `unlinked`: the instance keeps its current content and propagations skip it. Unlinking an unlinked instance changes nothing. 404 when the block follows no source, or the caller cannot see the instance or its source.",
  request: { params: InstanceParams, body: jsonBody(EmptyBody, false) },
  responses: { 200: jsonContent(SyncedBlockSchema, "The link, unlinked") },
});
