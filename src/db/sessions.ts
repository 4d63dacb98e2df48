import { badRequest } from "../lib/errors";

// Reads from the nearest D1 replica (D1's Sessions API): every request's queries go through
// one session, started from the bookmark the client sent back, so it reads its own writes;
// the session's latest bookmark goes back to the client in the same header.

/** The request and response header carrying a D1 bookmark. */
export const D1_BOOKMARK_HEADER = "X-D1-Bookmark";

/** Longer bookmark headers are refused before anything else is looked at. */
export const MAX_BOOKMARK_LENGTH = 1024;

/**
 * A bookmark as D1 writes it (and documents it, under Time Travel): four lowercase hex
 * groups of 8, 8, 8 and 32 digits, e.g. `00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683`.
 * Fixed-width hex is what makes bookmarks sort lexically, oldest first.
 */
const BOOKMARK_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** Methods that never write: their sessions may start on any replica. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The header as sent; an empty one counts as not sent (a client with no bookmark yet). */
const sentBookmark = (header: string | undefined): string | undefined => header || undefined;

/**
 * Refuses a bookmark header that is not one D1 could have written (400 `validation_failed`,
 * `details.header`). Checked before any query: locally D1 takes any string as a bookmark and
 * hands it back unchanged, and the deployed service would only fail the request's first query.
 */
export function checkBookmarkHeader(header: string | undefined): void {
  const bookmark = sentBookmark(header);
  if (bookmark === undefined) return;
  if (bookmark.length > MAX_BOOKMARK_LENGTH) {
    throw badRequest(`${D1_BOOKMARK_HEADER} is too long: send back the bookmark a response carried`, {
      header: D1_BOOKMARK_HEADER,
      max_length: MAX_BOOKMARK_LENGTH,
    });
  }
  if (!BOOKMARK_SHAPE.test(bookmark)) {
    throw badRequest(`${D1_BOOKMARK_HEADER} is not a D1 bookmark: send back the one a response carried`, {
      header: D1_BOOKMARK_HEADER,
    });
  }
}

/**
 * What a request's session starts from: the client's bookmark (so it sees at least what it
 * saw or wrote before); without one, the primary for a method that may write, and any replica
 * for one that only reads. A malformed bookmark is ignored here: `checkBookmarkHeader` refuses
 * the request before its first query.
 */
export function sessionConstraint(method: string, header: string | undefined): string {
  const bookmark = sentBookmark(header);
  if (bookmark !== undefined && bookmark.length <= MAX_BOOKMARK_LENGTH && BOOKMARK_SHAPE.test(bookmark)) {
    return bookmark;
  }
  return READ_METHODS.has(method.toUpperCase()) ? "first-unconstrained" : "first-primary";
}

/**
 * A D1 session as the `D1Database` the query builder, the round-trip meter and the key-liveness
 * guard take. A session has only `prepare` and `batch` (all that drizzle's d1 driver and the
 * request's own code call) and `getBookmark`; the binding's other methods are refused here
 * rather than reaching the primary outside the session.
 */
export function sessionDatabase(session: D1DatabaseSession): D1Database {
  const outsideSession = (method: string) =>
    new Error(`D1 ${method}() is not available inside a D1 session: use prepare() or batch()`);
  return {
    prepare: (query: string) => session.prepare(query),
    batch: <T = unknown>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    exec: () => Promise.reject(outsideSession("exec")),
    dump: () => Promise.reject(outsideSession("dump")),
    withSession: () => {
      throw outsideSession("withSession");
    },
  };
}
