// One JSON line per event, with the same keys everywhere, so Workers Logs (and `wrangler tail`)
// can filter and group them: `level`, `message`, `request_id` (the X-Request-Id of the request, or
// of the scheduled run), then the event's own fields in snake_case. Never a key, a token, a body
// or an email: callers log ids, counts, statuses and what happened.

export type LogLevel = "info" | "warn" | "error";

/** Anything that carries the id of the request or run a line belongs to. */
export interface Traced {
  requestId: string;
}

/** Writes one line at `level`: `{level, message, request_id, ...fields}`. */
export function log(
  traced: Traced | undefined,
  level: LogLevel,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  const line = JSON.stringify({ level, message, request_id: traced?.requestId ?? null, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** What a thrown value says, for a log line: the message of an Error, the string of anything else. */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
