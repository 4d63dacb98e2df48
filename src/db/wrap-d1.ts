/**
 * The one way this service wraps a D1 handle: a Proxy that hands every call reaching D1 to hooks,
 * which decide how it is sent (db/round-trips.ts counts and times each one; auth/credential-liveness.ts
 * sends the work behind a guard until the caller's credential has been seen live). Wrappers stack: each
 * wraps the handle the previous one made, and its hooks send to that handle.
 *
 * A statement prepared through a wrapper is wrapped too, so that running it on its own reaches
 * the `statement` hook; a batch hands the `batch` hook the statements one layer down, ready for
 * the handle underneath.
 *
 * Where a write gets company: a hook that must go with every write adds its statements in `batch`
 * and hides their results from the caller, as in
 * `const results = await send([before, ...statements, after]); return results.slice(1, -1);`
 * (appended: a marker that the batch committed, for idempotency keys; prepended: a row naming who
 * writes, for the change-log triggers to read). A statement that writes on its own (`run()` of an
 * INSERT) is no batch: the `statement` hook sends it in one, on the handle underneath, and answers
 * with `answerAsStatement`, as the credential-liveness guard does with every statement.
 */

/** How a prepared statement runs on its own: each of these is one round trip to D1. */
const STATEMENT_METHODS = ["first", "all", "run", "raw"] as const;
export type StatementMethod = (typeof STATEMENT_METHODS)[number];

/** A statement run on its own, as the `statement` hook sees it. */
export interface StatementCall {
  /** The statement underneath this wrapper (bound, ready for the next handle down). */
  statement: D1PreparedStatement;
  method: StatementMethod;
  args: unknown[];
}

export interface D1Hooks {
  /** A statement run on its own; `send` runs it as called. Without the hook, it runs as called. */
  statement?(call: StatementCall, send: () => Promise<unknown>): Promise<unknown>;
  /** A batch; `send` sends statements as one batch. Without the hook, it is sent as called. */
  batch?(
    statements: D1PreparedStatement[],
    send: (statements: D1PreparedStatement[]) => Promise<D1Result[]>,
  ): Promise<D1Result[]>;
  /** Any other method of the handle (`exec`, `dump`, `withSession`); `call` calls it as called. */
  other?(method: string, call: () => unknown): unknown;
}

const UNWRAP = Symbol("the statement under a D1 wrapper");
/** The SQL of each statement a wrapper prepared or bound, one layer down: what hooks may read with `sqlOf`. */
const SQL = new WeakMap<D1PreparedStatement, string>();

/**
 * The SQL of a statement as a hook receives it (undefined for one no wrapper prepared): a hook that
 * treats writes apart from reads reads it here, as D1's statements do not tell their SQL.
 */
export const sqlOf = (statement: D1PreparedStatement): string | undefined => SQL.get(statement);

/** Statements that may write; one whose SQL is unknown counts as a write (a hook adding a statement too many is harmless). */
const WRITE_STATEMENT = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;
const WITH_WRITE = /^\s*WITH\b[\s\S]*\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;
/** Whether a statement as a hook receives it may write: for hooks that add their statements to writes only. */
export const mayWrite = (statement: D1PreparedStatement): boolean => {
  const sql = sqlOf(statement);
  return sql === undefined || WRITE_STATEMENT.test(sql) || WITH_WRITE.test(sql);
};

const isStatementMethod = (property: string | symbol): property is StatementMethod =>
  (STATEMENT_METHODS as readonly (string | symbol)[]).includes(property);

/** The statement one wrapper wraps (or the statement itself, if unwrapped). */
const unwrap = (statement: D1PreparedStatement): D1PreparedStatement =>
  (statement as unknown as Record<symbol, D1PreparedStatement | undefined>)[UNWRAP] ?? statement;

/** `d1` with its calls passed through `hooks`. */
export function wrapD1(d1: D1Database, hooks: D1Hooks): D1Database {
  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === UNWRAP) return target;
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "bind") {
          return (...values: unknown[]) => {
            const bound = target.bind(...values);
            const sql = SQL.get(target);
            if (sql !== undefined) SQL.set(bound, sql);
            return wrapStatement(bound);
          };
        }
        const { statement } = hooks;
        if (statement && isStatementMethod(property)) {
          return (...args: unknown[]) =>
            statement({ statement: target, method: property, args }, () => value.apply(target, args));
        }
        return value.bind(target);
      },
    });

  return new Proxy(d1, {
    get(target, property) {
      if (property === "prepare") {
        return (query: string) => {
          const statement = target.prepare(query);
          SQL.set(statement, query);
          return wrapStatement(statement);
        };
      }
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => {
          const underneath = statements.map(unwrap);
          return hooks.batch ? hooks.batch(underneath, (sent) => target.batch(sent)) : target.batch(underneath);
        };
      }
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const { other } = hooks;
      if (other) return (...args: unknown[]) => other(String(property), () => value.apply(target, args));
      return value.bind(target);
    },
  });
}

/**
 * What a statement's own method answers, made from the statement's result within a batch: for a
 * hook that sends a lone statement as a batch (see the header).
 */
export function answerAsStatement(
  result: D1Result<Record<string, unknown>>,
  method: StatementMethod,
  args: unknown[],
): unknown {
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
