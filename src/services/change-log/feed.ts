import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { decodeCursor, encodeCursor, type Listing, type PageWindow, type ResultPage } from "../../lib/pagination";
import {
  CHANGE_RETENTION_DAYS,
  type ChangeEvent,
  type ChangeEventRecord,
  type ChangeEventType,
  presentChangeEvent,
} from "./events";

// The change feed: the caller's visible changes in commit order, paged by the event id (a keyset:
// page 1,000 costs what page 1 costs). Visibility is the blocks' rule on the event's owner (the
// caller's own, or shared: owner NULL), read as two seeks on change_events_owner_idx merged in id
// order, as the positions of services/blocks read the two sides of the rule: one OR would scan.
//
// Unlike other listings the next cursor is always answered, also after the last page: it names the
// newest change the read saw (of anyone: everything up to it the caller may see was in the pages),
// so a client polls with it forever and never walks again what it has. A cursor before the sweep's
// horizon has missed changes the sweep removed: 410 `cursor_expired`. No total is counted: a count
// of a log grows with it (up to the cap, several times what the page costs), on every poll, for a
// number a client of a feed has no use for.

export interface FeedRequest {
  window: PageWindow;
  /** Only changes of these types (all when absent). */
  types?: readonly ChangeEventType[];
  /** `now`: start at the newest change, answering no events and the cursor to poll from. */
  since?: "now";
}

/** The listing, for its cursors: bound to the caller and the types asked for. */
const feedListing = (types: readonly ChangeEventType[] | undefined): Listing => ({
  name: "changes",
  filters: { types: types ? [...new Set(types)].sort() : null },
  keys: [{ expression: sql`e.id`, direction: "asc" }],
});

/** Where the log stands: every id up to `swept_through` is gone; `latest` is the newest id (null: none kept). */
interface LogState {
  swept_through: number;
  latest: number | null;
}

const LOG_STATE = sql`SELECT h.swept_through, (SELECT max(id) FROM change_events) AS latest
  FROM change_log_horizon h WHERE h.id = 1`;

const cursorExpired = (sweptThrough: number) =>
  new ApiError(
    "cursor_expired",
    `This cursor points before the oldest change still kept (changes are kept ${CHANGE_RETENTION_DAYS} days): read the feed again from its start, without a cursor`,
    { parameter: "cursor", retention_days: CHANGE_RETENTION_DAYS, swept_through: sweptThrough },
  );

export async function listChanges(ctx: UserContext, request: FeedRequest): Promise<ResultPage<ChangeEvent>> {
  const { window, types, since } = request;
  const listing = feedListing(types);
  const positionCursor = (id: number) => encodeCursor(ctx, listing, [id]);

  if (since === "now") {
    const [[state]] = await batchAll<[LogState]>(ctx.db, [LOG_STATE]);
    const end = Math.max(state?.latest ?? 0, state?.swept_through ?? 0);
    return { items: [], total: null, hasMore: false, nextCursor: await positionCursor(end) };
  }

  const after = window.cursor === undefined ? 0 : Number((await decodeCursor(ctx, listing, window.cursor))[0]);
  const ofTypes = types
    ? sql` AND e.type IN (${sql.join(
        types.map((type) => sql`${type}`),
        sql`, `,
      )})`
    : sql``;
  const own = sql`e.owner_id = ${ctx.actor.userId}`;
  const shared = sql`e.owner_id IS NULL`;
  const fetch = window.offset + window.limit + 1;
  const side = (owner: SQL) =>
    sql`SELECT * FROM (SELECT e.* FROM change_events e WHERE ${owner} AND e.id > ${after}${ofTypes}
      ORDER BY e.id LIMIT ${fetch})`;
  const [[state], rows] = await batchAll<[LogState, ChangeEventRecord]>(ctx.db, [
    LOG_STATE,
    sql`${side(own)} UNION ALL ${side(shared)} ORDER BY id LIMIT ${window.limit + 1} OFFSET ${window.offset}`,
  ]);
  const sweptThrough = state?.swept_through ?? 0;
  if (window.cursor !== undefined && after < sweptThrough) throw cursorExpired(sweptThrough);

  const items = rows.slice(0, window.limit);
  const hasMore = rows.length > window.limit;
  const lastShown = items.at(-1)?.id ?? 0;
  // After the last page: the newest change the read saw, so the next poll starts past everything read.
  const next = hasMore ? lastShown : Math.max(after, lastShown, state?.latest ?? 0, sweptThrough);
  return {
    items: items.map(presentChangeEvent),
    total: null,
    hasMore,
    nextCursor: await positionCursor(next),
  };
}
