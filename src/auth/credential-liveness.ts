// A revoked or expired API key, and an app session its user ended (`POST /auth/sign-out`),
// must be refused on the very next request in every isolate, while neither costs a D1
// round trip of its own: an isolate that remembers a key (auth/api-key-cache.ts) does not
// look it up, and a session token is checked by its signature alone. So the check rides
// along with the request's own work: until it has passed once, every D1 call of the
// request is sent as a batch led by a statement that fails unless the credential is live.
// D1 runs a batch atomically, so for a dead credential nothing of the work is read or
// written, and the request is answered 401; for a live one the request costs the round
// trips it would have cost anyway.

import { answerAsStatement, wrapD1 } from "../db/wrap-d1";
import { type ApiError, unauthorized } from "../lib/errors";

/** What makes one credential live, as D1 decides it. */
export interface LiveCredential {
  /** What it is, in the refusal of a D1 call made before it was confirmed. */
  kind: string;
  /** A query with a row (`SELECT 1 AS live ...`) exactly when the credential is live. */
  query: string;
  /** That query as the statement that leads a batch (`guardOf`), built once per kind of credential. */
  guard: string;
  /** Its parameters, read when a statement is bound (so a check made later sees the time then). */
  params(): unknown[];
  /** The 401 of a dead credential. */
  refused(): ApiError;
}

/**
 * Fails ("malformed JSON") unless `query` has a row. The failing branch depends on the row, so
 * SQLite cannot evaluate it ahead of time as a constant.
 */
const guardOf = (query: string) =>
  `SELECT json(CASE WHEN EXISTS (${query}) THEN '1' ELSE 'credential is not live' END) AS live`;

export const keyRefused = () => unauthorized("This API key has been revoked or has expired");

const LIVE_KEY =
  "SELECT 1 AS live FROM api_keys WHERE id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)";
const LIVE_KEY_GUARD = guardOf(LIVE_KEY);

/** A key that exists, is not revoked and has not expired at `now()`. */
export const liveKey = (keyId: string, now: () => Date): LiveCredential => ({
  kind: "API key",
  query: LIVE_KEY,
  guard: LIVE_KEY_GUARD,
  params: () => [keyId, now().toISOString()],
  refused: keyRefused,
});

export const sessionRefused = () => unauthorized("This session has ended: sign in again");

const LIVE_SESSION =
  "SELECT 1 AS live FROM users WHERE id = ?1 AND (sessions_valid_from IS NULL OR sessions_valid_from <= ?2)";
const LIVE_SESSION_GUARD = guardOf(LIVE_SESSION);

/**
 * A session of a user who exists and has not ended the sessions issued at `issuedAt` (ISO-8601
 * with milliseconds, the token's `iat_ms`) by signing out after it.
 */
export const liveSession = (userId: string, issuedAt: string): LiveCredential => ({
  kind: "app session",
  query: LIVE_SESSION,
  guard: LIVE_SESSION_GUARD,
  params: () => [userId, issuedAt],
  refused: sessionRefused,
});

/** One request's state of the check. */
export interface Liveness {
  /** Set once a statement of this request ran behind the guard (or the credential was checked on its own). */
  confirmed: boolean;
  /** Set when the credential was found dead: the request is being answered 401. */
  refused: boolean;
  /** Checks the credential with a query of its own (a round trip): for a request that made no D1 call. */
  confirm(): Promise<void>;
  /** The 401 of the dead credential. */
  refusal(): ApiError;
}

/**
 * `d1` with every call guarded until the credential has been seen live once. A batch
 * failure is traced to the guard by asking D1 directly (only on that failure path), so
 * an unrelated error of the work is rethrown as it was.
 */
export function guardLiveness(d1: D1Database, credential: LiveCredential): { d1: D1Database; liveness: Liveness } {
  /** The credential checked with a query of its own (a round trip). */
  const isLive = async () =>
    (await d1
      .prepare(credential.query)
      .bind(...credential.params())
      .first()) !== null;
  const refuse = () => {
    liveness.refused = true;
    return credential.refused();
  };
  const liveness: Liveness = {
    confirmed: false,
    refused: false,
    async confirm() {
      if (!(await isLive())) throw refuse();
      liveness.confirmed = true;
    },
    refusal: credential.refused,
  };

  async function guarded(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    const guardStatement = d1.prepare(credential.guard).bind(...credential.params());
    try {
      const [, ...results] = await d1.batch([guardStatement, ...statements]);
      liveness.confirmed = true;
      return results;
    } catch (error) {
      // The guard fails as "malformed JSON"; so could the work itself. Only a dead credential is a 401.
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
      if (!liveness.confirmed)
        throw new Error(`D1 ${method}() is not available before the ${credential.kind} is confirmed`);
      return call();
    },
  });
  return { d1: guardedD1, liveness };
}
