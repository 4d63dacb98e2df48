// A revoked or expired API key must be refused on its very next request in every
// isolate, while an isolate that remembers the key (auth/api-key-cache.ts) still
// spends no D1 round trip looking it up. So the check rides along with the
// request's own work: until it has passed once, every D1 call of the request is
// sent as a batch led by a statement that fails unless the key is live. D1 runs a
// batch atomically, so for a dead key nothing of the work is read or written, and
// the request is answered 401; for a live key the request costs the round trips
// it would have cost anyway.

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

const UNWRAP = Symbol("unwrap");
const unwrap = (statement: D1PreparedStatement): D1PreparedStatement =>
  (statement as unknown as Record<symbol, D1PreparedStatement | undefined>)[UNWRAP] ?? statement;

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
      const [, ...results] = await d1.batch([guard, ...statements.map(unwrap)]);
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

  /** One statement run behind the guard, answered as its own method would answer. */
  async function runStatement(statement: D1PreparedStatement, method: string, args: unknown[]): Promise<unknown> {
    const [result] = (await guarded([statement])) as [D1Result<Record<string, unknown>>];
    const rows = result.results ?? [];
    switch (method) {
      case "first": {
        const row = rows[0] ?? null;
        const column = args[0] as string | undefined;
        return column === undefined ? row : (row?.[column] ?? null);
      }
      case "raw": {
        const values = rows.map((row) => Object.values(row));
        const withNames = (args[0] as { columnNames?: boolean } | undefined)?.columnNames;
        return withNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
      }
      default: // all, run
        return result;
    }
  }

  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === UNWRAP) return target;
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "bind") return (...values: unknown[]) => wrapStatement(target.bind(...values));
        if (property === "first" || property === "all" || property === "run" || property === "raw") {
          return (...args: unknown[]) =>
            liveness.confirmed ? value.apply(target, args) : runStatement(target, property, args);
        }
        return value.bind(target);
      },
    });

  const guardedD1 = new Proxy(d1, {
    get(target, property) {
      if (property === "prepare") return (query: string) => wrapStatement(target.prepare(query));
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) =>
          liveness.confirmed ? target.batch(statements.map(unwrap)) : guarded(statements);
      }
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // Anything else that reaches D1 (exec, sessions, dump) would go around the guard.
      return (...args: unknown[]) => {
        if (!liveness.confirmed)
          throw new Error(`D1 ${String(property)}() is not available before the API key is confirmed`);
        return value.apply(target, args);
      };
    },
  });
  return { d1: guardedD1, liveness };
}
