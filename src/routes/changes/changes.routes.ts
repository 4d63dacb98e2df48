import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../../lib/errors";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { EmptyBody, jsonBody, jsonContent } from "../../openapi/responses";
import { BlockSchema } from "../../schemas/blocks";
import { BlockVersionSchema, ChangeEventSchema } from "../../schemas/changes";
import { CHANGE_RETENTION_DAYS } from "../../services/change-log/events";
import { ChangesQuery, HistoryQuery, RestoreParams } from "./changes.schemas";

const VISIBLE =
  "The changes of what the caller may see: their own blocks, pages, databases and rows, shared blocks (no owner), the comments on these and their databases' schemas. Never a change of another user's object.";

/** The listing's headers but the total, which the feed does not count (services/change-log/feed.ts). */
const { "X-Total-Count": _total, ...feedPaging } = paginationHeaders;
const feedHeaders = {
  ...feedPaging,
  "X-Next-Cursor": {
    ...paginationHeaders["X-Next-Cursor"],
    description:
      "Always present, after the last page too (`X-Has-More: false`) and on an empty page: send it back as `cursor` (the same user, with the same `types`) for the changes after this page. Poll with it: it never goes back, and it skips nothing the caller may see",
  },
};

export const feed = defineRoute({
  operationId: "listChanges",
  method: "get",
  path: "/api/v1/changes",
  tags: ["Changes"],
  access: "user",
  summary: "The change feed",
  description: `Every change (a create, update, move, archive, trash, restore or delete of a block, page, database or row; a comment's; a database's schema) in the order it was committed, oldest first, each with the object as it was right after it (\`data\`). ${VISIBLE} Whatever path made the change (bulk rows, duplicates, synced-block propagation, quick tasks, imports, the MCP server's tools), it is here: the log is written in the same atomic write as the change. Kept ${CHANGE_RETENTION_DAYS} days. Paginated like every listing (\`limit\`, default 50, above 100 lowered to 100; \`offset\` or \`cursor\`), keyed by the event id, so a page far into the feed costs what the first costs. Without \`cursor\`, from the oldest change kept; with \`since=now\`, from the newest (no events, just the cursor). Unlike other listings, \`X-Next-Cursor\` is answered on every page, the last and an empty one included: keep polling with it; and no \`X-Total-Count\` is sent (a count of the log would cost more than the page, on every poll). A cursor older than the oldest change kept (changes past ${CHANGE_RETENTION_DAYS} days are swept) is a 410 \`cursor_expired\`: start again without a cursor, and read the objects themselves for what was missed.`,
  request: { query: ChangesQuery },
  responses: {
    200: { ...jsonContent(z.array(ChangeEventSchema), "One page of changes, oldest first"), headers: feedHeaders },
    410: errorResponse(
      `Gone (RFC 9110 §15.5.11): the cursor points before the oldest change kept (\`code\` cursor_expired), so the changes after it are no longer all there. ${ERROR_CODES.cursor_expired.description}`,
      {
        error: `This cursor points before the oldest change still kept (changes are kept ${CHANGE_RETENTION_DAYS} days): read the feed again from its start, without a cursor`,
        code: "cursor_expired",
        details: { parameter: "cursor", retention_days: CHANGE_RETENTION_DAYS, swept_through: 4200 },
      },
    ),
  },
});

export const history = defineRoute({
  operationId: "listBlockHistory",
  method: "get",
  path: "/api/v1/blocks/{id}/history",
  tags: ["Blocks"],
  access: "user",
  summary: "A block's versions",
  description: `What a block, page, database or row held right after each change of it (its creation, then every update: properties, content, type, moves, archive, trash, restore), newest first: the first is the block as its latest change left it, which is the block as it is now but for a row whose database's schema changed since (see below). Each has the id of the change that made it (\`event_id\`, to restore it), when, who, and the properties and content of that version. Kept as long as the change log keeps changes (${CHANGE_RETENTION_DAYS} days); a block made before the log began has none older. Rows rewritten by a change of their database's schema (an option renamed or removed, a property removed) are no version of their own (but for a row whose owner is not the database's, such as a shared row in a private database: its rewrite is a version of its own): their versions keep the values as they were written (an option's old name), and restoring one whose option is gone is a 400. The block must be one the caller can see, in any state: otherwise a 404. Paginated like every listing.`,
  request: { params: RestoreParams.pick({ id: true }), query: HistoryQuery },
  responses: {
    200: {
      ...jsonContent(z.array(BlockVersionSchema), "One page of the block's versions, newest first"),
      headers: paginationHeaders,
    },
  },
});

export const restore = defineRoute({
  operationId: "restoreBlockVersion",
  entityTag: "write",
  method: "post",
  path: "/api/v1/blocks/{id}/history/{event_id}/restore",
  tags: ["Blocks"],
  access: "user",
  summary: "Restore a version of a block",
  description: `Writes the properties (all of them, replacing the present ones) and the content of the version \`event_id\` (from GET .../history) back to the block, as a new change of the caller's: it is itself in the change feed and the history, so a restore is undone by restoring the version before it. Every rule of a write holds: a row's values are validated against its database's schema as it is now (a value it no longer accepts, such as a removed option, is a 400 naming it). The block's type, place and state (parent, position, archived, trashed) stay as they are; a version of another type, or of a row in another database, is a 409 (convert or move the block back first). A write of the block as any other: \`If-Match\` with its \`ETag\` (RFC 9110 §13.1.1) restores only while the block is still that version, checked in the write itself (a 412 \`precondition_failed\` with the current tag otherwise, and nothing written), and the answer carries the block's new \`ETag\`. Another user's block, or an event that is not a version of this block (or is no longer kept), is a 404.`,
  request: { params: RestoreParams, body: jsonBody(EmptyBody, false) },
  responses: { 200: jsonContent(BlockSchema, "The block as restored"), 409: ERROR_RESPONSES[409] },
});
