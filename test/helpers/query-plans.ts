import { env } from "cloudflare:test";
import { ALL_SCOPES } from "../../src/auth/scopes";
import { actingAs, createContext, type UserContext, withD1 } from "../../src/lib/context";
import type { TestUser } from "./api";

// SQLite's plans of the statements a service sends, as workerd's SQLite makes them: a context
// whose D1 remembers every statement it binds, and EXPLAIN QUERY PLAN of one of them.

export interface Statement {
  sql: string;
  params: unknown[];
}

/** A context for `user` whose D1 remembers every statement it binds. */
export function recordingContext(user: TestUser): { ctx: UserContext; statements: Statement[] } {
  const statements: Statement[] = [];
  const remember = (statement: D1PreparedStatement, query: string): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === "bind")
          return (...params: unknown[]) => {
            statements.push({ sql: query, params });
            return target.bind(...params);
          };
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const ctx = actingAs(
    withD1(
      createContext({ env }),
      (d1) =>
        new Proxy(d1, {
          get(target, property) {
            if (property === "prepare") return (query: string) => remember(target.prepare(query), query);
            const value = Reflect.get(target, property, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }),
    ),
    { userId: user.id, via: "api_key", apiKeyId: null, scopes: ALL_SCOPES },
  );
  return { ctx, statements };
}

/** The plan of a statement: one line per step, as EXPLAIN QUERY PLAN details. */
export async function planOf(statement: Statement): Promise<string[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .bind(...statement.params)
    .all<{ detail: string }>();
  return results.map((row) => row.detail);
}

export const indexesOf = (plan: string[]) =>
  new Set(plan.flatMap((line) => [...line.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((m) => m[1])));
/** Sorts of every row read (not the partial sorts of ties after an index-ordered prefix: LAST n TERMS, RIGHT PART). */
export const fullSortsOf = (plan: string[]) => new Set(plan.filter((line) => line === "USE TEMP B-TREE FOR ORDER BY"));
/** Full scans of stored tables (not of subqueries, CTEs or the full-text index). */
export const tableScansOf = (plan: string[]) =>
  new Set(
    plan.filter((line) => /^SCAN \w+$/.test(line) && !/^SCAN (\(|subquery|first_mentions|page_scope)/.test(line)),
  );
