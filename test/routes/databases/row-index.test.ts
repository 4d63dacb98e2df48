import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ROW_CURSOR_INLINE_MAX, sealRowCursor } from "../../../src/services/databases/row-query/cursors";
import { DRIVEN_MATCHES_MAX } from "../../../src/services/databases/row-query/driving-filter";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { assembleCursor, contextOf, cursorParts } from "../../helpers/cursor-matrix";
import {
  addProperty,
  createDatabase,
  createRow,
  DATABASES,
  describeSchema,
  expectRowIndexExact as expectIndexExact,
  getSchema,
  insertLegacyDatabase,
  queryRows,
  type Row,
  type TestDatabase,
} from "../../helpers/databases";
import { putPage } from "../../helpers/pages";

// The row-value index (migrations/0012_row_values.sql) and the keyset cursors of row queries.

/** Every page of a query, following X-Next-Cursor; each request also checked for its status. */
async function walkByCursor(user: TestUser, databaseId: string, body: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res: ApiResponse<Row[]> = await queryRows(user, databaseId, { ...body, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    ids.push(...res.body.map((row) => row.id));
    cursor = res.headers.get("X-Next-Cursor") ?? undefined;
    expect(res.headers.get("X-Has-More")).toBe(String(cursor !== undefined));
    if (!cursor) return ids;
  }
  throw new Error("cursor walk did not end");
}

async function walkByOffset(user: TestUser, databaseId: string, body: Record<string, unknown>): Promise<string[]> {
  const everything = await queryRows(user, databaseId, { ...body, limit: 100 });
  expect(everything.status).toBe(200);
  return everything.body.map((row) => row.id);
}

/** 23 rows with ties, NULLs and every indexed type, in an order that is not creation order. */
async function seededDatabase(user: TestUser): Promise<TestDatabase> {
  const created = await createDatabase(user);
  await addProperty(user, created.id, {
    name: "Size",
    type: "select",
    options: [{ name: "10" }, { name: "9" }, { name: "abc" }],
  });
  const database = describeSchema(created.id, created.block, (await getSchema(user, created.id)).body.properties);
  for (let i = 0; i < 23; i++) {
    await createRow(user, database.id, {
      title: `Row ${String(i).padStart(2, "0")}`,
      Status: i % 4 === 3 ? null : ["Todo", "Doing", "Done"][i % 3],
      Tags: i % 5 === 0 ? [] : [["Art", "Music"], ["Music"], ["Artist", "Art"], ["Art"]][i % 4],
      Priority: i % 6 === 0 ? null : (i * 7) % 5,
      Due:
        i % 7 === 0
          ? null
          : i % 2
            ? `2026-0${(i % 9) + 1}-1${i % 10}`
            : { start: `2026-03-0${(i % 9) + 1}T09:00:00+0${i % 3}:00` },
      Urgent: i % 3 === 0,
      // Option names that look like numbers sort as text ("10" before "9").
      Size: ["10", "9", "abc", null][i % 4],
      // Text that looks like a number stays text: "0123" and "+49..." are phone numbers, "10" sorts before "9".
      Notes: i % 4 === 0 ? "same" : ["10", "9", "0123", "+4930", "7", "7.0", "1e3", `note ${i}`][i % 8],
    });
  }
  // Some rows moved by hand (positions out of creation order), one to the top.
  const rows = (await queryRows(user, database.id, { limit: 100 })).body;
  await api(`/api/v1/blocks/${rows[20]?.id}`, { method: "PATCH", auth: user, body: { position: 0.5 } });
  await api(`/api/v1/blocks/${rows[5]?.id}`, { method: "PATCH", auth: user, body: { position: 12.25 } });
  return database;
}

describe("the row-value index", () => {
  it("holds exactly what the rows and schema say, after concurrent row writes and schema changes", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const rows = (await queryRows(user, database.id, { limit: 100 })).body;
    const status = database.prop("Status");
    const tags = database.prop("Tags");
    await Promise.all([
      ...rows.slice(0, 8).map((row, i) => putPage(user, row.id, { properties: { Priority: i * 10, Status: "Done" } })),
      api(`${DATABASES}/${database.id}/properties/${status.id}/options/${database.option("Status", "Doing").id}`, {
        method: "PATCH",
        auth: user,
        body: { name: "Working" },
      }),
      api(`${DATABASES}/${database.id}/properties/${tags.id}/options/${database.option("Tags", "Art").id}`, {
        method: "DELETE",
        auth: user,
      }),
      api(`${DATABASES}/${database.id}/properties/${database.prop("Notes").id}`, {
        method: "PATCH",
        auth: user,
        body: { type: "url" },
      }),
      api(`${DATABASES}/${database.id}/properties`, {
        method: "POST",
        auth: user,
        body: { name: "Score", type: "number" },
      }),
      api(`${DATABASES}/${database.id}/properties/${database.prop("Urgent").id}`, { method: "DELETE", auth: user }),
      ...rows.slice(8, 12).map((row) => api(`/api/v1/blocks/${row.id}`, { method: "DELETE", auth: user })),
      ...rows
        .slice(12, 14)
        .map((row) => api(`/api/v1/blocks/${row.id}`, { method: "PATCH", auth: user, body: { position: 99 } })),
      createRow(user, database.id, { title: "Late", Status: "Todo", Tags: ["Music"] }),
    ]);
    await expectIndexExact(database.id);
  });

  it("follows a row moved to another database, and a database duplicated with its rows", async () => {
    const user = await createUser();
    const first = await seededDatabase(user);
    const second = await createDatabase(user);
    const [row] = (await queryRows(user, first.id, { limit: 1 })).body;
    await api(`/api/v1/blocks/${row?.id}`, { method: "PATCH", auth: user, body: { database_id: second.id } });
    const copy = await api<{ id: string }>(`/api/v1/blocks/${first.id}/duplicate`, { method: "POST", auth: user });
    expect(copy.status).toBe(201);
    await expectIndexExact(first.id);
    await expectIndexExact(second.id);
    await expectIndexExact(copy.body.id);
  });

  it("answers the same rows as reading every row's JSON, for every indexed filter and sort", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    // Texts a retype to number left behind (stored straight, as the retype keeps them).
    const priority = database.prop("Priority").id;
    await env.DB.prepare(
      `INSERT INTO blocks (id, type, database_id, properties, position, created_by, last_edited_by)
       VALUES (?, 'database_row', ?, json_object(?, '3'), 1000, ?, ?), (?, 'database_row', ?, json_object(?, 'x'), 1001, ?, ?)`,
    )
      .bind(
        crypto.randomUUID(),
        database.id,
        priority,
        user.id,
        user.id,
        crypto.randomUUID(),
        database.id,
        priority,
        user.id,
        user.id,
      )
      .run();
    // The same database without schema records reads the JSON: the reference answers.
    const legacyId = await insertLegacyDatabase(user.id, database.properties);
    await env.DB.prepare(
      `INSERT INTO blocks (id, type, database_id, properties, position, created_by, last_edited_by)
       SELECT id || '-legacy', type, ?, properties, position, created_by, last_edited_by FROM blocks
       WHERE database_id = ? AND type = 'database_row'`,
    )
      .bind(legacyId, database.id)
      .run();
    const queries: Record<string, unknown>[] = [
      {},
      {
        filters: [{ property: "Status", operator: "equals", value: "Todo" }],
        sorts: [{ property: "Priority", direction: "asc" }],
      },
      { filters: [{ property: "Status", operator: "not_equals", value: "Todo" }] },
      { filters: [{ property: "Status", operator: "is_empty" }], sorts: [{ property: "Status", direction: "desc" }] },
      {
        filters: [{ property: "Tags", operator: "contains", value: "Art" }],
        sorts: [{ property: "Tags", direction: "asc" }],
      },
      { filters: [{ property: "Tags", operator: "not_contains", value: "Music" }] },
      { filters: [{ property: "Tags", operator: "is_empty" }] },
      {
        filters: [{ property: "Priority", operator: "greater_than", value: 1 }],
        sorts: [{ property: "Priority", direction: "desc" }],
      },
      { filters: [{ property: "Priority", operator: "is_not_empty" }] },
      { filters: [{ property: "Priority", operator: "not_equals", value: 3 }] },
      {
        filters: [
          { property: "Priority", operator: "not_equals", value: 0 },
          { property: "Status", operator: "equals", value: "Todo" },
        ],
        sorts: [{ property: "Priority", direction: "asc" }],
      },
      { filters: [{ property: "Priority", operator: "less_than", value: 100 }] },
      {
        filters: [{ property: "Due", operator: "on_or_after", value: "2026-03-04" }],
        sorts: [{ property: "Due", direction: "asc" }],
      },
      { filters: [{ property: "Due", operator: "before", value: "2026-03-03T08:30:00Z" }] },
      { filters: [{ property: "Due", operator: "equals", value: "2026-03-03" }] },
      {
        filters: [{ property: "Urgent", operator: "equals", value: false }],
        sorts: [{ property: "Urgent", direction: "asc" }],
      },
      {
        filters: [{ property: "Notes", operator: "equals", value: "same" }],
        sorts: [{ property: "title", direction: "desc" }],
      },
      { filters: [{ property: "Notes", operator: "contains", value: "NOTE 1" }] },
      {
        filters: [{ property: "Notes", operator: "equals", value: "7" }],
        sorts: [{ property: "Notes", direction: "asc" }],
      },
      { filters: [{ property: "Notes", operator: "contains", value: "+49" }] },
      { filters: [{ property: "Notes", operator: "contains", value: "0123" }] },
      { sorts: [{ property: "Notes", direction: "desc" }] },
      { sorts: [{ property: "Priority", direction: "desc" }] },
      { sorts: [{ property: "Status", direction: "asc" }] },
      { sorts: [{ property: "Size", direction: "asc" }] },
      {
        filters: [{ property: "Size", operator: "equals", value: "10" }],
        sorts: [{ property: "Size", direction: "desc" }],
      },
      {
        filters: [{ property: "title", operator: "not_contains", value: "1" }],
        sorts: [{ property: "Notes", direction: "asc" }],
      },
      {
        filters: [
          { property: "Status", operator: "equals", value: "Done" },
          { property: "Urgent", operator: "equals", value: true },
          { property: "created_time", operator: "after", value: "2000-01-01" },
        ],
        sorts: [{ property: "Due", direction: "desc" }],
      },
    ];
    for (const query of queries) {
      const indexed = await walkByOffset(user, database.id, query);
      const reference = (await walkByOffset(user, legacyId, query)).map((id) => id.replace(/-legacy$/, ""));
      expect({ query, ids: indexed }).toEqual({ query, ids: reference });
      // The cursor walk in pages of 4 gives the same rows in the same order.
      expect(await walkByCursor(user, database.id, { ...query, limit: 4 })).toEqual(indexed);
    }
  });
});

describe("row queries with a filter the match index lists", () => {
  // Past DRIVEN_MATCHES_MAX matches a query walks its order; up to it, it reads the matches from
  // the match index and sorts them. Both sides, and the count read from the match index, must
  // answer what reading every row's JSON answers.
  it("answer the same pages and totals as the JSON, whether their matches are few or many", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const count = DRIVEN_MATCHES_MAX + 600;
    for (let from = 0; from < count; from += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - from) }, (_, k) => {
        const i = from + k;
        return {
          title: `Row ${i}`,
          properties: {
            Status: ["Todo", "Doing", "Done"][i % 3],
            Tags: i % 10 === 0 ? [] : i % 3 === 2 ? ["Art", "Music"] : ["Art"],
            Priority: i % 11 === 0 ? null : i % 100,
            Due: i % 13 === 0 ? null : `2026-${String((i % 12) + 1).padStart(2, "0")}-15`,
            Urgent: i % 5 !== 0,
            Notes: `n${i % 7}`,
          },
        };
      });
      const res = await api(`/api/v1/databases/${database.id}/rows/batch`, {
        method: "POST",
        auth: user,
        body: { rows },
      });
      expect(res.status).toBe(201);
    }
    // Some of the driving filter's matches are archived or trashed: never listed nor counted.
    const firstRows = (await queryRows(user, database.id, { limit: 6 })).body;
    for (const [i, row] of firstRows.entries()) {
      const body = i % 2 ? { archived: true } : { in_trash: true };
      expect((await api(`/api/v1/blocks/${row.id}`, { method: "PATCH", auth: user, body })).status).toBe(200);
    }
    const legacyId = await insertLegacyDatabase(user.id, database.properties);
    await env.DB.prepare(
      `INSERT INTO blocks (id, type, database_id, properties, position, archived, in_trash, created_by, last_edited_by)
       SELECT id || '-legacy', type, ?, properties, position, archived, in_trash, created_by, last_edited_by FROM blocks
       WHERE database_id = ? AND type = 'database_row' ORDER BY seq`,
    )
      .bind(legacyId, database.id)
      .run();
    const priority = (direction: "asc" | "desc") => [{ property: "Priority", direction }];
    const queries: Record<string, unknown>[] = [
      // Many matches (more than DRIVEN_MATCHES_MAX: the walk), the first with a bound on the sort key.
      { filters: [{ property: "Priority", operator: "greater_than", value: 9 }], sorts: priority("asc") },
      { filters: [{ property: "Urgent", operator: "equals", value: true }], sorts: priority("desc") },
      { filters: [{ property: "Tags", operator: "contains", value: "Art" }] },
      // Many driving matches, few rows passing the other filters: the count reads the match index.
      {
        filters: [
          { property: "Urgent", operator: "equals", value: true },
          { property: "Notes", operator: "contains", value: "3" },
        ],
        sorts: priority("asc"),
      },
      {
        filters: [
          { property: "Tags", operator: "contains", value: "Art" },
          { property: "Notes", operator: "not_equals", value: "n1" },
          { property: "Priority", operator: "is_not_empty" },
        ],
      },
      {
        filters: [{ property: "Due", operator: "on_or_after", value: "2026-02-01" }],
        sorts: [{ property: "Notes", direction: "asc" }],
      },
      // Few matches: up to DRIVEN_SORT_MAX read from the match index and sorted ("Status = Todo" and
      // "Tags contains Music" have more: the walk keeps the rows among them).
      { filters: [{ property: "Priority", operator: "less_than", value: 5 }], sorts: priority("desc") },
      { filters: [{ property: "Notes", operator: "equals", value: "n3" }], sorts: priority("asc") },
      {
        filters: [{ property: "Status", operator: "equals", value: "Todo" }],
        sorts: [{ property: "Due", direction: "desc" }],
      },
      {
        filters: [{ property: "Tags", operator: "contains", value: "Music" }],
        sorts: [{ property: "Tags", direction: "asc" }],
      },
      { filters: [{ property: "Due", operator: "equals", value: "2026-03-15" }] },
      { filters: [{ property: "Due", operator: "after", value: "2026-11-15" }], sorts: priority("asc") },
      { filters: [{ property: "Due", operator: "on_or_before", value: "2026-01-15" }] },
      {
        filters: [
          { property: "Urgent", operator: "equals", value: true },
          { property: "Notes", operator: "equals", value: "n2" },
          { property: "Priority", operator: "is_not_empty" },
        ],
        sorts: priority("asc"),
      },
    ];
    for (const query of queries) {
      const offsets = [0, 50, 100];
      const indexed = await Promise.all(
        offsets.map((offset) => queryRows(user, database.id, { ...query, limit: 50, offset })),
      );
      const reference = await Promise.all(
        offsets.map((offset) => queryRows(user, legacyId, { ...query, limit: 50, offset })),
      );
      const ids = (pages: ApiResponse<Row[]>[]) =>
        pages.flatMap((page) => page.body.map((row) => row.id.replace(/-legacy$/, "")));
      expect({ query, ids: ids(indexed) }).toEqual({ query, ids: ids(reference) });
      expect({ query, total: indexed[0]?.headers.get("X-Total-Count") }).toEqual({
        query,
        total: reference[0]?.headers.get("X-Total-Count"),
      });
      // Past the last match, the total is still counted.
      const past = { ...query, limit: 50, offset: count };
      const [pastIndexed, pastReference] = [
        await queryRows(user, database.id, past),
        await queryRows(user, legacyId, past),
      ];
      expect({ query, rows: pastIndexed.body.length, total: pastIndexed.headers.get("X-Total-Count") }).toEqual({
        query,
        rows: 0,
        total: pastReference.headers.get("X-Total-Count"),
      });
      // The same three pages by cursor.
      const byCursor: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const res = await queryRows(user, database.id, { ...query, limit: 50, ...(cursor ? { cursor } : {}) });
        byCursor.push(...res.body.map((row) => row.id));
        cursor = res.headers.get("X-Next-Cursor") ?? undefined;
        if (!cursor) break;
      }
      expect({ query, ids: byCursor }).toEqual({ query, ids: ids(indexed) });
    }
  });
});

describe("entries of the row-value index carry their row's owner and state", () => {
  // Counts and the walk against a driving filter's matches read visibility from the entries alone
  // (migrations/0024): they must follow archive, trash and restore, and tell owners apart.
  it("so a query lists and counts only the active rows each user sees, through archive, trash and restore", async () => {
    const owner = await createUser();
    const other = await createUser();
    const database = await createDatabase(owner);
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(database.id).run();
    const mine: string[] = [];
    for (let i = 0; i < 6; i++) {
      mine.push((await createRow(owner, database.id, { title: `Mine ${i}`, Notes: "same", Priority: i })).id);
    }
    for (let i = 0; i < 3; i++)
      await createRow(other, database.id, { title: `Theirs ${i}`, Notes: "same", Priority: i });
    const patch = (id: string | undefined, body: Record<string, boolean>) =>
      api(`/api/v1/blocks/${id}`, { method: "PATCH", auth: owner, body });
    await Promise.all([
      patch(mine[0], { archived: true }),
      patch(mine[1], { in_trash: true }),
      patch(mine[2], { archived: true }),
      patch(mine[3], { in_trash: true }),
    ]);
    await Promise.all([patch(mine[2], { archived: false }), patch(mine[3], { in_trash: false })]);
    await expectIndexExact(database.id);
    const query = {
      filters: [{ property: "Notes", operator: "equals", value: "same" }],
      sorts: [{ property: "Priority", direction: "desc" }],
    };
    const owners = await queryRows(owner, database.id, query);
    expect(owners.body.map((row) => row.id)).toEqual([mine[5], mine[4], mine[3], mine[2]]);
    expect(owners.headers.get("X-Total-Count")).toBe("4");
    const others = await queryRows(other, database.id, query);
    expect(others.body.map((row) => row.properties_by_name?.title)).toEqual(["Theirs 2", "Theirs 1", "Theirs 0"]);
    expect(others.headers.get("X-Total-Count")).toBe("3");
  });
});

describe("a multi-select value naming an option twice", () => {
  // Stored straight to D1 (the API deduplicates values): one index entry per option, so the row
  // is listed and counted once, whichever side of the driving filter's threshold reads it.
  it("is listed and counted once by contains, and its index entries stay exact", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const tags = database.prop("Tags");
    const art = tags.options.find((option) => option.name === "Art");
    const row = await createRow(user, database.id, { title: "Twice", Tags: ["Art"] });
    await env.DB.prepare("UPDATE blocks SET properties = json_set(properties, ?, json(?)) WHERE id = ?")
      .bind(`$."${tags.id}"`, JSON.stringify([art, art, "Art"]), row.id)
      .run();
    const once = await createRow(user, database.id, { title: "Once", Tags: ["Art"] });
    await expectIndexExact(database.id);
    const res = await queryRows(user, database.id, {
      filters: [{ property: "Tags", operator: "contains", value: "Art" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((found) => found.id)).toEqual([row.id, once.id]);
    expect(res.headers.get("X-Total-Count")).toBe("2");
  });
});

describe("row queries on values a retype left behind", () => {
  // Retyping keeps stored values: numbers and odd text under a date, a select's object under a
  // multi-select. The index must answer what the JSON answers (two sorts take the JSON path).
  it("answer the rows and totals the JSON answers", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const year = await addProperty(user, database.id, { name: "Year", type: "number" });
    const label = await addProperty(user, database.id, { name: "Label", type: "text" });
    const values: [number, string][] = [
      [2027, "2026-10-01é"],
      [3000, "2026-10-01~later"],
      [20261005, "2026-10-01"],
      [1000, "2026-10-01T09:00:00Z"],
      [2026, "2026-09-30"],
    ];
    for (const [i, [y, l]] of values.entries()) {
      await createRow(user, database.id, { title: `Row ${i}`, Year: y, Label: l, Status: i % 2 ? "Todo" : "Done" });
    }
    const retype = (id: string, type: string) =>
      api(`/api/v1/databases/${database.id}/properties/${id}`, { method: "PATCH", auth: user, body: { type } });
    expect((await retype(year.id, "date")).status).toBe(200);
    expect((await retype(label.id, "date")).status).toBe(200);
    expect((await retype(database.prop("Status").id, "multi_select")).status).toBe(200);
    await expectIndexExact(database.id);
    const filters = [
      ...["Year", "Label"].flatMap((property) =>
        ["equals", "before", "after", "on_or_before", "on_or_after"].map((operator) => ({
          property,
          operator,
          value: "2026-10-01",
        })),
      ),
      { property: "Year", operator: "on_or_after", value: "2026-10-01T00:00:00Z" },
      { property: "Status", operator: "contains", value: "Todo" },
      { property: "Status", operator: "is_empty" },
    ];
    const twoSorts = [
      { property: "title", direction: "asc" },
      { property: "Notes", direction: "asc" },
    ];
    for (const filter of filters) {
      const indexed = await queryRows(user, database.id, { filters: [filter] });
      const json = await queryRows(user, database.id, { filters: [filter], sorts: twoSorts });
      expect(indexed.status).toBe(200);
      const ids = (res: ApiResponse<Row[]>) => res.body.map((row) => row.id).sort();
      expect({ filter, ids: ids(indexed), total: indexed.headers.get("X-Total-Count") }).toEqual({
        filter,
        ids: ids(json),
        total: json.headers.get("X-Total-Count"),
      });
    }
  });

  it("answer 50 filters on the sorted property (no expression too deep)", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    for (let i = 0; i < 5; i++) await createRow(user, database.id, { title: `Row ${i}`, Priority: i });
    const filters = Array.from({ length: 50 }, (_, i) => ({
      property: "Priority",
      operator: i % 2 ? "greater_than" : "less_than",
      value: i % 2 ? 0 : 4,
    }));
    for (const body of [
      { filters, sorts: [{ property: "Priority", direction: "desc" }] },
      { filters, sorts: [{ property: "Priority", direction: "asc" }], limit: 1 },
    ]) {
      const res = await queryRows(user, database.id, body);
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Total-Count")).toBe("3");
      const cursor = res.headers.get("X-Next-Cursor");
      if (cursor) expect((await queryRows(user, database.id, { ...body, cursor })).status).toBe(200);
    }
  });
});

describe("cursors of row queries", () => {
  it("continue a walk where the last page stopped, even when rows are added before it", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const body = { sorts: [{ property: "Priority", direction: "asc" }], limit: 5 };
    const first = await queryRows(user, database.id, body);
    const cursor = first.headers.get("X-Next-Cursor");
    expect(cursor).toBeTruthy();
    const expectedNext = (await queryRows(user, database.id, { ...body, offset: 5 })).body.map((row) => row.id);
    // A row sorting before the cursor shifts offset pages, not cursor pages.
    await createRow(user, database.id, { title: "Early", Priority: -1 });
    const next = await queryRows(user, database.id, { ...body, cursor });
    expect(next.body.map((row) => row.id)).toEqual(expectedNext);
    expect(next.headers.get("X-Pagination-Offset")).toBe("0");
  });

  it("answer no X-Next-Cursor on the last page", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    await createRow(user, database.id, { title: "Only" });
    const res = await queryRows(user, database.id, {});
    expect(res.headers.get("X-Next-Cursor")).toBeNull();
  });

  it("work for a query the index cannot serve (an older inline schema, several sorts)", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const sorts = [
      { property: "Status", direction: "asc" },
      { property: "Priority", direction: "desc" },
    ];
    expect(await walkByCursor(user, database.id, { sorts, limit: 3 })).toEqual(
      await walkByOffset(user, database.id, { sorts }),
    );
  });

  it.each([
    ["not base64", "%%%"],
    ["not JSON", "bm90IGpzb24"],
    ["the wrong shape", btoa(JSON.stringify({ q: 1 })).replace(/=+$/, "")],
  ])("400 for a cursor that is %s", async (_name, cursor) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const res = await queryRows(user, database.id, { cursor });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
  });

  it("400 for a cursor of another query, or of another database", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const other = await seededDatabase(user);
    const sorted = { sorts: [{ property: "Priority", direction: "asc" }], limit: 2 };
    const cursor = (await queryRows(user, database.id, sorted)).headers.get("X-Next-Cursor") ?? "";
    for (const [id, body] of [
      [database.id, { sorts: [{ property: "Priority", direction: "desc" }], cursor }],
      [database.id, { ...sorted, filters: [{ property: "Urgent", operator: "equals", value: true }], cursor }],
      [other.id, { ...sorted, cursor }],
    ] as const) {
      const res = await queryRows(user, id, body);
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
    }
  });

  it("400 for a cursor of this query whose keys were altered", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const sorted = { sorts: [{ property: "Priority", direction: "asc" }], limit: 2 };
    const given = (await queryRows(user, database.id, sorted)).headers.get("X-Next-Cursor") ?? "";
    const { payload, tag } = cursorParts(given);
    const [sortValue, position, seq] = payload.k as unknown[];
    // The untouched cursor continues; each alteration is refused.
    expect((await queryRows(user, database.id, { ...sorted, cursor: assembleCursor(payload, tag) })).status).toBe(200);
    for (const body of [
      { ...payload, k: [sortValue] },
      { ...payload, k: [sortValue, position] },
      { ...payload, k: [sortValue, position, seq, 1] },
      { ...payload, k: [sortValue, "abc", seq] },
      { ...payload, k: [sortValue, position, "x"] },
      { ...payload, k: [sortValue, position, 1.5] },
      { ...payload, k: [null, null, null] },
      { ...payload, extra: 1 },
      { ...payload, o: 2 },
    ]) {
      const res = await queryRows(user, database.id, { ...sorted, cursor: assembleCursor(body, tag) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
    }
  });

  it("400 for a cursor of the default order whose keys were altered", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const given = (await queryRows(user, database.id, { limit: 2 })).headers.get("X-Next-Cursor") ?? "";
    const { payload, tag } = cursorParts(given);
    const [position, seq] = payload.k as unknown[];
    expect((await queryRows(user, database.id, { limit: 2, cursor: assembleCursor(payload, tag) })).status).toBe(200);
    for (const k of [[position], [position, seq, 1], ["1", seq], [position, "2"], [null, seq], [position, null]]) {
      const res = await queryRows(user, database.id, { limit: 2, cursor: assembleCursor({ ...payload, k }, tag) });
      expect(res.status, JSON.stringify(k)).toBe(400);
      expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
    }
  });

  it("continue after rows whose sort value is too long to carry: the cursor names the row", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const long = (tail: string) => `${"long note ".repeat(160)}${tail}`;
    for (const [title, notes] of [
      ["a", long("c")],
      ["b", "short"],
      ["c", long("a")],
      ["d", long("b")],
      ["e", long("a")],
      ["f", null],
    ] as const) {
      await createRow(user, database.id, { title, ...(notes === null ? {} : { Notes: notes }) });
    }
    for (const direction of ["asc", "desc"]) {
      const sorts = [{ property: "Notes", direction }];
      const first = await queryRows(user, database.id, { sorts, limit: 2 });
      const cursor = first.headers.get("X-Next-Cursor") ?? "";
      expect(cursor.length).toBeGreaterThan(0);
      expect(cursor.length).toBeLessThanOrEqual(ROW_CURSOR_INLINE_MAX);
      for (const limit of [1, 2, 4]) {
        expect(await walkByCursor(user, database.id, { sorts, limit })).toEqual(
          await walkByOffset(user, database.id, { sorts }),
        );
      }
    }
    // A named row deleted before the next page leaves nothing to continue after.
    const sorts = [{ property: "Notes", direction: "asc" }];
    const page = await queryRows(user, database.id, { sorts, limit: 2 });
    const last = page.body.at(-1) as Row;
    expect((last.properties_by_name.Notes as string).length).toBeGreaterThan(1_000);
    expect((await api(`/api/v1/blocks/${last.id}`, { method: "DELETE", auth: user })).status).toBe(200);
    const after = await queryRows(user, database.id, { sorts, limit: 2, cursor: page.headers.get("X-Next-Cursor") });
    expectErrorBody(after, 400);
    expect(after.body).toMatchObject({ details: { parameter: "cursor" } });
  });

  it("continue after a sort value of 600,000 characters (the cursor names the row)", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    for (const tail of ["b", "a", "c"])
      await createRow(user, database.id, { title: tail, Notes: `${"x".repeat(600_000)}${tail}` });
    const sorts = [{ property: "Notes", direction: "asc" }];
    const first = await queryRows(user, database.id, { sorts, limit: 1 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((first.headers.get("X-Next-Cursor") ?? "").length).toBeLessThanOrEqual(ROW_CURSOR_INLINE_MAX);
    const titles = async (ids: string[]) =>
      Promise.all(
        ids.map(async (id) => (await api<Row>(`/api/v1/pages/${id}`, { auth: user })).body.properties_by_name?.title),
      );
    expect(await titles(await walkByCursor(user, database.id, { sorts, limit: 1 }))).toEqual(["a", "b", "c"]);
  });

  it("400 for a forged cursor naming another user's hidden row of a shared database: no order against it", async () => {
    const owner = await createUser();
    const prober = await createUser();
    const database = await createDatabase(owner, { properties: [] });
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(database.id).run();
    const hidden = await createRow(owner, database.id, { title: "k private" });
    for (const title of ["a probe", "m probe", "z probe"]) await createRow(prober, database.id, { title });
    const seq = (await env.DB.prepare("SELECT seq FROM blocks WHERE id = ?").bind(hidden.id).first<{ seq: number }>())
      ?.seq as number;
    const sorts = [{ property: "title", direction: "asc" }];
    const own = await queryRows(prober, database.id, { sorts, limit: 1 });
    expect(own.body.map((row) => row.properties_by_name?.title)).toEqual(["a probe"]);
    // A cursor naming the row by seq, as the query's own cursors once were (base64url of {q, r}: q a
    // hash anyone can compute), and the prober's own cursor made to name it.
    let hash = 0x811c9dc5;
    for (const char of JSON.stringify([database.id, [], sorts])) {
      hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    }
    const unsigned = btoa(JSON.stringify({ q: hash.toString(36), r: seq }))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    const forged = [unsigned];
    const given = own.headers.get("X-Next-Cursor") ?? "";
    try {
      const { payload, tag } = cursorParts(given);
      forged.push(assembleCursor({ l: payload.l, f: payload.f, r: seq }, tag));
    } catch {
      // A cursor of no signed form: the unsigned forgery is the whole probe.
    }
    for (const cursor of forged) {
      const res = await queryRows(prober, database.id, { sorts, limit: 1, cursor });
      // Answered, the page after the hidden row would say where its title sorts among the prober's
      // own ("m probe": the hidden title is between "a probe" and "m probe").
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
    }
  });

  it("a cursor naming a row is read under the query's conditions: a row the query would not return is a 400", async () => {
    const owner = await createUser();
    const reader = await createUser();
    const database = await createDatabase(owner);
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(database.id).run();
    const shared = async (title: string, properties: Record<string, unknown>) => {
      const row = await createRow(owner, database.id, { title, ...properties });
      await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(row.id).run();
      return row;
    };
    const seqOf = async (id: string) =>
      (await env.DB.prepare("SELECT seq FROM blocks WHERE id = ?").bind(id).first<{ seq: number }>())?.seq as number;
    const matching = await shared("a", { Urgent: true });
    const filteredOut = await shared("b", { Urgent: false });
    const trashed = await shared("c", { Urgent: true });
    await shared("d", { Urgent: true });
    expect((await api(`/api/v1/blocks/${trashed.id}/trash`, { method: "POST", auth: owner })).status).toBe(200);
    const hidden = await createRow(owner, database.id, { title: "e", Urgent: true });
    const filters = [{ property: "Urgent", operator: "equals", value: true }] as const;
    const sorts = [{ property: "title", direction: "asc" }] as const;
    // Cursors the server itself signed for the reader, naming each row: only the one the query returns continues.
    const naming = async (id: string) =>
      sealRowCursor(contextOf(reader.id), database.id, [...filters], [...sorts], { row: await seqOf(id) });
    const next = await queryRows(reader, database.id, { filters, sorts, cursor: await naming(matching.id) });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.map((row) => row.properties_by_name?.title)).toEqual(["d"]);
    for (const row of [filteredOut, trashed, hidden]) {
      const res = await queryRows(reader, database.id, { filters, sorts, cursor: await naming(row.id) });
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
    }
  });

  it("400 for a cursor with an offset", async () => {
    const user = await createUser();
    const database = await seededDatabase(user);
    const cursor = (await queryRows(user, database.id, { limit: 2 })).headers.get("X-Next-Cursor") ?? "";
    const res = await queryRows(user, database.id, { limit: 2, offset: 2, cursor });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { parameters: ["cursor", "offset"] } });
  });
});

describe("totals of row queries", () => {
  it("are counted up to 1,000; beyond, X-Total-Count is left out", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const titleId = database.prop("title").id;
    const insertRows = (from: number, to: number) =>
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO blocks (id, type, database_id, properties, position, created_by, last_edited_by)
         SELECT printf('%s-%06d', ?, i), 'database_row', ?, json_object(?, 'Row ' || i), i, ?, ? FROM n`,
      )
        .bind(from, to, database.id, database.id, titleId, user.id, user.id)
        .run();
    await insertRows(1, 1000);
    expect((await queryRows(user, database.id, { limit: 1 })).headers.get("X-Total-Count")).toBe("1000");
    await insertRows(1001, 1001);
    const beyond = await queryRows(user, database.id, { limit: 1 });
    expect(beyond.headers.get("X-Total-Count")).toBeNull();
    expect(beyond.headers.get("X-Has-More")).toBe("true");
  });
});
