// A revoked or expired API key must be refused on its very next request in every
// isolate, while an isolate that remembers the key (auth/api-key-cache.ts) still
// spends no D1 round trip looking it up. So the check rides along with the
// request's own work: until it has passed once, every D1 call of the request is
// sent as a batch led by a statement that fails unless the key is live. D1 runs a
// batch atomically, so for a dead key nothing of the work is read or written, and
// the request is answered 401; for a live key the request costs the round trips
// it would have cost anyway.

import { answerAsStatement, wrapD1 } from "../db/wrap-d1";
import { unauthorized } from "../lib/errors";

/**
 * Fails ("malformed JSON") unless the key exists, is not revoked and has not
 * expired. The failing branch depends on the row, so SQLite cannot evaluate it
 * ahead of time as a constant.
 */
const LIVE_KEY_GUARD = `SELECT json(CASE WHEN EXISTS (
  SELECT 1 FROM api_keys WHERE id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)
) THEN '1' ELSE 'api key is not live' END) AS live`;

const LIVE_KEY_CHECK =
  "SELECT 1 AS live FROM api_keys WHERE id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)";

export const keyRefused = () => unauthorized("This API key has been revoked or has expired");

/** One request's state of the check. */
export interface KeyLiveness {
  /** Set once a statement of this request ran behind the guard (or the key was checked on its own). */
  confirmed: boolean;
  /** Set when the key was found dead: the request is being answered 401. */
  refused: boolean;
  /** Checks the key with a query of its own (a round trip): for a request that made no D1 call. */
  confirm(): Promise<void>;
}

/**
 * `d1` with every call guarded until the key has been seen live once. A batch
 * failure is traced to the guard by asking D1 directly (only on that failure
 * path), so an unrelated error of the work is rethrown as it was.
 */
export function guardKeyLiveness(
  d1: D1Database,
  keyId: string,
  now: () => Date,
): { d1: D1Database; liveness: KeyLiveness } {
  /** The key checked with a query of its own (a round trip). */
  const isLive = async () => (await d1.prepare(LIVE_KEY_CHECK).bind(keyId, now().toISOString()).first()) !== null;
  const refuse = () => {
    liveness.refused = true;
    return keyRefused();
  };
  const liveness: KeyLiveness = {
    confirmed: false,
    refused: false,
    async confirm() {
      if (!(await isLive())) throw refuse();
      liveness.confirmed = true;
    },
  };

  async function guarded(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    const guard = d1.prepare(LIVE_KEY_GUARD).bind(keyId, now().toISOString());
    try {
      const [, ...results] = await d1.batch([guard, ...statements]);
      liveness.confirmed = true;
      return results;
    } catch (error) {
      // The guard fails as "malformed JSON"; so could the work itself. Only a dead key is a 401.
      if (error instanceof Error && /malformed JSON/i.test(error.message)) {
        if (!(await isLive())) throw refuse();
      }
      throw error;
    }
  }

  const guardedD1 = wrapD1(d1, {
    // One statement run behind the guard, answered as its own method would answer.
    statement: async (call, send) => {
      if (liveness.confirmed) return send();
      const [result] = (await guarded([call.statement])) as [D1Result<Record<string, unknown>>];
      return answerAsStatement(result, call.method, call.args);
    },
    batch: (statements, send) => (liveness.confirmed ? send(statements) : guarded(statements)),
    // Anything else that reaches D1 (exec, sessions, dump) would go around the guard.
    other: (method, call) => {
      if (!liveness.confirmed) throw new Error(`D1 ${method}() is not available before the API key is confirmed`);
      return call();
    },
  });
  return { d1: guardedD1, liveness };
}
