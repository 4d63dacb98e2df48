import { expect } from "vitest";
import type { ChangeEvent } from "../../src/schemas/changes";
import { type ApiResponse, api, type TestUser } from "./api";

export type { ChangeEvent };

export const CHANGES = "/api/v1/changes";

/** One page of the feed; `query` without the leading `?`. */
export const readFeed = (user: TestUser | string, query = ""): Promise<ApiResponse<ChangeEvent[]>> =>
  api<ChangeEvent[]>(`${CHANGES}${query ? `?${query}` : ""}`, { auth: user });

/** The cursor at the end of the feed: what a client polls from to see only what comes next. */
export async function feedEnd(user: TestUser, types?: string): Promise<string> {
  const res = await readFeed(user, `since=now${types ? `&types=${types}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cursor = res.headers.get("X-Next-Cursor");
  if (!cursor) throw new Error("the feed answered no cursor");
  return cursor;
}

/** Every change after `cursor` (from the start without one), page by page; and the cursor to poll on from. */
export async function changesAfter(
  user: TestUser,
  cursor?: string,
  options: { types?: string; limit?: number } = {},
): Promise<{ events: ChangeEvent[]; cursor: string }> {
  const events: ChangeEvent[] = [];
  let next = cursor;
  for (let pages = 0; pages < 1000; pages++) {
    const query = new URLSearchParams({ limit: String(options.limit ?? 100) });
    if (next) query.set("cursor", next);
    if (options.types) query.set("types", options.types);
    const res = await readFeed(user, query.toString());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    events.push(...res.body);
    next = res.headers.get("X-Next-Cursor") ?? undefined;
    expect(next, "every page of the feed answers a cursor").toBeTruthy();
    expect(res.headers.get("X-Total-Count"), "the feed counts no total").toBeNull();
    if (res.headers.get("X-Has-More") !== "true") return { events, cursor: next as string };
  }
  throw new Error("the feed did not end");
}

/**
 * The changes of these objects only: shared blocks are everyone's, so a feed may also hold the
 * changes other tests make to theirs.
 */
export const about = (events: ChangeEvent[], ids: string[]): ChangeEvent[] =>
  events.filter((event) => ids.includes(event.object_id));

/** What a change says, without what differs from run to run: for comparing sequences of them. */
export const summary = (event: ChangeEvent) => ({
  type: event.type,
  object_id: event.object_id,
  changed_fields: event.changed_fields,
});
