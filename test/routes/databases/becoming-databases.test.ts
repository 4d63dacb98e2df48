import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { createBlock } from "../../helpers/blocks";
import {
  addProperty,
  createDatabase,
  createRow,
  DEFAULT_COLUMNS,
  getSchema,
  insertLegacyDatabase,
  queryRows,
  schemaRecords,
} from "../../helpers/databases";

describe("a block that becomes a database gets its schema", () => {
  it.each(["convert", "patch"])("through %s: the default columns are written with the type change", async (how) => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Soon a database" } });
    const res =
      how === "convert"
        ? await api(`/api/v1/blocks/${page.id}/convert`, { method: "POST", auth: user, body: { type: "database" } })
        : await api(`/api/v1/blocks/${page.id}`, { method: "PATCH", auth: user, body: { type: "database" } });
    expect(res.status).toBe(200);
    expect((await schemaRecords(page.id)).map((record) => record.name)).toEqual(DEFAULT_COLUMNS.map((c) => c.name));
    // Rows can be written at once, their title going to the new title column.
    const row = await createRow(user, page.id, {}, { title: "First row" });
    expect(row.properties_by_name).toMatchObject({ title: "First row" });
  });

  it("a database patched again keeps its schema as it is", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Status", type: "text" }] });
    const before = await schemaRecords(database.id);
    const res = await api(`/api/v1/blocks/${database.id}`, { method: "PATCH", auth: user, body: { type: "database" } });
    expect(res.status).toBe(200);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it("duplicating a database copies its schema (same property ids) and its rows", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }, { name: "Done" }] }],
    });
    await createRow(user, database.id, { Status: "Done" }, { title: "Shipped" });

    const res = await api<{ id: string }>(`/api/v1/blocks/${database.id}/duplicate`, { method: "POST", auth: user });
    expect(res.status).toBe(201);
    const copy = res.body.id;
    const strip = (records: Awaited<ReturnType<typeof schemaRecords>>) =>
      records.map(({ database_id: _, ...record }) => record);
    expect(strip(await schemaRecords(copy))).toEqual(strip(await schemaRecords(database.id)));

    const rows = await queryRows(user, copy, { filters: [{ property: "Status", operator: "equals", value: "Done" }] });
    expect(rows.status).toBe(200);
    expect(rows.body.map((row) => row.properties_by_name.title)).toEqual(["Shipped"]);
    expect(rows.body[0]?.database_id).toBe(copy);
  });
});

describe("older inline schemas that reuse property ids", () => {
  it("two legacy databases with the same property id can both get schema changes", async () => {
    const user = await createUser();
    const schema = [
      { id: "name", name: "Name", type: "title" },
      { id: "status", name: "Status", type: "text" },
    ];
    const first = await insertLegacyDatabase(user.id, schema);
    const second = await insertLegacyDatabase(user.id, schema);
    await addProperty(user, first, { name: "Notes", type: "text" });
    await addProperty(user, second, { name: "Notes", type: "text" });
    for (const id of [first, second]) {
      const res = await getSchema(user, id);
      expect(res.body.legacy).toBe(false);
      expect(res.body.properties.map((p) => p.name)).toEqual(["Name", "Status", "Notes"]);
    }
  });

  it("a repeated id or name in an inline schema is skipped, not guessed", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, [
      { id: "name", name: "Name", type: "title" },
      { id: "a", name: "Same", type: "text" },
      { id: "b", name: "same", type: "number" },
      { id: "a", name: "Other", type: "checkbox" },
    ]);
    const res = await getSchema(user, id);
    expect(res.body.properties.map((p) => [p.id, p.name])).toEqual([
      ["name", "Name"],
      ["a", "Same"],
    ]);
    await addProperty(user, id, { name: "Notes", type: "text" });
    expect((await schemaRecords(id)).map((record) => record.id)).toEqual([
      "name",
      "a",
      expect.stringMatching(/^prop_/),
    ]);
  });
});
