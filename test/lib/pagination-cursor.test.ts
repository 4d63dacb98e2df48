import { env } from "cloudflare:test";
import { type SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { prepare } from "../../src/db/batch";
import { ApiError } from "../../src/lib/errors";
import {
  afterCondition,
  afterSegments,
  decodeCursor,
  encodeCursor,
  hashFilters,
  type KeyValue,
  type Listing,
  listingQueries,
  type OrderKey,
  orderByKeys,
  type PageWindow,
  pageWindow,
  readPage,
} from "../../src/lib/pagination";

/** The 400 a bad cursor is: validation_failed naming the parameter. */
function expectCursorRefused(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).body).toMatchObject({ code: "validation_failed", details: { parameter: "cursor" } });
    return;
  }
  throw new Error("the cursor was accepted");
}

const base64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

describe("cursors", () => {
  const hash = hashFilters({ blockId: "b1", resolved: null });

  it("round-trip the listing's key values, and are base64url of a small JSON with no padding", () => {
    const values = ["2026-01-02T03:04:05.000Z", 42, null, 'tïtle ✓ "quoted"', -1.5e-7];
    const cursor = encodeCursor("comments.block", hash, values);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(
      JSON.parse(
        new TextDecoder().decode(
          Uint8Array.from(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0)),
        ),
      ),
    ).toEqual({
      l: "comments.block",
      f: hash,
      k: values,
    });
    expect(decodeCursor(cursor, "comments.block", hash, values.length)).toEqual(values);
  });

  it("hash filters by value: key order and undefined fields do not matter; values do", () => {
    expect(hashFilters({ a: 1, b: "x", c: undefined })).toBe(hashFilters({ b: "x", a: 1 }));
    expect(hashFilters({ a: 1, b: "x" })).not.toBe(hashFilters({ a: 1, b: "y" }));
    expect(hashFilters({ a: null })).not.toBe(hashFilters({}));
    expect(hashFilters({ types: ["page", "database"] })).not.toBe(hashFilters({ types: ["database", "page"] }));
  });

  it("refuse malformed cursors, another listing's, other filters', and a wrong number of keys", () => {
    const good = encodeCursor("comments.block", hash, ["2026-01-01T00:00:00.000Z", 7]);
    const malformed = [
      "",
      "not a cursor!",
      "====",
      "%%%",
      base64url("not json"),
      base64url("[]"),
      base64url('{"l": "comments.block", "f": "x"}'),
      base64url(`{"l": "comments.block", "f": "${hash}", "k": [{"nested": true}]}`),
      base64url(`{"l": "comments.block", "f": "${hash}", "k": "2026"}`),
      `${good.slice(0, -3)}`,
      btoa(String.fromCharCode(0xff, 0xfe, 0xfd)).replace(/=+$/, ""),
    ];
    for (const cursor of malformed) expectCursorRefused(() => decodeCursor(cursor, "comments.block", hash, 2));
    expectCursorRefused(() => decodeCursor(good, "comments.page", hash, 2));
    expectCursorRefused(() => decodeCursor(good, "comments.block", hashFilters({ blockId: "b2" }), 2));
    expectCursorRefused(() => decodeCursor(good, "comments.block", hash, 3));
    expect(decodeCursor(good, "comments.block", hash, 2)).toEqual(["2026-01-01T00:00:00.000Z", 7]);
  });

  it("refuse NULL for a key declared never NULL, and accept it where NULLs are declared", () => {
    const keys = [
      { expression: sql`c.created_at`, direction: "asc" as const },
      { expression: sql`c.position`, direction: "asc" as const, nulls: "last" as const },
      { expression: sql`c.rowid`, direction: "asc" as const },
    ];
    const decode = (values: unknown[]) =>
      decodeCursor(encodeCursor("comments.block", hash, values), "comments.block", hash, 3, keys);
    expect(decode(["2026-01-01T00:00:00.000Z", null, 7])).toEqual(["2026-01-01T00:00:00.000Z", null, 7]);
    expectCursorRefused(() => decode([null, 1, 7]));
    expectCursorRefused(() => decode(["2026-01-01T00:00:00.000Z", 1, null]));
  });

  it("a cursor with a non-zero offset is a 400 naming both; with offset 0 it is the window", () => {
    try {
      pageWindow({ cursor: "abc", offset: 5 });
      throw new Error("accepted");
    } catch (error) {
      expect((error as ApiError).body).toMatchObject({
        code: "validation_failed",
        details: { parameters: ["cursor", "offset"] },
      });
    }
    expect(pageWindow({ cursor: "abc", offset: 0, limit: 500 })).toEqual({ cursor: "abc", offset: 0, limit: 100 });
    expect(pageWindow({})).toEqual({ offset: 0, limit: 50 });
  });
});

// A scratch table of duplicates and NULLs, ordered every way, walked by every form of the condition.
describe("the keyset condition, on a scratch table", async () => {
  const table = `cursor_scratch_${crypto.randomUUID().replaceAll("-", "")}`;
  await env.DB.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL NOT NULL)`);
  await env.DB.exec(`CREATE INDEX ${table}_ab ON ${table} (a, b)`);
  // Every combination of a in {NULL, 1, 2} and b in {NULL, "x", "y"}, twice, with c repeating.
  const rows: [number, number | null, string | null, number][] = [];
  let id = 0;
  for (let round = 0; round < 2; round++)
    for (const a of [null, 1, 2])
      for (const b of [null, "x", "y"]) {
        id += 1;
        rows.push([id, a, b, id % 3]);
      }
  await env.DB.batch(
    rows.map((row) => env.DB.prepare(`INSERT INTO ${table} (id, a, b, c) VALUES (?, ?, ?, ?)`).bind(...row)),
  );
  const column = (name: string) => sql.raw(name);

  const all = async (query: SQL) => (await prepare(env.DB, query).all<{ id: number }>()).results.map((r) => r.id);
  const valuesOf = async (keys: OrderKey[], rowId: number): Promise<KeyValue[]> => {
    const record = await prepare(
      env.DB,
      sql`SELECT ${sql.join(
        keys.map((key, i) => sql`${key.expression} AS ${sql.raw(`k${i}`)}`),
        sql`, `,
      )} FROM ${sql.raw(table)} WHERE id = ${rowId}`,
    ).first<Record<string, KeyValue>>();
    return keys.map((_, i) => record?.[`k${i}`] ?? null);
  };

  const directions = ["asc", "desc"] as const;
  const placements = ["first", "last"] as const;
  const orders: OrderKey[][] = [];
  for (const da of directions)
    for (const na of placements)
      for (const db of directions)
        for (const nb of placements)
          orders.push([
            { expression: column("a"), direction: da, nulls: na },
            { expression: column("b"), direction: db, nulls: nb },
            { expression: column("id"), direction: da },
          ]);
  // Keys never NULL, in one direction (the row-value form) and mixed.
  for (const dc of directions)
    for (const di of directions)
      orders.push([
        { expression: column("c"), direction: dc },
        { expression: column("id"), direction: di },
      ]);

  const name = (keys: OrderKey[]) => new SQLiteAsyncDialect().sqlToQuery(orderByKeys(keys)).sql;

  it.each(orders.map((keys) => [name(keys), keys] as const))(
    "after every row, in %s, come exactly the rows ORDER BY puts after it",
    async (_name, keys) => {
      const order = await all(sql`SELECT id FROM ${sql.raw(table)} ORDER BY ${orderByKeys(keys)}`);
      expect(order).toHaveLength(rows.length);
      for (const [index, rowId] of order.entries()) {
        const values = await valuesOf(keys, rowId);
        const expected = order.slice(index + 1);
        const condition = afterCondition(keys, values);
        expect(
          await all(sql`SELECT id FROM ${sql.raw(table)} WHERE ${condition} ORDER BY ${orderByKeys(keys)}`),
        ).toEqual(expected);
        const segments = afterSegments(keys, values);
        const bySegments = segments.length
          ? await all(
              sql`${sql.join(
                segments.map(
                  (segment) =>
                    sql`SELECT * FROM (SELECT id FROM ${sql.raw(table)} WHERE ${segment} ORDER BY ${orderByKeys(keys)})`,
                ),
                sql` UNION ALL `,
              )}`,
            )
          : [];
        expect(bySegments).toEqual(expected);
      }
    },
  );

  it.each(orders.map((keys) => [name(keys), keys] as const))(
    "a listing in %s walked by cursor, 4 at a time, is the whole order once",
    async (_name, keys) => {
      const listing: Listing = { name: "scratch", filters: { table }, keys };
      const parts = { select: sql`SELECT id`, from: sql`FROM ${sql.raw(table)}`, where: sql`1` };
      const read = async (window: PageWindow) => {
        const [page, count] = listingQueries(listing, parts, window);
        const [records, counts] = await env.DB.batch([prepare(env.DB, page), prepare(env.DB, count)]);
        return readPage(
          listing,
          records?.results as { id: number }[],
          counts?.results as { total: number }[],
          window,
          (row) => row,
        );
      };
      const expected = await all(sql`SELECT id FROM ${sql.raw(table)} ORDER BY ${orderByKeys(keys)}`);
      const walked: number[] = [];
      let window: PageWindow = pageWindow({ limit: 4 });
      for (let pages = 0; pages < 10; pages++) {
        const page = await read(window);
        expect(page.total).toBe(rows.length);
        // The key columns are taken off the items.
        for (const item of page.items) expect(Object.keys(item)).toEqual(["id"]);
        walked.push(...page.items.map((item) => item.id));
        expect(page.hasMore).toBe(page.nextCursor !== null);
        if (!page.nextCursor) break;
        window = pageWindow({ limit: 4, cursor: page.nextCursor });
      }
      expect(walked).toEqual(expected);
    },
  );
});

describe("orderByKeys", () => {
  it("writes NULLS FIRST/LAST only where it is not SQLite's default", () => {
    const text = (keys: OrderKey[]) => new SQLiteAsyncDialect().sqlToQuery(orderByKeys(keys)).sql;
    expect(
      text([
        { expression: sql.raw("a"), direction: "asc", nulls: "last" },
        { expression: sql.raw("b"), direction: "desc", nulls: "last" },
        { expression: sql.raw("c"), direction: "asc", nulls: "first" },
        { expression: sql.raw("d"), direction: "desc", nulls: "first" },
        { expression: sql.raw("e"), direction: "asc" },
      ]),
    ).toBe("a ASC NULLS LAST, b DESC, c ASC, d DESC NULLS FIRST, e ASC");
  });
});
