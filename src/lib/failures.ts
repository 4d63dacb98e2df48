import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type Refusal } from "./errors";
import { log, type Traced } from "./log";
import { OutboundError } from "./outbound";

// What a request's work throws, as the one error envelope: the HTTP answer of every route
// (app.ts) and the tool errors of the MCP server (mcp/tool.ts) read it here, so both say the same.

/** The refusal a thrown error is, or carries: one raised beneath the query builder (auth/credential-liveness.ts) arrives as the failed query's cause. */
export function refusalIn(thrown: unknown): ApiError | undefined {
  if (thrown instanceof ApiError) return thrown;
  return thrown instanceof Error && thrown.cause instanceof ApiError ? thrown.cause : undefined;
}

export interface FailureAnswer {
  status: ContentfulStatusCode;
  body: Refusal;
  /** What the operator's log line says about it; absent when there is nothing to report. */
  log?: Record<string, unknown>;
}

/** What no code refused: a conflict the database caught, a missing migration, a third party, or a bug. */
export function failureAnswer(error: Error): FailureAnswer {
  if (/UNIQUE constraint failed/.test(error.message)) {
    // A uniqueness the database enforces and a check before the write missed (a race, or old data).
    return { status: 409, body: { error: "Conflicts with an existing record", code: "conflict" } };
  }
  const missingTable = missingTableOf(error);
  if (missingTable) {
    // A feature whose migration has not been applied to this database (`wrangler d1 migrations apply`).
    return {
      status: 503,
      body: {
        error: "This feature is not available yet: its database migration has not been applied",
        code: "unavailable",
        details: { table: missingTable },
      },
      log: { missing_table: missingTable },
    };
  }
  if (error instanceof OutboundError) {
    // Its message names the service and what happened, never a URL, key or third-party body.
    return { status: 500, body: { error: error.message, code: "upstream_failed" }, log: { error: error.message } };
  }
  return {
    status: 500,
    body: { error: "Internal server error", code: "internal" },
    log: { error: error.stack ?? error.message },
  };
}

/** The table a D1 error (or the query error wrapping it) says does not exist. */
function missingTableOf(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const table = /no such table: ([\w.]+)/.exec(current.message)?.[1];
    if (table) return table;
  }
  return undefined;
}

/** One line for the operator about a failure, with the request's id. */
export function logFailure(traced: Traced | undefined, fields: Record<string, unknown>): void {
  log(traced, "error", "request failed", fields);
}
