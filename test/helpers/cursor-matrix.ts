import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../src/auth/scopes";
import { decodeBase64Url, encodeBase64Url } from "../../src/lib/base64url";
import { actingAs, createContext, type UserContext } from "../../src/lib/context";
import { CURSOR_TAG_BYTES } from "../../src/lib/cursor";
import { type ApiResponse, api, type TestUser } from "./api";
import { expectErrorBody } from "./auth-matrix";
import { signSessionToken } from "./session-token";

// The cursor checks every listing must pass, beside the auth matrix's: a cursor is signed by the
// server and bound to the caller, the listing and its filters, so another user's cursor, an
// altered one, or one of another listing or other filters is a 400 naming `cursor`, answered
// before any query runs (no D1 round trip with an app session).

/** A context acting for `userId`, as the services sign and check cursors; `changes` alter its env. */
export const contextOf = (userId: string, changes: Partial<Env> = {}): UserContext =>
  actingAs(createContext({ env: { ...env, ...changes } }), {
    userId,
    via: "api_key",
    apiKeyId: null,
    scopes: ALL_SCOPES,
  });

/** An app-session token of `user`: authenticating it reads nothing from D1 (its liveness rides in the first query, or is one query after a refusal). */
export const sessionOf = (user: TestUser): Promise<string> =>
  signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 600 });

/** The readable part of a cursor (its JSON payload) and its signature. */
export function cursorParts(cursor: string): { payload: Record<string, unknown>; tag: Uint8Array } {
  const bytes = decodeBase64Url(cursor);
  if (!bytes || bytes.length <= CURSOR_TAG_BYTES) throw new Error(`not a cursor: ${cursor}`);
  const split = bytes.length - CURSOR_TAG_BYTES;
  return {
    payload: JSON.parse(new TextDecoder().decode(bytes.subarray(0, split))),
    tag: bytes.slice(split),
  };
}

/** A cursor of `payload` carrying `tag`: what anyone can make from a cursor they hold. */
export function assembleCursor(payload: unknown, tag: Uint8Array): string {
  const json = new TextEncoder().encode(JSON.stringify(payload));
  const bytes = new Uint8Array(json.length + tag.length);
  bytes.set(json);
  bytes.set(tag, json.length);
  return encodeBase64Url(bytes);
}

/** `cursor` with its payload changed by `change` and its signature kept. */
export function withPayload(cursor: string, change: (payload: Record<string, unknown>) => unknown): string {
  const { payload, tag } = cursorParts(cursor);
  return assembleCursor(change(structuredClone(payload)), tag);
}

/** `cursor` with the lowest bit of its byte `index` flipped (negative: from the end). */
export function flipBit(cursor: string, index: number): string {
  const bytes = decodeBase64Url(cursor) as Uint8Array;
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] = (bytes[at] as number) ^ 1;
  return encodeBase64Url(bytes);
}

/** The payload moved one step on: the last key value, the named row or the offset changed. */
function nudged(payload: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(payload.k)) {
    const keys = [...payload.k];
    const last = keys.at(-1);
    keys[keys.length - 1] = typeof last === "number" ? last + 1 : `${String(last)}x`;
    return { ...payload, k: keys };
  }
  if (typeof payload.r === "number") return { ...payload, r: payload.r + 1 };
  return { ...payload, o: Number(payload.o) + 1 };
}

/** Ways to alter a cursor one holds, each a cursor the server never gave. */
export const TAMPERINGS: [string, (cursor: string) => string][] = [
  ["its key values, row or offset changed (signature kept)", (cursor) => withPayload(cursor, nudged)],
  ["its listing's filters hash changed (signature kept)", (cursor) => withPayload(cursor, (p) => ({ ...p, f: "0" }))],
  ["a bit of its JSON flipped", (cursor) => flipBit(cursor, 2)],
  ["a bit of its signature flipped", (cursor) => flipBit(cursor, -1)],
  ["its signature cut short", (cursor) => encodeBase64Url((decodeBase64Url(cursor) as Uint8Array).slice(0, -1))],
  [
    "its signature left off",
    (cursor) => encodeBase64Url(new TextEncoder().encode(JSON.stringify(cursorParts(cursor).payload))),
  ],
];

/** One request of a listing: GET with the window in the query, or POST with it in the JSON body. */
export interface ListingRequest {
  method?: "GET" | "POST";
  path: string;
  body?: Record<string, unknown>;
}

/** Sends `request` as `auth` for one item after `cursor` (page 1 without). */
export function sendPage(auth: string | TestUser, request: ListingRequest, cursor?: string): Promise<ApiResponse> {
  if (request.method === "POST") {
    return api(request.path, {
      method: "POST",
      auth,
      body: { ...request.body, limit: 1, ...(cursor === undefined ? {} : { cursor }) },
    });
  }
  const window = `limit=1${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
  return api(`${request.path}${request.path.includes("?") ? "&" : "?"}${window}`, { auth });
}

/** A listing arranged for the checks. */
export interface ArrangedListing {
  owner: TestUser;
  intruder: TestUser;
  /** The listing, with at least two items for the owner (so page 1 has a next cursor). */
  listing: ListingRequest;
  /**
   * Whether the intruder sees the owner's items too (a shared object: both users walk the same
   * listing, and each one's cursor is refused to the other); else the intruder's own listing.
   */
  shared: boolean;
  /** Other listings, and this one with other filters, for the owner: the owner's cursor is refused on each. */
  others: ListingRequest[];
}

export interface CursorCase {
  /** The operation as the contract names it: "GET /api/v1/comments/block/{blockId}". */
  operation: string;
  /** What the case is about, when an operation has several ("shared blocks", "search"). */
  variant?: string;
  /** The route takes app sessions only (API-key management). */
  sessionOnly?: boolean;
  arrange(): Promise<ArrangedListing>;
}

const caseName = (c: CursorCase) => (c.variant ? `${c.operation} (${c.variant})` : c.operation);

/**
 * The 400 of a refused cursor, answered before any query of the work: the one round trip is the
 * session's own check that its user has not signed out, made after the refusal (auth/credential-liveness.ts).
 */
export function expectCursorRefused(res: ApiResponse, what: string): void {
  expectErrorBody(res, 400);
  expect(res.body, what).toMatchObject({ code: "validation_failed", details: { parameter: "cursor" } });
  expect(res.roundTrips, `${what}: D1 round trips, the session's check included`).toBe(1);
}

/** The next cursor of `request`'s page 1 for `auth` (asserted present). */
export async function firstCursor(auth: string | TestUser, request: ListingRequest): Promise<string> {
  const res = await sendPage(auth, request);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const next = res.headers.get("X-Next-Cursor");
  expect(next, `${request.path}: page 1 has a next cursor`).not.toBeNull();
  return next as string;
}

/**
 * For each listing: its cursor continues for the user it was given to (by API key or session),
 * and is a 400 before any query for another user (on a shared object too), altered in any way, or
 * sent to another listing or with other filters.
 */
export function describeCursorMatrix(cases: CursorCase[]): void {
  describe.each(cases.map((c) => [caseName(c), c] as const))("%s: cursor forgery", (_name, c) => {
    let arranged: Promise<ArrangedListing & { ownerSession: string; intruderSession: string; cursor: string }>;
    const ready = () => {
      arranged ??= c.arrange().then(async (listing) => {
        const ownerSession = await sessionOf(listing.owner);
        return {
          ...listing,
          ownerSession,
          intruderSession: await sessionOf(listing.intruder),
          cursor: await firstCursor(ownerSession, listing.listing),
        };
      });
      return arranged;
    };

    it("the cursor continues for the user it was given to, by session or API key", async () => {
      const { owner, ownerSession, listing, cursor } = await ready();
      for (const auth of c.sessionOnly ? [ownerSession] : [ownerSession, owner]) {
        const res = await sendPage(auth, listing, cursor);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toHaveLength(1);
      }
    });

    it("another user's cursor is a 400 before any query", async () => {
      const { intruderSession, ownerSession, listing, cursor, shared } = await ready();
      expectCursorRefused(await sendPage(intruderSession, listing, cursor), "the owner's cursor sent by another user");
      if (shared) {
        // Both see the listing: each walks it with their own cursor, never with the other's.
        const theirs = await firstCursor(intruderSession, listing);
        expect((await sendPage(intruderSession, listing, theirs)).status).toBe(200);
        expectCursorRefused(await sendPage(ownerSession, listing, theirs), "the other user's cursor sent by the owner");
      }
    });

    it.each(TAMPERINGS)("a cursor with %s is a 400 before any query", async (_how, tamper) => {
      const { ownerSession, listing, cursor } = await ready();
      const altered = tamper(cursor);
      expect(altered).not.toBe(cursor);
      expectCursorRefused(await sendPage(ownerSession, listing, altered), "an altered cursor");
    });

    it("a cursor sent to another listing, or with other filters, is a 400 before any query", async () => {
      const { ownerSession, others, cursor } = await ready();
      expect(others.length).toBeGreaterThan(0);
      for (const other of others) {
        expectCursorRefused(await sendPage(ownerSession, other, cursor), `the cursor sent to ${JSON.stringify(other)}`);
      }
    });
  });
}
