import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, insertBlock, storedRow } from "../../helpers/blocks";
import {
  addProperty,
  getSchema,
  insertLegacyDatabase,
  PROP_ID,
  queryRows,
  schemaRecords,
  storedRowIds,
} from "../../helpers/databases";
import { getPage, postPage, putPage, storedProperties } from "../../helpers/pages";

/** An older inline schema: an array of definitions, options as strings or objects without ids. */
const ARRAY_SCHEMA = [
  { id: "name", name: "Name", type: "title" },
  { id: "stage", name: "Stage", type: "select", options: ["Idea", { name: "Shipped", color: "green" }] },
  { id: "score", name: "Score", type: "number" },
  { id: "labels", name: "Labels", type: "multi_select", options: [{ id: "l1", name: "Red" }, { name: "Green" }] },
  { id: "summary", name: "Summary", type: "rich_text" },
];

const problemsOf = (res: ApiResponse) =>
  (res.body as { details?: { errors?: { property: string; allowed?: string[] }[] } }).details?.errors ?? [];

const postRow = (user: TestUser, databaseId: string, properties: unknown) =>
  postPage(user, { type: "database_row", database_id: databaseId, properties });

/** Everything that tells whether a refused write changed the legacy database: block, records, rows. */
async function snapshot(databaseId: string) {
  const rows = await storedRowIds(databaseId);
  return {
    database: await storedRow(databaseId),
    records: await schemaRecords(databaseId),
    rows: await Promise.all(rows.map((id) => storedRow(id))),
  };
}

describe("legacy databases (inline properties.schema, no schema records)", () => {
  it("reports the inline schema as the database's schema", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const res = await getSchema(user, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      database_id: id,
      legacy: true,
      properties: [
        { id: "name", name: "Name", type: "title", options: [], position: 0 },
        {
          id: "stage",
          name: "Stage",
          type: "select",
          options: [
            { id: "Idea", name: "Idea", color: "default" },
            { id: "Shipped", name: "Shipped", color: "green" },
          ],
          position: 1,
        },
        { id: "score", name: "Score", type: "number", options: [], position: 2 },
        {
          id: "labels",
          name: "Labels",
          type: "multi_select",
          options: [
            { id: "l1", name: "Red", color: "default" },
            { id: "Green", name: "Green", color: "default" },
          ],
          position: 3,
        },
        { id: "summary", name: "Summary", type: "text", options: [], position: 4 },
      ],
    });
    expect(await schemaRecords(id)).toEqual([]);
  });

  it("validates row writes against the inline schema and stores its ids", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const res = await postPage(user, {
      type: "database_row",
      database_id: id,
      title: "Legacy row",
      properties: { Stage: "Shipped", score: 7, Labels: ["Red", "Green"], Summary: "text" },
    });
    expect(res.status).toBe(201);
    const expected = {
      name: "Legacy row",
      stage: { id: "Shipped", name: "Shipped", color: "green" },
      score: 7,
      labels: [
        { id: "l1", name: "Red", color: "default" },
        { id: "Green", name: "Green", color: "default" },
      ],
      summary: "text",
    };
    expect(await storedProperties(res.body.id)).toEqual(expected);
    expect(res.body.properties_by_name).toEqual({
      Name: "Legacy row",
      Stage: expected.stage,
      Score: 7,
      Labels: expected.labels,
      Summary: "text",
    });
    // Writing rows never turns into schema records.
    expect(await schemaRecords(id)).toEqual([]);
    expect((await getSchema(user, id)).body.legacy).toBe(true);
  });

  it.each([
    ["an unknown key", { Owner: "bob" }, "Owner", ["Name", "Stage", "Score", "Labels", "Summary"]],
    ["an unknown option", { Stage: "Launched" }, "Stage", ["Idea", "Shipped"]],
    ["a case-mismatched option", { Stage: "idea" }, "Stage", ["Idea", "Shipped"]],
    ["a case-mismatched multi-select option", { Labels: ["green"] }, "Labels", ["Red", "Green"]],
  ])(
    "refuses %s (400 naming it), storing nothing and leaving the schema inline",
    async (_c, properties, key, allowed) => {
      const user = await createUser();
      const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
      const before = await snapshot(id);
      const res = await postRow(user, id, properties);
      expectErrorBody(res, 400);
      expect(problemsOf(res)).toEqual([expect.objectContaining({ property: key, allowed })]);
      expect(await snapshot(id)).toEqual(before);
      expect(await storedRowIds(id)).toEqual([]);
    },
  );

  it("never takes an existing row's extra keys as schema", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const rowId = await insertBlock({
      type: "database_row",
      database_id: id,
      created_by: user.id,
      properties: { name: "Old row", owner: "bob", Priority: "high" },
    });
    const before = await snapshot(id);
    for (const properties of [{ owner: "alice" }, { Priority: "low" }]) {
      const res = await putPage(user, rowId, { properties });
      expectErrorBody(res, 400);
      expect(problemsOf(res)).toEqual([expect.objectContaining({ property: Object.keys(properties)[0] })]);
    }
    expectErrorBody(await postRow(user, id, { owner: "carol" }), 400);
    expect(await snapshot(id)).toEqual(before);
    // Known keys still write, leaving the old extras where they were.
    expect((await putPage(user, rowId, { properties: { Name: "Renamed" } })).status).toBe(200);
    expect(await storedProperties(rowId)).toEqual({ name: "Renamed", owner: "bob", Priority: "high" });
  });

  it("validates row PATCH through /api/v1/blocks against the inline schema", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const row = (await postRow(user, id, { Name: "r" })).body;
    const before = await storedRow(row.id);
    const refused = await api(`${BLOCKS}/${row.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { Stage: "x" } },
    });
    expectErrorBody(refused, 400);
    expect(await storedRow(row.id)).toEqual(before);
    const ok = await api(`${BLOCKS}/${row.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { Stage: "Idea" } },
    });
    expect(ok.status).toBe(200);
    expect(await storedProperties(row.id)).toEqual({
      name: "r",
      stage: { id: "Idea", name: "Idea", color: "default" },
    });
  });

  it("reads an inline schema keyed by property id (or name)", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, {
      p_title: { name: "Task", type: "title" },
      Priority: { type: "select", options: [{ id: "hi", name: "High", color: "red" }] },
      ignored: { name: "Formula", type: "formula" },
      broken: "not a definition",
    });
    const schema = await getSchema(user, id);
    expect(schema.body.properties.map((p) => [p.id, p.name, p.type])).toEqual([
      ["p_title", "Task", "title"],
      ["Priority", "Priority", "select"],
    ]);
    const row = await postPage(user, {
      type: "database_row",
      database_id: id,
      title: "T",
      properties: { Priority: "High" },
    });
    expect(row.status).toBe(201);
    expect(await storedProperties(row.body.id)).toEqual({
      p_title: "T",
      Priority: { id: "hi", name: "High", color: "red" },
    });
    expectErrorBody(await postRow(user, id, { Formula: "1+1" }), 400);
  });

  it("queries rows against the inline schema", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const idea = (await postRow(user, id, { Name: "a", Stage: "Idea" })).body;
    await postRow(user, id, { Name: "b", Stage: "Shipped" });
    const res = await queryRows(user, id, { filters: [{ property: "Stage", operator: "equals", value: "Idea" }] });
    expect(res.body.map((r) => r.id)).toEqual([idea.id]);
  });

  it("the first schema change writes the inline schema out as records", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, ARRAY_SCHEMA);
    const row = (await postRow(user, id, { Name: "kept", Stage: "Idea" })).body;
    const added = await addProperty(user, id, { name: "Due", type: "date" });
    expect(added.id).toMatch(PROP_ID);
    expect((await schemaRecords(id)).map((r) => [r.id, r.name, r.type])).toEqual([
      ["name", "Name", "title"],
      ["stage", "Stage", "select"],
      ["score", "Score", "number"],
      ["labels", "Labels", "multi_select"],
      ["summary", "Summary", "text"],
      [added.id, "Due", "date"],
    ]);
    const schema = await getSchema(user, id);
    expect(schema.body.legacy).toBe(false);
    expect(schema.body.properties.find((p) => p.id === "stage")?.options).toEqual([
      { id: "Idea", name: "Idea", color: "default" },
      { id: "Shipped", name: "Shipped", color: "green" },
    ]);
    expect((await getPage(user, row.id)).body.properties_by_name).toMatchObject({ Name: "kept", Due: null });
    expect((await putPage(user, row.id, { properties: { Due: "2024-01-02", Stage: "Shipped" } })).status).toBe(200);
  });

  it("a shared legacy database (created_by null) is usable by any user", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(null, ARRAY_SCHEMA);
    const res = await postRow(user, id, { Name: "mine", Score: 1 });
    expect(res.status).toBe(201);
    expect(res.body.created_by).toBe(user.id);
    expect(await storedProperties(res.body.id)).toEqual({ name: "mine", score: 1 });
  });
});
