import { env } from "cloudflare:test";
import { type SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { prepare } from "../../src/db/batch";
import { hashFilters } from "../../src/lib/cursor";
import { ApiError } from "../../src/lib/errors";
import {
  afterCondition,
  afterSegments,
  decodeCursor,
  encodeCursor,
  type KeyValue,
  type Listing,
  listingQueries,
  type OrderKey,
  orderByKeys,
  type PageWindow,
  pageWindow,
  readPage,
  withoutKeyColumns,
} from "../../src/lib/pagination";
import { contextOf, cursorParts } from "../helpers/cursor-matrix";

/** The 400 a bad cursor is: validation_failed naming the parameter. */
async function expectCursorRefused(run: () => unknown) {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).body).toMatchObject({ code: "validation_failed", details: { parameter: "cursor" } });
    return;
  }
  throw new Error("the cursor was accepted");
}

describe("listing cursors", () => {
  const ctx = contextOf(crypto.randomUUID());
  const listing = (keys: OrderKey[], filters: unknown = { blockId: "b1", resolved: null }): Listing => ({
    name: "comments.block",
    filters,
    keys,
  });
  const twoKeys = listing([
    { expression: sql`c.created_at`, direction: "asc" },
    { expression: sql`c.rowid`, direction: "asc" },
  ]);

  it("round-trip the listing's key values, for the caller they were given to", async () => {
    const values = ["2026-01-02T03:04:05.000Z", 42];
    const cursor = await encodeCursor(ctx, twoKeys, values);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursorParts(cursor).payload).toEqual({ l: "comments.block", f: hashFilters(twoKeys.filters), k: values });
    expect(await decodeCursor(ctx, twoKeys, cursor)).toEqual(values);
  });

  it("refuse another listing's, other filters', another number of keys, and another user's", async () => {
    const good = await encodeCursor(ctx, twoKeys, ["2026-01-01T00:00:00.000Z", 7]);
    await expectCursorRefused(() => decodeCursor(ctx, { ...twoKeys, name: "comments.page" }, good));
    await expectCursorRefused(() =>
      decodeCursor(ctx, { ...twoKeys, filters: { blockId: "b2", resolved: null } }, good),
    );
    await expectCursorRefused(() =>
      decodeCursor(ctx, { ...twoKeys, keys: [...twoKeys.keys, { expression: sql`c.id`, direction: "asc" }] }, good),
    );
    await expectCursorRefused(() => decodeCursor(contextOf(crypto.randomUUID()), twoKeys, good));
    expect(await decodeCursor(ctx, twoKeys, good)).toEqual(["2026-01-01T00:00:00.000Z", 7]);
  });

  it("refuse NULL for a key declared never NULL, and accept it where NULLs are declared", async () => {
    const keys = listing([
      { expression: sql`c.created_at`, direction: "asc" },
      { expression: sql`c.position`, direction: "asc", nulls: "last" },
      { expression: sql`c.rowid`, direction: "asc" },
    ]);
    const decode = async (values: KeyValue[]) => decodeCursor(ctx, keys, await encodeCursor(ctx, keys, values));
    expect(await decode(["2026-01-01T00:00:00.000Z", null, 7])).toEqual(["2026-01-01T00:00:00.000Z", null, 7]);
    await expectCursorRefused(() => decode([null, 1, 7]));
    await expectCursorRefused(() => decode(["2026-01-01T00:00:00.000Z", 1, null]));
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
      const ctx = contextOf(crypto.randomUUID());
      const read = async (window: PageWindow) => {
        const [page, count] = await listingQueries(ctx, listing, parts, window);
        const [records, counts] = await env.DB.batch([prepare(env.DB, page), prepare(env.DB, count)]);
        return readPage(
          ctx,
          listing,
          records?.results as { id: number }[],
          counts?.results as { total: number }[],
          window,
          withoutKeyColumns,
        );
      };
      const expected = await all(sql`SELECT id FROM ${sql.raw(table)} ORDER BY ${orderByKeys(keys)}`);
      const walked: number[] = [];
      let window: PageWindow = pageWindow({ limit: 4 });
      for (let pages = 0; pages < 10; pages++) {
        const page = await read(window);
        expect(page.total).toBe(rows.length);
        // A presenter that answers a row whole takes the key columns off with withoutKeyColumns.
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
