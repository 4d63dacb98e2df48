import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { insertBlock } from "../../helpers/blocks";
import { createDatabase, createRow, insertLegacyDatabase, queryRows } from "../../helpers/databases";
import { listPages, PAGES, putPage, storedProperties } from "../../helpers/pages";

// Inputs at the edges of what SQLite and D1 accept: each must be served, or refused with a 400,
// never answered with a 500.

describe("row writes and queries at the edges", () => {
  it("replaces 120 property values of a row in one PUT (more than D1's 100 bound parameters)", async () => {
    const user = await createUser();
    const schema = Array.from({ length: 120 }, (_, i) => ({ id: `p${i}`, name: `Field ${i}`, type: "text" }));
    const databaseId = await insertLegacyDatabase(user.id, [{ id: "t", name: "Name", type: "title" }, ...schema]);
    const row = await createRow(user, databaseId, { Name: "Wide row" });
    const values = Object.fromEntries(schema.map((property) => [property.id, `value ${property.id}`]));

    const res = await putPage(user, row.id, { properties: values });
    expect(res.status).toBe(200);
    expect(await storedProperties(row.id)).toEqual({ t: "Wide row", ...values });
  });

  it("runs 20 date filters in one query (paths are not bound parameters)", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Due", type: "date" }] });
    const dated = await createRow(user, database.id, { Due: "2026-03-01" });
    await createRow(user, database.id, {});
    const filters = Array.from({ length: 20 }, () => ({ property: "Due", operator: "is_not_empty" }));
    const res = await queryRows(user, database.id, { filters });
    expect(res.status).toBe(200);
    expect(res.body.map((row) => row.id)).toEqual([dated.id]);
  });

  it("handles legacy property ids holding backslashes and quotes", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "t", name: "Name", type: "title" },
      { id: "a\\b", name: "When", type: "date" },
      { id: 'we"ird', name: "Odd", type: "text" },
    ]);
    const row = await createRow(user, databaseId, { Name: "x", When: { start: "2026-01-01", end: "2026-01-05" } });

    const res = await putPage(user, row.id, { properties: { When: { start: "2026-02-01" }, Odd: "kept" } });
    expect(res.status).toBe(200);
    // The new date value replaced the old one whole: no stale end before the new start.
    expect(await storedProperties(row.id)).toEqual({ t: "x", "a\\b": { start: "2026-02-01" }, 'we"ird': "kept" });
    const found = await queryRows(user, databaseId, { filters: [{ property: "When", operator: "is_not_empty" }] });
    expect(found.body.map((r) => r.id)).toEqual([row.id]);
  });

  it("filters legacy multi-select values stored as bare names", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "t", name: "Name", type: "title" },
      { id: "tags", name: "Tags", type: "multi_select", options: ["Art", "Artist"] },
    ]);
    const tagged = await insertBlock({
      type: "database_row",
      database_id: databaseId,
      created_by: user.id,
      properties: { t: "old", tags: ["Art"] },
    });
    await insertBlock({
      type: "database_row",
      database_id: databaseId,
      created_by: user.id,
      properties: { tags: ["Artist"] },
    });
    const res = await queryRows(user, databaseId, {
      filters: [{ property: "Tags", operator: "contains", value: "Art" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((row) => row.id)).toEqual([tagged]);
  });

  it("pages a row query with the same headers as the other listings", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const rows = [
      await createRow(user, database.id, {}, { title: "one" }),
      await createRow(user, database.id, {}, { title: "two" }),
    ];
    const res = await queryRows(user, database.id, { limit: 1, offset: 1 });
    expect(res.status).toBe(200);
    expect(res.body.map((row) => row.id)).toEqual([rows[1]?.id]);
    expect(res.headers.get("X-Total-Count")).toBe("2");
    expect(res.headers.get("X-Pagination-Limit")).toBe("1");
    expect(res.headers.get("X-Pagination-Offset")).toBe("1");
    expect(res.headers.get("X-Has-More")).toBe("false");
  });

  it("writes a row in at most 2 round trips: POST, PUT and PATCH each one read and one write", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const created = await api<{ id: string }>(PAGES, {
      method: "POST",
      auth: user,
      body: { type: "database_row", database_id: database.id, title: "Counted" },
    });
    expect(created.status).toBe(201);
    expect(created.queryRoundTrips).toBe(2); // schema, insert
    const updated = await putPage(user, created.body.id, { properties: { Notes: "n" } });
    expect(updated.status).toBe(200);
    expect(updated.queryRoundTrips).toBe(2); // the row with its schema, the update
    expect(updated.body.properties_by_name).toMatchObject({ title: "Counted", Notes: "n" });
    const patched = await api(`/api/v1/blocks/${created.body.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { Notes: "m" } },
    });
    expect(patched.status).toBe(200);
    expect(patched.queryRoundTrips).toBe(2); // the row with its schema, the update
  });

  it("refuses date filter values that are not ISO dates", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Due", type: "date" }] });
    for (const value of ["2026", "March 5, 2026", "2026-13-01"]) {
      const res = await queryRows(user, database.id, {
        filters: [{ property: "Due", operator: "on_or_after", value }],
      });
      expect(res.status, value).toBe(400);
      expect(res.body).toMatchObject({ details: { path: "filters[0].value" } });
    }
  });
});

describe("nesting limits", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "leaf";
    for (let i = 0; i < depth; i++) value = { inner: value };
    return value;
  };

  it("refuses properties or content nested past 64 levels with a 400, storing nothing", async () => {
    const user = await createUser();
    for (const body of [
      { type: "paragraph", properties: { deep: nested(100) } },
      { type: "paragraph", content: nested(1001) },
    ]) {
      const res = await api("/api/v1/blocks", { method: "POST", auth: user, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        details: { issues: [expect.objectContaining({ message: expect.stringContaining("64") })] },
      });
    }
    expect((await api<unknown[]>("/api/v1/blocks", { auth: user })).body).toEqual([]);
  });

  it("refuses markdown nested too deeply to convert with a 400", async () => {
    const user = await createUser();
    const res = await api(PAGES, {
      method: "POST",
      auth: user,
      body: { title: "Deep", content_markdown: ">".repeat(20_000) },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: { field: "content_markdown" } });
  });
});

describe("page listing titles", () => {
  it("never reads a row's title from a database the caller cannot see", async () => {
    const owner = await createUser();
    const reader = await createUser();
    const database = await createDatabase(owner, { properties: [] });
    // A shared row (visible to everyone) inside the owner's private database.
    const rowId = await insertBlock({
      type: "database_row",
      database_id: database.id,
      created_by: null,
      properties: { [database.prop("title").id]: "Secret plan" },
    });
    const listed = (await listPages(reader, "type=database_row")).body.find((page) => page.id === rowId);
    expect(listed).toBeDefined();
    expect(listed?.title).not.toBe("Secret plan");
  });
});

describe("property names that are special to JavaScript objects", () => {
  it("refuses a property named __proto__ (it cannot be a row's key without becoming its prototype)", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await api(`/api/v1/databases/${database.id}/properties`, {
      method: "POST",
      auth: user,
      body: { name: "__proto__", type: "text" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
    const renamed = await api(`/api/v1/databases/${database.id}/properties/${database.prop("title").id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "__proto__" },
    });
    expect(renamed.status).toBe(400);
  });

  it("refuses a name equal to another property's or option's id (409): it could never be reached by that name", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const status = database.prop("Status");
    const [todo, doing] = status.options;
    const base = `/api/v1/databases/${database.id}/properties`;
    const refused = [
      await api(base, { method: "POST", auth: user, body: { name: status.id, type: "text" } }),
      await api(`${base}/${database.prop("title").id}`, { method: "PATCH", auth: user, body: { name: status.id } }),
      await api(`${base}/${status.id}/options`, { method: "POST", auth: user, body: { name: todo?.id } }),
      await api(`${base}/${status.id}/options/${todo?.id}`, { method: "PATCH", auth: user, body: { name: doing?.id } }),
    ];
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body).toMatchObject({ code: "conflict" });
    }
    // A name of an id's form that is no id here is a name; a property may take its own id as its name.
    const near = await api(base, { method: "POST", auth: user, body: { name: "prop_0123456789abcdef", type: "text" } });
    expect(near.status).toBe(201);
    const own = await api(`${base}/${status.id}`, { method: "PATCH", auth: user, body: { name: status.id } });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it("refuses a name equal to an id an older inline schema gave, once it is records", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "name", name: "Name", type: "title" },
      { id: "Notes", name: "Remarks", type: "text" },
      { id: "stage", name: "Stage", type: "select", options: [{ id: "Done", name: "Finished" }, { name: "Idea" }] },
    ]);
    const base = `/api/v1/databases/${databaseId}/properties`;
    const added = await api(base, { method: "POST", auth: user, body: { name: "Notes", type: "text" } });
    expect(added.status, JSON.stringify(added.body)).toBe(409);
    expect(added.body).toMatchObject({ details: { name: "Notes", property_id: "Notes" } });
    const option = await api(`${base}/stage/options`, { method: "POST", auth: user, body: { name: "Done" } });
    expect(option.status, JSON.stringify(option.body)).toBe(409);
    expect(option.body).toMatchObject({ details: { name: "Done", option_id: "Done" } });
    // Rows and filters naming "Notes" still reach the property whose id it is.
    const row = await api<{ properties: Record<string, unknown> }>("/api/v1/pages", {
      method: "POST",
      auth: user,
      body: { type: "database_row", database_id: databaseId, properties: { Notes: "kept" } },
    });
    expect(row.status, JSON.stringify(row.body)).toBe(201);
    expect(row.body.properties.Notes).toBe("kept");
  });

  it("keeps a legacy property named __proto__ or constructor in properties_by_name", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "t", name: "Name", type: "title" },
      { id: "p", name: "__proto__", type: "text" },
      { id: "c", name: "constructor", type: "text" },
    ]);
    const row = await createRow(user, databaseId, { Name: "Row", p: "kept", c: "also kept" });
    const read = await api<{ properties_by_name: Record<string, unknown> }>(`${PAGES}/${row.id}`, { auth: user });
    expect(Object.getOwnPropertyNames(read.body.properties_by_name).sort()).toEqual([
      "Name",
      "__proto__",
      "constructor",
    ]);
    expect(read.body.properties_by_name.constructor).toBe("also kept");
    expect(Object.getOwnPropertyDescriptor(read.body.properties_by_name, "__proto__")?.value).toBe("kept");
  });
});
