import { answerAsStatement, mayWrite, wrapD1 } from "../../db/wrap-d1";
import { ApiError } from "../../lib/errors";
import { IDEMPOTENCY_LOCK_MS, IN_PROGRESS_RETRY_AFTER_SECONDS, type KeyAttempt } from "./keys";

// Every write of a request sent with an Idempotency-Key carries the mark that it landed: the
// write batch (or a lone write statement, sent as a batch of two: still one round trip) ends with
// one statement that sets the key's `committed_at` and fails, undoing the whole batch, if another
// attempt now holds the key. D1 runs a batch atomically, so the key's row says whether the write
// landed even if recording the response fails, and a stale attempt that lost its key to a retry
// cannot write a second time. Reads are sent as they are.

/**
 * Sets `committed_at` (and holds the lock a while longer) on the attempt's own row. A row held by
 * another attempt makes `json()` fail ("malformed JSON"), which fails the batch; a row that is gone
 * (released or swept) matches nothing.
 */
const COMMIT_MARKER = `UPDATE idempotency_keys
  SET committed_at = COALESCE(committed_at, ?4), locked_until = MAX(locked_until, ?5)
  WHERE user_id = ?1 AND idempotency_key = ?2
    AND json(CASE WHEN token = ?3 THEN '1' ELSE 'idempotency key held by another attempt' END) IS NOT NULL`;

const HOLDS_KEY = "SELECT 1 AS held FROM idempotency_keys WHERE user_id = ?1 AND idempotency_key = ?2 AND token = ?3";

export const keyTakenOver = () => {
  const error = new ApiError(
    "idempotency_in_progress",
    "A later request with this Idempotency-Key took it over: this one wrote nothing",
    { retry_after_seconds: IN_PROGRESS_RETRY_AFTER_SECONDS },
  );
  return error;
};

/** What the attempt's writes did so far. */
export interface CommitState {
  /** A write batch of the attempt committed and changed rows: the request's effect landed. */
  landed: boolean;
  /** A write batch failed: D1 undid it, unless the failure came after its commit (which cannot be told). */
  failed: boolean;
}

/** `d1` with every write batch of `attempt` marking its key, and `state` noting that one committed. */
export function markingCommits(
  d1: D1Database,
  attempt: KeyAttempt,
  now: () => Date,
): { d1: D1Database; state: CommitState } {
  const state: CommitState = { landed: false, failed: false };
  const marker = () => {
    const at = now().getTime();
    return d1.prepare(COMMIT_MARKER).bind(attempt.userId, attempt.key, attempt.token, at, at + IDEMPOTENCY_LOCK_MS);
  };

  async function marked(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    try {
      const results = (await d1.batch([...statements, marker()])).slice(0, -1);
      // A write that matched nothing (an UPDATE of a missing row) committed, but changed nothing.
      if (
        results.some((result, i) => mayWrite(statements[i] as D1PreparedStatement) && (result.meta?.changes ?? 0) > 0)
      ) {
        state.landed = true;
      }
      return results;
    } catch (error) {
      state.failed = true;
      // The marker fails as "malformed JSON"; so could the work itself. Only a lost key is a 409.
      if (error instanceof Error && /malformed JSON/i.test(error.message)) {
        const held = await d1.prepare(HOLDS_KEY).bind(attempt.userId, attempt.key, attempt.token).first();
        if (held === null) throw keyTakenOver();
      }
      throw error;
    }
  }

  const wrapped = wrapD1(d1, {
    statement: async (call, send) => {
      if (!mayWrite(call.statement)) return send();
      const [result] = (await marked([call.statement])) as [D1Result<Record<string, unknown>>];
      return answerAsStatement(result, call.method, call.args);
    },
    batch: (statements, send) => (statements.some(mayWrite) ? marked(statements) : send(statements)),
  });
  return { d1: wrapped, state };
}
