import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../../lib/errors";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, errorResponse } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { ChangeEventSchema } from "../../schemas/changes";
import { CHANGE_RETENTION_DAYS } from "../../services/change-log/events";
import { ChangesQuery } from "./changes.schemas";

const VISIBLE =
  "The changes of what the caller may see: their own blocks, pages, databases and rows, shared blocks (no owner), the comments on these and their databases' schemas. Never a change of another user's object.";

const feedHeaders = {
  ...paginationHeaders,
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
  description: `Every change (a create, update, move, archive, trash, restore or delete of a block, page, database or row; a comment's; a database's schema) in the order it was committed, oldest first, each with the object as it was right after it (\`data\`). ${VISIBLE} Whatever path made the change (bulk rows, duplicates, synced-block propagation, quick tasks, imports), it is here: the log is written in the same atomic write as the change. Kept ${CHANGE_RETENTION_DAYS} days. Paginated like every listing (\`limit\`, default 50, above 100 lowered to 100; \`offset\` or \`cursor\`), keyed by the event id, so a page far into the feed costs what the first costs. Without \`cursor\`, from the oldest change kept; with \`since=now\`, from the newest (no events, just the cursor). Unlike other listings, \`X-Next-Cursor\` is answered on every page, the last and an empty one included: keep polling with it. A cursor older than the oldest change kept (changes past ${CHANGE_RETENTION_DAYS} days are swept) is a 410 \`cursor_expired\`: start again without a cursor, and read the objects themselves for what was missed.`,
  request: { query: ChangesQuery },
  responses: {
    200: { ...jsonContent(z.array(ChangeEventSchema), "One page of changes, oldest first"), headers: feedHeaders },
    410: errorResponse(
      `The cursor points before the oldest change kept (\`code\` cursor_expired): ${ERROR_CODES.cursor_expired.description}`,
      {
        error: `This cursor points before the oldest change still kept (changes are kept ${CHANGE_RETENTION_DAYS} days): read the feed again from its start, without a cursor`,
        code: "cursor_expired",
        details: { parameter: "cursor", retention_days: CHANGE_RETENTION_DAYS, swept_through: 4200 },
      },
    ),
  },
});
