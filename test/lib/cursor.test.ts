import { describe, expect, it } from "vitest";
import { encodeBase64Url } from "../../src/lib/base64url";
import {
  CURSOR_TAG_BYTES,
  type CursorPosition,
  type CursorScope,
  cursorLength,
  hashFilters,
  openCursor,
  sealCursor,
} from "../../src/lib/cursor";
import { ApiError } from "../../src/lib/errors";
import { assembleCursor, contextOf, cursorParts, TAMPERINGS } from "../helpers/cursor-matrix";

// The one cursor codec (lib/cursor.ts): signed, bound to the caller, the listing and its filters.

/** The refusal a bad cursor is: a 400 validation_failed naming the parameter; its message. */
async function refusal(open: Promise<unknown>, what = "the cursor"): Promise<string> {
  const error = await open.then(
    () => {
      throw new Error(`${what} was accepted`);
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(400);
  expect((error as ApiError).body).toMatchObject({ code: "validation_failed", details: { parameter: "cursor" } });
  return (error as ApiError).message;
}

describe("the cursor codec", () => {
  const userId = crypto.randomUUID();
  const ctx = contextOf(userId);
  const scope: CursorScope = { listing: "comments.block", filters: { blockId: "b1", resolved: null } };
  const positions: CursorPosition[] = [
    { keys: ["2026-01-02T03:04:05.000Z", 42, null, 'tïtle ✓ "quoted"', -1.5e-7] },
    { row: 61 },
    { offset: 100 },
  ];

  it.each(positions)("round-trips %j for the caller, listing and filters it was made for", async (position) => {
    const cursor = await sealCursor(ctx, scope, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor.length).toBe(cursorLength(scope, position));
    expect(await openCursor(ctx, scope, cursor)).toEqual(position);
    // Readable JSON (the listing, its filters' hash, the position), then a 128-bit signature.
    const { payload, tag } = cursorParts(cursor);
    expect(payload).toMatchObject({ l: "comments.block", f: hashFilters(scope.filters) });
    expect(tag).toHaveLength(CURSOR_TAG_BYTES);
    // The same caller and scope sign alike; filters in another key order are the same filters.
    expect(await sealCursor(ctx, { ...scope, filters: { resolved: null, blockId: "b1" } }, position)).toBe(cursor);
  });

  it("is bound to the caller, the listing, the filters and the server's secret", async () => {
    const cursor = await sealCursor(ctx, scope, { keys: ["2026-01-01T00:00:00.000Z", 7] });
    expect(await refusal(openCursor(contextOf(crypto.randomUUID()), scope, cursor))).toMatch(
      /was not given to this caller/,
    );
    expect(await refusal(openCursor(ctx, { ...scope, listing: "comments.page" }, cursor))).toMatch(
      /belongs to another listing/,
    );
    expect(await refusal(openCursor(ctx, { ...scope, filters: { blockId: "b2", resolved: null } }, cursor))).toMatch(
      /belongs to other filters/,
    );
    const otherSecret = contextOf(userId, { SESSION_SECRET: "another-secret-of-at-least-32-characters" });
    expect(await refusal(openCursor(otherSecret, scope, cursor))).toMatch(/was not given to this caller/);
  });

  it.each(TAMPERINGS)("refuses a cursor with %s", async (_how, tamper) => {
    for (const position of positions) {
      const cursor = await sealCursor(ctx, scope, position);
      await refusal(openCursor(ctx, scope, tamper(cursor)));
    }
  });

  it("refuses what is no cursor, and another spelling of a good one", async () => {
    const cursor = await sealCursor(ctx, scope, { keys: ["2026-01-01T00:00:00.000Z", 7] });
    const { payload, tag } = cursorParts(cursor);
    const bytes = new TextEncoder().encode(JSON.stringify(payload));
    const malformed = [
      "",
      "x",
      "not a cursor!",
      "%%%",
      "====",
      encodeBase64Url(new TextEncoder().encode("not json")),
      `${cursor}=`,
      `${cursor}A`,
      cursor.replaceAll("-", "+").replaceAll("_", "/"),
      // A byte-order mark before the JSON, the signature kept.
      encodeBase64Url(Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes, ...tag])),
      assembleCursor({ ...payload, extra: 1 }, tag),
      assembleCursor({ ...payload, r: 3 }, tag),
    ];
    // The standard alphabet spells it otherwise only when it holds a `-` or `_`.
    for (const text of malformed.filter((text) => text !== cursor))
      await refusal(openCursor(ctx, scope, text), JSON.stringify(text));
  });

  it("carries long values (no spreading of bytes into one call)", async () => {
    const long = "x".repeat(600_000);
    const cursor = await sealCursor(ctx, scope, { keys: [long, 1] });
    expect(cursor.length).toBe(cursorLength(scope, { keys: [long, 1] }));
    expect(await openCursor(ctx, scope, cursor)).toEqual({ keys: [long, 1] });
  });

  it("hashes filters by value: key order and undefined fields do not matter; values do", () => {
    expect(hashFilters({ a: 1, b: "x", c: undefined })).toBe(hashFilters({ b: "x", a: 1 }));
    expect(hashFilters({ a: 1, b: "x" })).not.toBe(hashFilters({ a: 1, b: "y" }));
    expect(hashFilters({ a: null })).not.toBe(hashFilters({}));
    expect(hashFilters({ types: ["page", "database"] })).not.toBe(hashFilters({ types: ["database", "page"] }));
  });
});
