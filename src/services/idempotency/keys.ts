import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext, UserContext } from "../../lib/context";
import { unauthorized } from "../../lib/errors";

// The lifecycle of an idempotency key (draft-ietf-httpapi-idempotency-key-header): reserved by one
// conditional upsert, marked committed inside each write batch of the attempt that holds it
// (commit-marker.ts), then either recorded with its response (replayed to every retry) or, when the
// attempt wrote nothing and failed, released so that a corrected retry runs. Expiry is published in
// the contract: 24 hours from the first request.

/** How long a key is kept from its first request: a retry after that runs again. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an attempt that has written nothing keeps its key from a retry. Past it, the attempt is
 * taken for dead (a Worker cancelled when its client went away, a crash) and a retry takes the key
 * over; should the first attempt still be alive, its writes are refused by the commit marker, so
 * the write still happens once. An attempt that has written keeps its key until it expires.
 */
export const IDEMPOTENCY_LOCK_MS = 60_000;
/** `Retry-After` of a 409 while the first request runs. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;
/**
 * Largest response body kept for replay (UTF-8 bytes): below D1's 2,000,000-byte row limit. A
 * larger one is recorded as not kept, and a retry is answered 409 `idempotency_replay_unavailable`.
 */
export const MAX_KEPT_RESPONSE_BYTES = 1_500_000;

/** One attempt holding a key: what its write batches and its recording name. */
export interface KeyAttempt {
  userId: string;
  key: string;
  token: string;
}

/** The request a key stands for. */
export interface KeyedRequest {
  method: string;
  path: string;
  bodySha256: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a reservation found. */
export type Reservation =
  | { kind: "owned"; attempt: KeyAttempt }
  | { kind: "reused"; first: { method: string; path: string } }
  | { kind: "in_progress"; committed: boolean }
  | { kind: "unavailable"; committed: boolean; status: number | null }
  | { kind: "replay"; response: StoredResponse };

interface KeyRow {
  token: string;
  method: string;
  path: string;
  body_sha256: string;
  locked_until: number;
  committed_at: number | null;
  recorded_at: number | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
}

/**
 * Reserves `key` for this request, in one round trip (a batch: the upsert, then the row as it
 * stands). The upsert takes a new key, an expired one, or one with the same request whose attempt
 * wrote nothing and let its lock lapse; any other live row is left alone and read.
 */
export async function reserveKey(ctx: UserContext, key: string, request: KeyedRequest): Promise<Reservation> {
  const userId = ctx.actor.userId;
  const token = crypto.randomUUID();
  const now = ctx.now().getTime();
  const [, rows] = await batchAll<[unknown, KeyRow]>(ctx.db, [
    sql`INSERT INTO idempotency_keys
          (user_id, idempotency_key, method, path, body_sha256, token, created_at, expires_at, locked_until)
        SELECT ${userId}, ${key}, ${request.method}, ${request.path}, ${request.bodySha256}, ${token}, ${now},
               ${now + IDEMPOTENCY_KEY_TTL_MS}, ${now + IDEMPOTENCY_LOCK_MS}
        WHERE EXISTS (SELECT 1 FROM users WHERE id = ${userId})
        ON CONFLICT (user_id, idempotency_key) DO UPDATE SET
          method = excluded.method, path = excluded.path, body_sha256 = excluded.body_sha256,
          token = excluded.token, created_at = excluded.created_at, expires_at = excluded.expires_at,
          locked_until = excluded.locked_until, committed_at = NULL, recorded_at = NULL,
          response_status = NULL, response_headers = NULL, response_body = NULL
        WHERE idempotency_keys.expires_at <= excluded.created_at
           OR (idempotency_keys.committed_at IS NULL AND idempotency_keys.recorded_at IS NULL
               AND idempotency_keys.locked_until <= excluded.created_at
               AND idempotency_keys.method = excluded.method AND idempotency_keys.path = excluded.path
               AND idempotency_keys.body_sha256 = excluded.body_sha256)`,
    sql`SELECT token, method, path, body_sha256, locked_until, committed_at, recorded_at, response_status,
               response_headers, response_body
        FROM idempotency_keys WHERE user_id = ${userId} AND idempotency_key = ${key}`,
  ]);
  const row = rows[0];
  // No row: the credential names a user who no longer exists (a session outliving its account).
  if (row === undefined) throw unauthorized("This credential's user no longer exists");
  if (row.token === token) return { kind: "owned", attempt: { userId, key, token } };
  if (row.method !== request.method || row.path !== request.path || row.body_sha256 !== request.bodySha256) {
    return { kind: "reused", first: { method: row.method, path: row.path } };
  }
  const committed = row.committed_at !== null;
  if (row.recorded_at === null) {
    // Still running, or an attempt that wrote and then died before recording: never run again.
    return row.locked_until > now || !committed
      ? { kind: "in_progress", committed }
      : { kind: "unavailable", committed, status: null };
  }
  if (row.response_body === null || row.response_status === null) {
    return { kind: "unavailable", committed, status: row.response_status };
  }
  return {
    kind: "replay",
    response: {
      status: row.response_status,
      headers: JSON.parse(row.response_headers ?? "{}") as Record<string, string>,
      body: row.response_body,
    },
  };
}

/** Records the response of the attempt holding the key; a null body records it as not kept. */
export async function recordResponse(
  ctx: RequestContext,
  attempt: KeyAttempt,
  response: { status: number; headers: Record<string, string>; body: string | null },
): Promise<void> {
  const now = ctx.now().getTime();
  await ctx.db.run(
    sql`UPDATE idempotency_keys
        SET recorded_at = ${now}, response_status = ${response.status},
            response_headers = ${JSON.stringify(response.headers)}, response_body = ${response.body}
        WHERE user_id = ${attempt.userId} AND idempotency_key = ${attempt.key} AND token = ${attempt.token}`,
  );
}

/**
 * Marks the key's attempt as having had its effect, outside any write batch: a stream, whose
 * response has begun and which is never run again, even if it writes nothing to D1.
 */
export async function markCommitted(ctx: RequestContext, attempt: KeyAttempt): Promise<void> {
  await ctx.db.run(
    sql`UPDATE idempotency_keys SET committed_at = COALESCE(committed_at, ${ctx.now().getTime()})
        WHERE user_id = ${attempt.userId} AND idempotency_key = ${attempt.key} AND token = ${attempt.token}`,
  );
}

/**
 * Gives the key up after an attempt that changed nothing and failed, so that a retry (corrected,
 * as the draft asks of clients after an error) runs; answers whether it did. Only the attempt's own
 * key (one taken over by a retry stays the retry's). After a write batch that failed (`unlessCommitted`),
 * only while no batch of the attempt committed: D1 undid the failed batch unless it committed, and
 * its commit marker (in that same batch) says which; a failure after a commit keeps the key, and is
 * recorded. (A batch that committed and changed no row, a DELETE of nothing, marks the key too:
 * without a failed batch, such an attempt changed nothing and its key goes.)
 */
export async function releaseKey(ctx: RequestContext, attempt: KeyAttempt, unlessCommitted = false): Promise<boolean> {
  const released = await ctx.db.all<{ released: number }>(
    sql`DELETE FROM idempotency_keys
        WHERE user_id = ${attempt.userId} AND idempotency_key = ${attempt.key} AND token = ${attempt.token}
          ${unlessCommitted ? sql`AND committed_at IS NULL` : sql``}
        RETURNING 1 AS released`,
  );
  return released.length > 0;
}

/** Forgets expired keys, a bounded number per run (the Cron Trigger); answers how many went. */
export async function sweepExpiredKeys(ctx: RequestContext, limit = 1000): Promise<number> {
  const removed = await ctx.db.all<{ rowid: number }>(
    sql`DELETE FROM idempotency_keys WHERE rowid IN (
          SELECT rowid FROM idempotency_keys WHERE expires_at <= ${ctx.now().getTime()} LIMIT ${limit}
        ) RETURNING rowid`,
  );
  return removed.length;
}
