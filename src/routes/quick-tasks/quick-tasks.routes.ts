import { z } from "@hono/zod-openapi";
import { PaginationQuery, paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { ETAG_HEADER } from "../../openapi/entity-tags";
import { jsonBody, jsonContent } from "../../openapi/responses";
import {
  DatabaseOptionSchema,
  QuickTaskBody,
  QuickTaskCreatedSchema,
  QuickTaskPreviewBody,
  QuickTaskPreviewSchema,
} from "../../schemas/quick-tasks";
import { CREATE_RATE_LIMIT, PREVIEW_RATE_LIMIT, PreviewQuery } from "./quick-tasks.schemas";

const tags = ["Quick tasks"];
const base = "/api/v1/tasks";

const PARSING =
  "The text is parsed by the structured-output model of the caller's settings (quickTaskProvider, quickTaskModel) or of the server (TASK_CAPTURE_PROVIDER, TASK_CAPTURE_MODEL), its answer validated; when none is configured, or it fails, times out or answers invalid JSON, by the local parser (dates in `timezone` from `reference_at`, priorities such as `high priority`, `urgent`, `!!`, `p1`, reminder phrases such as `remind me 30 minutes before`, notes after ` -- `). `parser` says which answered and `parser_fallback_reason` why the model did not. What was unclear is in `parse.ambiguities`, with the alternatives considered.";
const TARGET =
  "The target database: `database_id` (a database the caller can see, neither archived nor in the trash; 404 otherwise), else the saved quickTaskDatabaseId, else the caller's built-in Tasks database (title, Status with Todo/Doing/Done, Due, Priority with Low/Medium/High, Notes, Reminder). `target_database.property_mapping` names the property (found by type and name) that takes each part; a value the database cannot hold (a priority it has no option for) is left out and reported in `parse.ambiguities`, never invented.";
const WRITE =
  "The row is written to the database's own property ids: title, status (its Todo option), the due date (with the reminder offset and a reminder schedule in the date value), priority, notes (the page body when there is no notes property) and reminder. A parsed reminder offset also makes a reminder record (GET /api/v1/reminders), in the same atomic write as the row: an all-day task is reminded counting back from 09:00 of its day. The built-in Tasks database is installed by the first create that needs it, once even when first creates race (`target_database.installed`).";

export const preview = defineRoute({
  operationId: "previewQuickTask",
  method: "post",
  path: `${base}/from-natural-language/preview`,
  tags,
  access: "user",
  location: "/api/v1/pages/{task.id}",
  rateLimit: PREVIEW_RATE_LIMIT,
  summary: "Parse a quick task without creating it",
  description: `Parses one line of text into a task and shows where it would go; writes nothing (before the built-in Tasks database exists, its mapping has null ids). ${PARSING} ${TARGET} With the caller's quickTaskSkipPreview set, a request marked \`preview=1\` (query or body), as shortcuts send, creates the task at once and answers 201 as the create does (the new page's \`ETag\`), with \`skipped_preview\` true.`,
  request: { query: PreviewQuery, body: jsonBody(QuickTaskPreviewBody) },
  responses: {
    200: jsonContent(QuickTaskPreviewSchema, "The parse and the target database; nothing written"),
    // Only the 201 carries a resource's tag (the new page's); the 200 answers a parse.
    201: {
      ...jsonContent(QuickTaskCreatedSchema, "Created at once: `preview=1` with quickTaskSkipPreview set"),
      headers: ETAG_HEADER,
    },
    404: ERROR_RESPONSES[404],
  },
});

export const create = defineRoute({
  operationId: "createQuickTask",
  entityTag: "create",
  method: "post",
  path: `${base}/from-natural-language`,
  tags,
  access: "user",
  location: "/api/v1/pages/{task.id}",
  rateLimit: CREATE_RATE_LIMIT,
  summary: "Create a task from natural language",
  description: `Parses one line of text and creates the task as a row of the target database. ${PARSING} ${TARGET} ${WRITE} The 201 carries in \`ETag\` the new page's tag (\`Location\`), as GET of it answers.`,
  request: { body: jsonBody(QuickTaskBody) },
  responses: {
    201: jsonContent(QuickTaskCreatedSchema, "The parse, the target database, the new row and its reminder"),
    404: ERROR_RESPONSES[404],
  },
});

export const databaseOptions = defineRoute({
  operationId: "listQuickTaskDatabaseOptions",
  method: "get",
  path: `${base}/database-options`,
  tags,
  access: "user",
  summary: "List where quick tasks can go",
  description:
    "The databases the caller can use (visible, neither archived nor in the trash), and the pages that wrap one: its parent page, a page embedding it, a page linking to or mentioning it (in its body or its editor blocks). Each option carries the real `database_id` (what to save as quickTaskDatabaseId), `page_title` and `database_title`, and `title_mismatch` when the page is titled otherwise than the database. The saved default comes first (`is_default`), then the built-in Tasks database (`is_template`), then by database title. Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: PaginationQuery },
  responses: {
    200: { ...jsonContent(z.array(DatabaseOptionSchema), "One page of options"), headers: paginationHeaders },
  },
});
