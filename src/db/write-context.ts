import { type SQL, sql } from "drizzle-orm";
import { answerAsStatement, mayWrite, wrapD1 } from "./wrap-d1";

// The change log is written by triggers (migrations/0021_change_log.sql), which cannot see the
// request: who makes a change reaches them through the one row of `write_context`. Every write
// batch of a request is sent as [set the row, ...the batch, delete the row]; a lone write
// statement as that batch of three (still one round trip). D1 runs a batch as one transaction on
// the one primary, so the triggers of a batch read its own row and no other request's, and
// between batches the table is empty: a write made outside a request (the Cron Trigger, a
// Durable Object) is logged with no actor. Reads are sent as they are. The batch also marks the
// webhook deliveries its events made as enqueued, and hands them to `onDeliveries`.

/** Who writes: what the change-log triggers record of each change of the batch. */
export interface Writer {
  actorId: string;
  /** The request's X-Request-Id. */
  requestId: string;
  /** The request's clock: the events' `occurred_at`. */
  now: () => Date;
  /**
   * Called with the webhook deliveries a batch's events made (migrations/0022_webhooks.sql), which
   * the batch itself marked enqueued: the request sends them to the queue after its answer.
   */
  onDeliveries?: (deliveryIds: number[]) => void;
}

const SET_WRITER =
  "INSERT OR REPLACE INTO write_context (id, actor_id, request_id, occurred_at, schema_rows_of) VALUES (1, ?1, ?2, ?3, NULL)";
const CLEAR_WRITER = "DELETE FROM write_context WHERE id = 1";
/**
 * The webhook deliveries this request's events made and nobody enqueued yet, marked enqueued in the
 * batch that made them (a seek on the partial index of not-enqueued ones: nothing, without webhooks).
 * Should the request end before it sends them, the Cron Trigger finds them overdue.
 */
const CLAIM_DELIVERIES =
  "UPDATE webhook_deliveries SET enqueued_at = ?2 WHERE request_id = ?1 AND enqueued_at IS NULL RETURNING id";

/** `d1` with every write batch naming `writer` to the change-log triggers. */
export function namingTheWriter(d1: D1Database, writer: Writer): D1Database {
  async function named(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    const now = writer.now().toISOString();
    const set = d1.prepare(SET_WRITER).bind(writer.actorId, writer.requestId, now);
    const deliveries = d1.prepare(CLAIM_DELIVERIES).bind(writer.requestId, now);
    const results = await d1.batch([set, ...statements, deliveries, d1.prepare(CLEAR_WRITER)]);
    const claimed = (results.at(-2)?.results ?? []) as { id: number }[];
    if (claimed.length > 0) writer.onDeliveries?.(claimed.map((row) => row.id));
    return results.slice(1, -2);
  }
  return wrapD1(d1, {
    statement: async (call, send) => {
      if (!mayWrite(call.statement)) return send();
      const [result] = (await named([call.statement])) as [D1Result<Record<string, unknown>>];
      return answerAsStatement(result, call.method, call.args);
    },
    batch: (statements, send) => (statements.some(mayWrite) ? named(statements) : send(statements)),
  });
}

/**
 * For a schema change's batch, before the statements that rewrite the rows of `databaseId` (an
 * option renamed or removed, a property removed): those rewrites are logged as the change's one
 * `database.schema_updated`, not as one `block.updated` per row. Lands only while `when` holds,
 * as the change's own statements do (a stale change writes nothing, this included); matches
 * nothing outside a named batch, where each row is then logged.
 */
export const rowsRewrittenForSchemaOf = (databaseId: string, when: SQL): SQL =>
  sql`UPDATE write_context SET schema_rows_of = ${databaseId} WHERE id = 1 AND ${when}`;
