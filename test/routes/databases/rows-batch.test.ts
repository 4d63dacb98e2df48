import { describe, expect, it } from "vitest";
import { type BatchRowInput, createRows } from "../../../src/services/block-writes/rows-batch";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { insertBlock, storedRow, UUID } from "../../helpers/blocks";
import {
  createDatabase,
  createRow,
  DATABASES,
  expectRowIndexExact,
  insertLegacyDatabase,
  queryRows,
  readDatabaseTarget,
  type SelectOption,
  schemaRecords,
  setupDatabaseTarget,
  storedRowIds,
  storedRows,
  type TestDatabase,
} from "../../helpers/databases";
import { contextMeddlingBefore } from "../../helpers/meddling-d1";
import { createPage, postPage, storedContent, storedProperties } from "../../helpers/pages";

// POST /api/v1/databases/{id}/rows/batch: up to 1,000 rows validated as single rows are,
// written all or none.

interface Created {
  created: number;
  ids: string[];
}

interface RowFault {
  index: number;
  error: string;
  [detail: string]: unknown;
}

interface ErrorBody {
  error: string;
  code: string;
  details?: { rows?: RowFault[]; issues?: { path: string; message: string; code: string }[] };
}

const rowsPath = (databaseId: string) => `${DATABASES}/${databaseId}/rows/batch`;

const postRows = <T = Created>(user: TestUser, databaseId: string, body: unknown): Promise<ApiResponse<T>> =>
  api<T>(rowsPath(databaseId), { method: "POST", auth: user, body });

/** Every row of a database in the default order, through the query route. */
async function rowIdsInOrder(user: TestUser, databaseId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await queryRows(user, databaseId, { limit: 100, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.map((row) => row.id));
    cursor = res.headers.get("X-Next-Cursor") ?? undefined;
    if (!cursor) return ids;
  }
}

const faultsOf = (res: ApiResponse) => (res.body as ErrorBody).details?.rows ?? [];

/** The details a single row create (POST /api/v1/pages) answers for the same row, with its message. */
async function singleRowFault(user: TestUser, databaseId: string, row: Record<string, unknown>) {
  const res = await postPage(user, { type: "database_row", database_id: databaseId, ...row });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const body = res.body as unknown as ErrorBody;
  return { error: body.error, ...body.details };
}

describe("bulk rows: created as single rows are", () => {
  it("translates aliases, options by name or id, dates, title and content exactly as POST /pages does", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const title = database.prop("title");
    // The title property under another name: `title` still writes it, and so does its name in any case.
    const renamed = await api(`${DATABASES}/${database.id}/properties/${title.id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "Name" },
    });
    expect(renamed.status).toBe(200);
    const mention = await createPage(user, { title: "Mentioned page" });
    const rows: Record<string, unknown>[] = [
      {
        title: "First",
        properties: {
          Status: "Todo",
          tags: ["Art", { id: database.option("Tags", "Music").id }, "Art"],
          STAGE: { name: "Complete" },
          Priority: 3,
          Due: "2026-01-05",
          Urgent: true,
          Notes: "free text",
        },
        content: [
          {
            type: "paragraph",
            children: [{ text: "See " }, { text: "@page", mention: { type: "page", id: mention.id } }],
          },
          { type: "to_do", children: [{ text: "check" }] },
        ],
      },
      {
        properties: {
          Name: "Second",
          [database.prop("Status").id]: { id: database.option("Status", "Doing").id },
          Due: { start: "2026-01-05T09:00:00Z", end: "2026-01-05T10:30:00Z", reminder: "15_minutes_before" },
          Priority: null,
        },
      },
      { properties: { name: "Third", status: { name: "Done", color: "blue" } }, content: null },
      { title: "Fourth", properties: { Name: "Fourth" }, content: [] },
      {},
    ];

    // The same rows created one by one first: what each stores is what the batch must store.
    const singles = [];
    for (const row of rows) {
      singles.push(await createPage(user, { type: "database_row", database_id: database.id, ...row }));
    }
    const res = await postRows(user, database.id, { rows });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.created).toBe(rows.length);
    expect(res.body.ids).toHaveLength(rows.length);
    for (const id of res.body.ids) expect(id).toMatch(UUID);

    for (const [i, id] of res.body.ids.entries()) {
      const single = singles[i];
      if (!single) throw new Error("missing single row");
      expect(await storedProperties(id), `row ${i}`).toEqual(await storedProperties(single.id));
      expect(await storedContent(id), `row ${i}`).toEqual(await storedContent(single.id));
    }
    const first = await storedProperties(res.body.ids[0] as string);
    expect(first?.[title.id]).toBe("First");
    expect(first?.[database.prop("Tags").id]).toEqual([
      database.option("Tags", "Art"),
      database.option("Tags", "Music"),
    ]);
    expect((await storedProperties(res.body.ids[2] as string))?.[database.prop("Status").id]).toEqual(
      database.option("Status", "Done"),
    );

    // Read back through the pages API: owned by the caller, a row of this database.
    const page = await api<{ type: string; database_id: string; created_by: string; parent_id: string | null }>(
      `/api/v1/pages/${res.body.ids[0]}`,
      { auth: user },
    );
    expect(page.body).toMatchObject({
      type: "database_row",
      database_id: database.id,
      created_by: user.id,
      parent_id: null,
    });

    // The content triggers ran: the mention is a backlink, and the row is searchable.
    const backlinks = await api<{ source_page_id?: string; source_block_id?: string }[]>(
      `/api/v1/backlinks/${mention.id}`,
      { auth: user },
    );
    expect(backlinks.status).toBe(200);
    expect(JSON.stringify(backlinks.body)).toContain(res.body.ids[0]);
  });

  it("places the rows after the existing rows in request order; later rows go after them", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const before = [await createRow(user, database.id, { title: "a" }), await createRow(user, database.id, {})];
    const first = await postRows(user, database.id, {
      rows: Array.from({ length: 5 }, (_, i) => ({ title: `batch 1 row ${i}` })),
    });
    expect(first.status).toBe(201);
    const between = await createRow(user, database.id, { title: "between" });
    const second = await postRows(user, database.id, { rows: [{ title: "z" }, { title: "y" }, { title: "x" }] });
    expect(second.status).toBe(201);
    const after = await createRow(user, database.id, { title: "after" });

    expect(await rowIdsInOrder(user, database.id)).toEqual([
      ...before.map((row) => row.id),
      ...first.body.ids,
      between.id,
      ...second.body.ids,
      after.id,
    ]);
  });

  it("places the rows after the rows and top-level blocks the caller sees, not other users'", async () => {
    const user = await createUser();
    const other = await createUser();
    const { id: database } = await createDatabase(user, { properties: [] });
    const mine = await createRow(user, database, { title: "mine" });
    await insertBlock({ type: "page", position: 1e9, created_by: other.id });
    await insertBlock({ type: "database_row", database_id: database, position: 2e9, created_by: other.id });
    const res = await postRows(user, database, { rows: [{ title: "a" }, { title: "b" }] });
    expect(res.status).toBe(201);
    const start = (await storedRow(mine.id))?.position as number;
    const positions = await Promise.all(res.body.ids.map(async (id) => (await storedRow(id))?.position));
    expect(positions).toEqual([start + 1, start + 2]);
  });

  it("1,000 rows in one request: two round trips, all queryable in request order, the row-value index exact", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const statuses = ["Todo", "Doing", "Done"];
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      title: `Row ${i}`,
      properties: {
        Status: statuses[i % 3],
        Tags: i % 2 === 0 ? ["Art"] : ["Music", "Artist"],
        Priority: i,
        Due: `2026-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`,
        Urgent: i % 5 === 0,
        Notes: `Imported note number ${i}`,
      },
      content: [{ type: "paragraph", children: [{ text: `Body of row ${i}: a modest paragraph of text.` }] }],
    }));

    const started = performance.now();
    const res = await postRows(user, database.id, { rows });
    const elapsed = performance.now() - started;
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    const d1 = /d1;desc="[^"]*";dur=([\d.]+)/.exec(res.headers.get("Server-Timing") ?? "")?.[1];
    console.log(
      `[rows-batch] 1,000 rows in one request: ${elapsed.toFixed(0)} ms wall (D1 ${d1} ms in ${res.queryRoundTrips} round trips), ${JSON.stringify({ rows }).length} body bytes`,
    );
    expect(res.body.created).toBe(1000);
    expect(new Set(res.body.ids).size).toBe(1000);
    // One read of the schema, one batch of inserts.
    expect(res.queryRoundTrips).toBe(2);

    expect(await rowIdsInOrder(user, database.id)).toEqual(res.body.ids);
    // Filters and sorts read the row-value index the insert triggers wrote.
    const filtered = await queryRows(user, database.id, {
      filters: [{ property: "Priority", operator: "greater_than", value: 994 }],
      sorts: [{ property: "Priority", direction: "desc" }],
    });
    expect(filtered.body.map((row) => row.id)).toEqual(res.body.ids.slice(995).reverse());
    const done = await queryRows(user, database.id, {
      filters: [{ property: "Status", operator: "equals", value: "Done" }],
      limit: 100,
    });
    expect(done.headers.get("X-Total-Count")).toBe("333");
    await expectRowIndexExact(database.id);
  });

  it("validates rows of an older database (inline schema, no records) as single rows are", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, [
      { id: "name", name: "Name", type: "title" },
      { id: "stage", name: "Stage", type: "select", options: ["Idea", "Shipped"] },
    ]);
    const rows = [{ title: "Legacy", properties: { stage: "Shipped" } }];
    const single = await createPage(user, { type: "database_row", database_id: id, ...rows[0] });
    const res = await postRows(user, id, { rows });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await storedProperties(res.body.ids[0] as string)).toEqual(await storedProperties(single.id));
    const refused = await postRows<ErrorBody>(user, id, {
      rows: [{ properties: { Stage: "Idea" } }, { properties: { Stage: "Done" } }],
    });
    expectErrorBody(refused, 400);
    expect(faultsOf(refused)).toEqual([
      expect.objectContaining({ index: 1, errors: [expect.objectContaining({ allowed: ["Idea", "Shipped"] })] }),
    ]);
  });

  it("accepts rows into a trashed or archived database, as a single row create does", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const trashed = await api(`/api/v1/pages/${database.id}`, { method: "DELETE", auth: user });
    expect(trashed.status).toBe(200);
    expect((await postPage(user, { type: "database_row", database_id: database.id, title: "one" })).status).toBe(201);
    const res = await postRows(user, database.id, { rows: [{ title: "two" }, { title: "three" }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await storedRowIds(database.id)).toHaveLength(3);

    const archived = await createDatabase(user, { properties: [] });
    expect((await api(`/api/v1/blocks/${archived.id}/archive`, { method: "POST", auth: user })).status).toBe(200);
    const intoArchived = await postRows(user, archived.id, { rows: [{ title: "four" }] });
    expect(intoArchived.status, JSON.stringify(intoArchived.body)).toBe(201);
    expect(await storedRowIds(archived.id)).toEqual(intoArchived.body.ids);
  });
});

describe("bulk rows: refused, nothing stored", () => {
  it("one 400 lists every row at fault, each with the details a single row gives", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const title = database.prop("title");
    const faulty: Record<number, Record<string, unknown>> = {
      1: { properties: { Nope: 1, Status: "Todo" } },
      2: { properties: { Status: "todo", Tags: ["Art", "Nope"] } },
      3: { properties: { Due: "05/01/2026" } },
      5: { properties: { Due: { start: "2026-01-05", end: "2026-01-04" } } },
      6: { properties: { created_time: "2026-01-01T00:00:00Z" } },
      7: { title: "One", properties: { title: "Other" } },
      8: { content: [{ type: "heading_1", children: [{ text: "x" }] }] },
      9: { content: "not items" },
      11: { properties: { Priority: "high", Urgent: "yes" } },
    };
    const rows: unknown[] = Array.from(
      { length: 13 },
      (_, i) => faulty[i] ?? { title: `fine ${i}`, properties: { Status: "Done" } },
    );
    // Shape problems are listed with the others.
    rows[4] = { title: 5 };
    rows[10] = { title: "x", colour: "red" };
    rows[12] = "not a row";

    const res = await postRows<ErrorBody>(user, database.id, { rows });
    expectErrorBody(res, 400);
    expect(res.body.code).toBe("validation_failed");
    const faults = faultsOf(res);
    expect(faults.map((fault) => fault.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const fault of faults) expect(fault.error, JSON.stringify(fault)).toEqual(expect.any(String));

    // Value problems: exactly what POST /pages answers for the same row.
    for (const [index, row] of Object.entries(faulty)) {
      const fault = faults.find((candidate) => candidate.index === Number(index));
      const { index: _index, ...details } = fault ?? { index: -1 };
      expect(details, `row ${index}`).toEqual(await singleRowFault(user, database.id, row));
    }
    const byIndex = (index: number) => faults.find((fault) => fault.index === index);
    expect(byIndex(1)?.errors).toEqual([expect.objectContaining({ property: "Nope" })]);
    expect(byIndex(2)?.errors).toEqual([
      expect.objectContaining({ property: "Status", allowed: ["Todo", "Doing", "Done"] }),
      expect.objectContaining({ property: "Tags", message: "'Nope' is not an option of this property" }),
    ]);
    expect(byIndex(6)?.errors).toEqual([
      expect.objectContaining({ message: "created_time is computed and read-only" }),
    ]);
    expect(byIndex(7)?.fields).toEqual(["title", title.id]);
    expect(byIndex(8)?.issues).toEqual([expect.objectContaining({ path: "content[0].type" })]);
    expect(byIndex(11)?.errors).toHaveLength(2);
    // Shape problems: the request schema's issues, with paths inside the row.
    expect(byIndex(4)).toMatchObject({ source: "row", issues: [{ path: "title", code: "invalid_type" }] });
    expect(byIndex(10)).toMatchObject({ source: "row", issues: [{ code: "unrecognized_keys" }] });
    expect(byIndex(12)).toMatchObject({ source: "row", issues: [{ path: "", code: "invalid_type" }] });

    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("the title given twice with different values is refused; the same value twice is accepted", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const title = database.prop("title");
    const twice = await postRows<ErrorBody>(user, database.id, {
      rows: [
        { title: "A", properties: { [title.id]: "A" } },
        { title: "A", properties: { title: "B" } },
      ],
    });
    expectErrorBody(twice, 400);
    expect(faultsOf(twice)).toEqual([
      {
        index: 1,
        error: "Give the title once: either title or the title property",
        fields: ["title", title.id],
      },
    ]);
    expect(await storedRowIds(database.id)).toEqual([]);

    const same = await postRows(user, database.id, { rows: [{ title: "A", properties: { title: "A" } }] });
    expect(same.status).toBe(201);
    expect(await storedProperties(same.body.ids[0] as string)).toEqual({ [title.id]: "A" });
  });

  it("a computed property written is refused", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const res = await postRows<ErrorBody>(user, database.id, {
      rows: [{ title: "ok" }, { properties: { last_edited_by: "someone" } }],
    });
    expectErrorBody(res, 400);
    expect(faultsOf(res)).toEqual([
      expect.objectContaining({
        index: 1,
        errors: [
          { property: "last_edited_by", name: "last_edited_by", message: "last_edited_by is computed and read-only" },
        ],
      }),
    ]);
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it.each([
    ["no rows", { rows: [] }, "rows", "too_small"],
    ["1,001 rows", { rows: Array.from({ length: 1001 }, () => ({})) }, "rows", "too_big"],
    ["rows not an array", { rows: { title: "x" } }, "rows", "invalid_type"],
    ["rows missing", {}, "rows", "invalid_type"],
    ["an unknown field", { rows: [{}], upsert: true }, "", "unrecognized_keys"],
  ])("400 for %s, naming the problem", async (_name, body, path, code) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const res = await postRows<ErrorBody>(user, database.id, body);
    expectErrorBody(res, 400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.details?.issues).toEqual([expect.objectContaining({ path, code })]);
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("a row whose content is too large to store is refused; a body above 8 MiB is a 413", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const big = [{ type: "paragraph", children: [{ text: "x".repeat(950_000) }] }];
    const res = await postRows<ErrorBody>(user, database.id, { rows: [{ title: "fine" }, { content: big }] });
    expectErrorBody(res, 400);
    expect(faultsOf(res)).toEqual([expect.objectContaining({ index: 1, max_bytes: 900_000 })]);

    const huge = Array.from({ length: 10 }, () => ({ content: big }));
    const tooLarge = await postRows<ErrorBody>(user, database.id, { rows: huge });
    expectErrorBody(tooLarge, 413);
    expect(tooLarge.body.code).toBe("payload_too_large");
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("rows of several large bodies are written across chunks in one batch, in order", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    // About 3.6 MB: several chunks of the INSERT's JSON parameter.
    const rows = Array.from({ length: 12 }, (_, i) => ({
      title: `Large ${i}`,
      content: [{ type: "paragraph", children: [{ text: `${i} ${"é".repeat(150_000)}` }] }],
    }));
    const res = await postRows(user, database.id, { rows });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.queryRoundTrips).toBe(2);
    expect(await rowIdsInOrder(user, database.id)).toEqual(res.body.ids);
    expect(await storedContent(res.body.ids[11] as string)).toEqual(rows[11]?.content);
  });
});

describe("bulk rows: which database", () => {
  it("404 for another user's database, a page, a row or an unknown id; nothing stored", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const database = await createDatabase(owner, { properties: [] });
    const row = await createRow(owner, database.id, { title: "existing" });
    const page = await createPage(owner, { title: "A page" });
    const ownPage = await createPage(intruder, { title: "Not a database" });
    const ownRow = await createRow(intruder, (await createDatabase(intruder, { properties: [] })).id, {});
    const body = { rows: [{ title: "x" }] };

    for (const [who, id] of [
      [intruder, database.id],
      [owner, page.id],
      [owner, row.id],
      [intruder, ownPage.id],
      [intruder, ownRow.id],
      [owner, crypto.randomUUID()],
    ] as const) {
      const before = await storedRowIds(id);
      const res = await postRows<ErrorBody>(who, id, body);
      expectErrorBody(res, 404);
      expect(res.body.code).toBe("not_found");
      expect(res.body.details).toEqual({ database_id: id });
      expect(await storedRowIds(id)).toEqual(before);
    }
    expect(await storedRowIds(database.id)).toEqual([row.id]);
  });

  describeAuthMatrix({
    name: "POST /api/v1/databases/{id}/rows/batch",
    method: "POST",
    path: (id) => rowsPath(id),
    body: { rows: [{ title: "Intruder", properties: { Status: "Todo" } }] },
    setup: setupDatabaseTarget,
    readBack: readDatabaseTarget,
  });
});

describe("bulk rows racing schema changes", () => {
  async function storedOptions(databaseId: string, propertyId: string): Promise<SelectOption[]> {
    const record = (await schemaRecords(databaseId)).find((candidate) => candidate.id === propertyId);
    return record?.options ?? [];
  }

  /** Each batch landed whole (201) or not at all (400), and its rows are stored exactly when it landed. */
  async function expectAllOrNothing(database: TestDatabase, responses: ApiResponse<Created>[], prefix: string) {
    const stored = await storedRows(database.id);
    const titles = Object.values(stored).map((properties) => properties?.[database.prop("title").id]);
    for (const [n, res] of responses.entries()) {
      expect([201, 400], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
      const mine = titles.filter((title) => typeof title === "string" && title.startsWith(`${prefix} ${n}.`));
      expect(mine.length, `batch ${n}`).toBe(res.status === 201 ? 40 : 0);
      if (res.status === 201) for (const id of res.body.ids) expect(stored).toHaveProperty(id);
    }
    return stored;
  }

  it("an option removed while batches use it: each batch lands whole or is refused; no row keeps the option", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const status = database.prop("Status");
    const done = database.option("Status", "Done");
    const batch = (n: number) =>
      postRows(user, database.id, {
        rows: Array.from({ length: 40 }, (_, i) => ({ title: `Race ${n}.${i}`, properties: { Status: "Done" } })),
      });

    const batches = Array.from({ length: 6 }, (_, n) => batch(n));
    const removal = api(`${DATABASES}/${database.id}/properties/${status.id}/options/${done.id}`, {
      method: "DELETE",
      auth: user,
    });
    const [responses, removed] = await Promise.all([Promise.all(batches), removal]);

    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const stored = await expectAllOrNothing(database, responses, "Race");
    const options = await storedOptions(database.id, status.id);
    expect(options.map((option) => option.id)).not.toContain(done.id);
    for (const [id, properties] of Object.entries(stored)) {
      const value = properties?.[status.id];
      if (value !== undefined && value !== null) expect(options, `row ${id}`).toContainEqual(value);
    }
    // A batch refused after the removal names the option its rows asked for.
    for (const res of responses.filter((candidate) => candidate.status === 400)) {
      const faults = faultsOf(res);
      expect(faults).toHaveLength(40);
      expect(faults[0]?.errors).toEqual([expect.objectContaining({ property: "Status", allowed: ["Todo", "Doing"] })]);
    }
  });

  it("a property removed while batches write it: no row keeps a value of the removed property", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const notes = database.prop("Notes");
    const batch = (n: number) =>
      postRows(user, database.id, {
        rows: Array.from({ length: 40 }, (_, i) => ({ title: `Notes ${n}.${i}`, properties: { Notes: `note ${i}` } })),
      });

    const batches = Array.from({ length: 6 }, (_, n) => batch(n));
    const removal = api(`${DATABASES}/${database.id}/properties/${notes.id}`, { method: "DELETE", auth: user });
    const [responses, removed] = await Promise.all([Promise.all(batches), removal]);

    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const stored = await expectAllOrNothing(database, responses, "Notes");
    for (const [id, properties] of Object.entries(stored)) expect(properties, `row ${id}`).not.toHaveProperty(notes.id);
  });
});

describe("bulk rows against a schema change between validation and write", () => {
  // Batch 1 reads the schema, batch 2 is the write: the change lands in between.
  const doneRows = (count: number): BatchRowInput[] =>
    Array.from({ length: count }, (_, i) => ({ row: { title: `Guarded ${i}`, properties: { Status: "Done" } } }));

  it("an option the rows use removed: the write lands nothing, the rows are validated again and refused", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const status = database.prop("Status");
    const { ctx, seen } = contextMeddlingBefore(user, 2, () =>
      api(`${DATABASES}/${database.id}/properties/${status.id}/options/${database.option("Status", "Done").id}`, {
        method: "DELETE",
        auth: user,
      }),
    );

    const error = await createRows(ctx, database.id, doneRows(3)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, details: { rows: [{ index: 0 }, { index: 1 }, { index: 2 }] } });
    // Read, refused write, read again (and refused before writing).
    expect(seen.batches).toBe(3);
    expect(await storedRowIds(database.id)).toEqual([]);
  });

  it("an unrelated schema change: the write is refused, then redone against the new schema", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const { ctx, seen } = contextMeddlingBefore(user, 2, () =>
      api(`${DATABASES}/${database.id}/properties`, {
        method: "POST",
        auth: user,
        body: { name: "Late", type: "text" },
      }),
    );

    const result = await createRows(ctx, database.id, doneRows(3));
    expect(seen.batches).toBe(4);
    expect(result.created).toBe(3);
    expect(await storedRowIds(database.id)).toEqual(result.ids);
  });

  it("the database deleted in between: 404, nothing stored", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const { ctx } = contextMeddlingBefore(user, 2, () =>
      api(`/api/v1/pages/${database.id}?permanent=true`, { method: "DELETE", auth: user }),
    );

    await expect(createRows(ctx, database.id, doneRows(2))).rejects.toMatchObject({ status: 404 });
    expect(await storedRowIds(database.id)).toEqual([]);
  });
});
