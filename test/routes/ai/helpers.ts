import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { createApp } from "../../../src/app";
import { type ApiResponse, api, type TestUser } from "../../helpers/api";
import { captureConsole } from "../../helpers/console";
import { type AiProvider, parseSse, type SseEvent } from "../../helpers/fake-ai-provider";

export const STREAM = (provider: string) => `/api/v1/ai/${provider}/stream`;
export const LEGACY = (provider: string) => `/api/ai/${provider}`;

/** A provider key no other test uses, so finding it anywhere is a leak of this test's key. */
export const newProviderKey = () => `sk-test-${crypto.randomUUID().replaceAll("-", "")}`;

export interface StreamResult extends ApiResponse<unknown> {
  text: string;
  events: SseEvent[];
  comments: string[];
}

/** POSTs to the stream route and reads the whole stream (or the JSON error before it). */
export async function streamAi(
  user: TestUser,
  provider: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamResult> {
  const res = await api(STREAM(provider), { method: "POST", auth: user, body, headers });
  const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
  const parsed = res.headers.get("Content-Type")?.includes("text/event-stream")
    ? parseSse(text)
    : { events: [], comments: [] };
  return { ...res, text, ...parsed };
}

/**
 * POSTs to the stream route of an app running with `bindings` over the test configuration (the
 * server's provider keys, limits, ...), as `user`; the response as it comes, unread.
 */
export async function openStreamWith(bindings: Partial<Env>, user: TestUser, provider: string, body: unknown) {
  const execution = createExecutionContext();
  const response = await createApp().request(
    STREAM(provider),
    {
      method: "POST",
      headers: { Authorization: `Bearer ${user.key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    },
    { ...env, ...bindings },
    execution,
  );
  return { response, execution };
}

/** The same, read to its end: the JSON error before a stream, or the stream's events. */
export async function streamWith(bindings: Partial<Env>, user: TestUser, provider: string, body: unknown) {
  const { response: res, execution } = await openStreamWith(bindings, user, provider, body);
  const text = await res.text();
  await waitOnExecutionContext(execution);
  const isStream = res.headers.get("Content-Type")?.includes("text/event-stream");
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: isStream ? undefined : (JSON.parse(text) as Record<string, unknown>),
    events: isStream ? parseSse(text).events : [],
  };
}

/** The key appears in none of `texts` (bodies, headers, log lines, stored rows). */
export { captureConsole };

export function expectNowhere(key: string, ...texts: unknown[]): void {
  for (const text of texts) {
    const shown = typeof text === "string" ? text : JSON.stringify(text);
    expect(shown.includes(key), `the key leaked into: ${shown.slice(0, 300)}`).toBe(false);
  }
}

export interface AuditRow {
  id: string;
  type: string;
  created_by: string | null;
  properties: Record<string, unknown>;
  raw: Record<string, unknown>;
}

/** The audit records of `userId` (null: those without an owner), oldest first, read straight from D1. */
export async function auditRecords(userId: string | null): Promise<AuditRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT * FROM blocks WHERE type = 'provider_audit_log' AND created_by ${userId === null ? "IS NULL" : "= ?"} ORDER BY seq`,
  )
    .bind(...(userId === null ? [] : [userId]))
    .all<Record<string, unknown>>();
  return results.map((row) => ({
    id: String(row.id),
    type: String(row.type),
    created_by: (row.created_by as string | null) ?? null,
    properties: JSON.parse(String(row.properties)) as Record<string, unknown>,
    raw: row,
  }));
}

/** Waits until `check` holds (the Worker finishes work after a client went away). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The names of the events, in order. */
export const names = (events: SseEvent[]) => events.map((e) => e.event);

/** The text of the `delta` events, joined. */
export const deltaText = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === "delta")
    .map((e) => (e.data as { text: string }).text)
    .join("");

export type { AiProvider };
