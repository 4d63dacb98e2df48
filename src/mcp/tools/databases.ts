import { z } from "@hono/zod-openapi";
import { pageWindow } from "../../lib/pagination";
import {
  batchRowInputs,
  CreateRowsBody,
  DatabaseIdParams,
  QueryRowsBody,
} from "../../routes/databases/databases.schemas";
import { createRows } from "../../services/block-writes/rows-batch";
import { queryRows } from "../../services/databases/row-query";
import { valuesLine } from "../text";
import { defineTool } from "../tool";

// Rows as POST /api/v1/databases/{id}/query and POST /api/v1/databases/{id}/rows/batch serve them.

const databaseId = DatabaseIdParams.shape.id;

export const queryDatabaseTool = defineTool({
  name: "query_database",
  title: "Query a database's rows",
  description:
    "One page of a database's active rows matching every filter, in `sorts` order. Filters and sorts name columns by display name (or `prop_` id), as the database's schema names them; each row answers its values keyed by column name. Continue with `cursor` set to the answer's `next_cursor` (same filters and sorts).",
  scope: "read",
  input: z.strictObject({
    database_id: databaseId,
    filters: QueryRowsBody.shape.filters,
    sorts: QueryRowsBody.shape.sorts,
    limit: QueryRowsBody.shape.limit,
    cursor: QueryRowsBody.shape.cursor,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, input) {
    const window = pageWindow(input);
    const page = await queryRows(ctx, input.database_id, { ...window, filters: input.filters, sorts: input.sorts });
    const rows = page.items.map((row) => ({ id: row.id, values: row.properties_by_name, updated_at: row.updated_at }));
    const counted = page.total === null ? "" : ` of ${page.total}`;
    const lines = [
      `${rows.length} row${rows.length === 1 ? "" : "s"}${counted}:`,
      ...rows.map((row) => `- ${row.id}: ${valuesLine(row.values) || "(no values)"}`),
      ...(page.nextCursor ? [`More rows: call again with cursor "${page.nextCursor}".`] : []),
    ];
    return {
      text: lines.join("\n"),
      structured: { rows, total: page.total, has_more: page.hasMore, next_cursor: page.nextCursor },
    };
  },
});

export const addRowsTool = defineTool({
  name: "add_rows",
  title: "Add rows to a database",
  description:
    "Adds 1 to 1,000 rows to a database, all or none. Each row: `title` (to the title column), `properties` (values keyed by column name or `prop_` id; select-like values by option name, exactly) and `content` (the row's body as editor items). A refusal lists every row at fault by `index`.",
  scope: "write",
  input: z.strictObject({ database_id: databaseId, rows: CreateRowsBody.shape.rows }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    const created = await createRows(ctx, input.database_id, batchRowInputs(input.rows));
    return {
      text: `Added ${created.created} row${created.created === 1 ? "" : "s"}: ${created.ids.join(", ")}.`,
      structured: { ...created },
    };
  },
});
