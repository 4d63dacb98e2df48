import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { type Block, insertBlock, issuePaths } from "../../helpers/blocks";
import {
  addProperty,
  createDatabase,
  createRow,
  DATABASES,
  DEFAULT_COLUMNS,
  getSchema,
  OPT_ID,
  PROP_ID,
  type Property,
  postProperty,
  readDatabaseTarget,
  schemaRecords,
  setupDatabaseTarget,
  storedRows,
} from "../../helpers/databases";
import { createPage, getPage, postPage, putPage, storedProperties } from "../../helpers/pages";

const patchProperty = (user: TestUser, databaseId: string, propertyId: string, body: unknown) =>
  api<Property>(`${DATABASES}/${databaseId}/properties/${propertyId}`, { method: "PATCH", auth: user, body });

const deleteProperty = (user: TestUser, databaseId: string, propertyId: string) =>
  api(`${DATABASES}/${databaseId}/properties/${propertyId}`, { method: "DELETE", auth: user });

/** Auth-matrix target whose path names one property of the owner's database. */
async function propertyTarget(owner: TestUser) {
  const database = await setupDatabaseTarget(owner);
  return { id: `${database.id}/properties/${database.prop("Notes").id}`, databaseId: database.id };
}
const readPropertyTarget = (owner: TestUser, target: { databaseId: string }) =>
  readDatabaseTarget(owner, { id: target.databaseId });

describeAuthMatrix({
  name: "GET /api/v1/databases/{id}/schema",
  method: "GET",
  path: (id) => `${DATABASES}/${id}/schema`,
  setup: setupDatabaseTarget,
  readBack: readDatabaseTarget,
});

describeAuthMatrix({
  name: "POST /api/v1/databases/{id}/properties",
  method: "POST",
  path: (id) => `${DATABASES}/${id}/properties`,
  body: { name: "Intruder", type: "text" },
  setup: setupDatabaseTarget,
  readBack: readDatabaseTarget,
});

describeAuthMatrix({
  name: "PATCH /api/v1/databases/{id}/properties/{property_id}",
  method: "PATCH",
  path: (id) => `${DATABASES}/${id}`,
  body: { name: "Renamed by intruder" },
  setup: propertyTarget,
  readBack: readPropertyTarget,
});

describeAuthMatrix({
  name: "DELETE /api/v1/databases/{id}/properties/{property_id}",
  method: "DELETE",
  path: (id) => `${DATABASES}/${id}`,
  setup: propertyTarget,
  readBack: readPropertyTarget,
});

function expectDefaultRecords(records: Awaited<ReturnType<typeof schemaRecords>>, databaseId: string) {
  expect(records).toEqual(
    DEFAULT_COLUMNS.map((column, position) => ({
      id: expect.stringMatching(PROP_ID),
      database_id: databaseId,
      ...column,
      options: [],
      position,
    })),
  );
  expect(new Set(records.map((r) => r.id)).size).toBe(5);
}

describe("creating a database writes its default schema records", () => {
  it.each([
    ["POST /api/v1/pages", "/api/v1/pages"],
    ["POST /api/pages", "/api/pages"],
    ["POST /api/v1/blocks", "/api/v1/blocks"],
    ["POST /api/blocks", "/api/blocks"],
  ])("through %s", async (_name, path) => {
    const user = await createUser();
    const res = await api<Block>(path, {
      method: "POST",
      auth: user,
      body: { type: "database", ...(path.includes("pages") ? { title: "Db" } : { properties: { title: "Db" } }) },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: "database", properties: { title: "Db" } });
    const records = await schemaRecords(res.body.id);
    expectDefaultRecords(records, res.body.id);

    const schema = await getSchema(user, res.body.id);
    expect(schema.status).toBe(200);
    expect(schema.body).toEqual({
      database_id: res.body.id,
      legacy: false,
      properties: records.map(({ database_id: _, ...property }) => property),
    });
  });

  it("gives each database its own property ids", async () => {
    const user = await createUser();
    const a = await createPage(user, { type: "database", title: "A" });
    const b = await createPage(user, { type: "database", title: "B" });
    const ids = [...(await schemaRecords(a.id)), ...(await schemaRecords(b.id))].map((r) => r.id);
    expect(new Set(ids).size).toBe(10);
  });

  it("writes no schema records for a page or a row", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Plain" });
    expect(await schemaRecords(page.id)).toEqual([]);
    const database = await createPage(user, { type: "database", title: "Db" });
    const row = await createPage(user, { type: "database_row", database_id: database.id, title: "r" });
    expect(await schemaRecords(row.id)).toEqual([]);
  });

  it("a refused database create (id already taken, 409) adds no schema records", async () => {
    const user = await createUser();
    const id = `db-${crypto.randomUUID()}`;
    await createPage(user, { id, type: "database", title: "First" });
    const before = await schemaRecords(id);
    const res = await postPage(user, { id, type: "database", title: "Second" });
    expectErrorBody(res, 409);
    expect(await schemaRecords(id)).toEqual(before);
    expect(await storedProperties(id)).toEqual({ title: "First" });
  });
});

describe("GET /api/v1/databases/{id}/schema", () => {
  it("lists the properties in schema order with their options", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await getSchema(user, database.id);
    expect(res.body.properties.map((p) => [p.name, p.type, p.position])).toEqual([
      ["title", "title", 0],
      ["created_time", "created_time", 1],
      ["created_by", "created_by", 2],
      ["last_edited_time", "last_edited_time", 3],
      ["last_edited_by", "last_edited_by", 4],
      ["Status", "select", 5],
      ["Tags", "multi_select", 6],
      ["Stage", "status", 7],
      ["Priority", "number", 8],
      ["Due", "date", 9],
      ["Urgent", "checkbox", 10],
      ["Notes", "text", 11],
    ]);
    expect(database.prop("Status").options).toEqual([
      { id: expect.stringMatching(OPT_ID), name: "Todo", color: "red" },
      { id: expect.stringMatching(OPT_ID), name: "Doing", color: "yellow" },
      { id: expect.stringMatching(OPT_ID), name: "Done", color: "green" },
    ]);
  });

  it("404 for a page that is not a database, and for a missing id", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Page" });
    expectErrorBody(await getSchema(user, page.id), 404);
    expectErrorBody(await getSchema(user, crypto.randomUUID()), 404);
  });

  it("404 for a provider_audit_log block", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "provider_audit_log", created_by: user.id });
    expectErrorBody(await getSchema(user, id), 404);
  });
});

describe("POST /api/v1/databases/{id}/properties", () => {
  it("adds a select property with option ids, stores it and places it last", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const res = await postProperty(user, database.id, {
      name: "Priority",
      type: "select",
      options: [{ name: "High", color: "red" }, { name: "Low" }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(PROP_ID),
      name: "Priority",
      type: "select",
      options: [
        { id: expect.stringMatching(OPT_ID), name: "High", color: "red" },
        { id: expect.stringMatching(OPT_ID), name: "Low", color: "default" },
      ],
      position: 5,
    });
    const records = await schemaRecords(database.id);
    expect(records.at(-1)).toEqual({ ...res.body, database_id: database.id });
    expect((await getSchema(user, database.id)).body.properties.at(-1)).toEqual(res.body);
  });

  it.each([
    "text",
    "number",
    "multi_select",
    "status",
    "date",
    "checkbox",
    "url",
    "email",
    "phone_number",
    "created_time",
    "last_edited_by",
  ])("adds a %s property", async (type) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const property = await addProperty(user, database.id, { name: `A ${type}`, type });
    expect(property).toMatchObject({ name: `A ${type}`, type, options: [] });
    expect((await schemaRecords(database.id)).map((r) => r.type)).toContain(type);
  });

  it("trims the name", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const property = await addProperty(user, database.id, { name: "  Spaced  ", type: "text" });
    expect(property.name).toBe("Spaced");
  });

  it("shows the new property in existing rows as null", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createRow(user, database.id, { title: "Existing" });
    await addProperty(user, database.id, { name: "Later", type: "text" });
    expect((await getPage(user, row.id)).body.properties_by_name).toMatchObject({ title: "Existing", Later: null });
  });

  it.each([
    ["the same name", "Status"],
    ["the same name in another case", "status"],
    ["the title's name in another case", "TITLE"],
    ["a default column's name", "Created_Time"],
  ])("409 for %s, storing nothing", async (_case, name) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Status", type: "text" }] });
    const before = await schemaRecords(database.id);
    const res = await postProperty(user, database.id, { name, type: "number" });
    expectErrorBody(res, 409);
    expect(res.body).toMatchObject({ details: { name } });
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it.each([
    ["a second title property", { name: "Another", type: "title" }, "type"],
    ["options on a text property", { name: "T", type: "text", options: [{ name: "a" }] }, "type"],
    ["duplicate option names", { name: "S", type: "select", options: [{ name: "a" }, { name: "a" }] }, "name"],
  ])("400 with details for %s, storing nothing", async (_case, body, detail) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const before = await schemaRecords(database.id);
    const res = await postProperty(user, database.id, body);
    expectErrorBody(res, 400);
    expect((res.body as unknown as { details: Record<string, unknown> }).details).toHaveProperty(detail);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it.each([
    ["an unknown type", { name: "X", type: "formula" }, "type"],
    ["a missing type", { name: "X" }, "type"],
    ["an empty name", { name: "", type: "text" }, "name"],
    ["a blank name", { name: "   ", type: "text" }, "name"],
    ["an unknown colour", { name: "S", type: "select", options: [{ name: "a", color: "teal" }] }, "options.0.color"],
    ["an option without a name", { name: "S", type: "select", options: [{ color: "red" }] }, "options.0.name"],
    ["an unknown field", { name: "X", type: "text", hidden: true }, ""],
  ])("400 with validation details for %s, storing nothing", async (_case, body, path) => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const before = await schemaRecords(database.id);
    const res = await postProperty(user, database.id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it("404 for a page that is not a database", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Page" });
    expectErrorBody(await postProperty(user, page.id, { name: "X", type: "text" }), 404);
    expect(await schemaRecords(page.id)).toEqual([]);
  });
});

describe("PATCH /api/v1/databases/{id}/properties/{property_id}", () => {
  it("renames a property: rows show the value under the new name, stored ids unchanged", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Notes: "kept" });
    const storedBefore = await storedProperties(row.id);
    const notes = database.prop("Notes");

    const res = await patchProperty(user, database.id, notes.id, { name: "Remarks" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...notes, name: "Remarks" });
    expect((await schemaRecords(database.id)).find((r) => r.id === notes.id)?.name).toBe("Remarks");
    expect(await storedProperties(row.id)).toEqual(storedBefore);
    const named = (await getPage(user, row.id)).body.properties_by_name;
    expect(named).toMatchObject({ Remarks: "kept" });
    expect(named).not.toHaveProperty("Notes");

    // Writes follow the new name; the old one is no longer a property.
    expect((await putPage(user, row.id, { properties: { Remarks: "new" } })).status).toBe(200);
    expectErrorBody(await putPage(user, row.id, { properties: { Notes: "old name" } }), 400);
    expect((await storedProperties(row.id))?.[notes.id]).toBe("new");
  });

  it("renames the title property; `title` still addresses it", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const title = database.prop("title");
    expect((await patchProperty(user, database.id, title.id, { name: "Name" })).status).toBe(200);
    const row = await createRow(user, database.id, { title: "By alias" });
    expect(row.properties).toEqual({ [title.id]: "By alias" });
    expect(row.properties_by_name).toMatchObject({ Name: "By alias" });
  });

  it("the `title` field of a row still goes to the title property when another property is named Title", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const title = database.prop("title");
    expect((await patchProperty(user, database.id, title.id, { name: "Name" })).status).toBe(200);
    const subtitle = await addProperty(user, database.id, { name: "Title", type: "text" });

    const row = await postPage(user, { type: "database_row", database_id: database.id, title: "Row name" });
    expect(row.status).toBe(201);
    expect(await storedProperties(row.body.id)).toEqual({ [title.id]: "Row name" });
    const put = await putPage(user, row.body.id, { title: "Renamed row" });
    expect(put.status).toBe(200);
    expect(await storedProperties(row.body.id)).toEqual({ [title.id]: "Renamed row" });
    // The display name still addresses the text property.
    await putPage(user, row.body.id, { properties: { Title: "subtitle" } });
    expect(await storedProperties(row.body.id)).toEqual({ [title.id]: "Renamed row", [subtitle.id]: "subtitle" });
  });

  it("renames a property to its own name in another case", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "notes", type: "text" }] });
    const res = await patchProperty(user, database.id, database.prop("notes").id, { name: "Notes" });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Notes");
  });

  it("retypes a property keeping stored values; new writes follow the new type", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Notes: "words" });
    const notes = database.prop("Notes");
    const res = await patchProperty(user, database.id, notes.id, { type: "number" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...notes, type: "number" });
    expect((await storedProperties(row.id))?.[notes.id]).toBe("words");

    const refused = await putPage(user, row.id, { properties: { Notes: "more words" } });
    expectErrorBody(refused, 400);
    expect((await storedProperties(row.id))?.[notes.id]).toBe("words");
    expect((await putPage(user, row.id, { properties: { Notes: 7 } })).status).toBe(200);
    expect((await storedProperties(row.id))?.[notes.id]).toBe(7);
  });

  it("keeps options when retyping among select-like types, and drops them otherwise", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const status = database.prop("Status");
    const multi = await patchProperty(user, database.id, status.id, { type: "multi_select" });
    expect(multi.body.options).toEqual(status.options);
    const text = await patchProperty(user, database.id, status.id, { type: "text" });
    expect(text.body.options).toEqual([]);
    expect((await schemaRecords(database.id)).find((r) => r.id === status.id)).toMatchObject({
      type: "text",
      options: [],
    });
  });

  it.each([
    ["another property's name", { name: "status" }],
    ["the title's name", { name: "Title" }],
  ])("409 when renaming to %s, changing nothing", async (_case, body) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await patchProperty(user, database.id, database.prop("Notes").id, body);
    expectErrorBody(res, 409);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it.each([
    ["retyping the title", "title", { type: "text" }],
    ["retyping a property to title", "Notes", { type: "title" }],
    ["retyping a computed property to a stored type", "created_time", { type: "date" }],
    ["retyping a stored property to a computed type", "Due", { type: "created_time" }],
  ])("400 for %s, changing nothing", async (_case, name, body) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await patchProperty(user, database.id, database.prop(name).id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { property_id: database.prop(name).id } });
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it.each([
    ["an empty body", {}, ""],
    ["an unknown type", { type: "formula" }, "type"],
    ["an empty name", { name: "" }, "name"],
    ["an unknown field", { name: "X", options: [] }, ""],
  ])("400 with validation details for %s", async (_case, body, path) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await patchProperty(user, database.id, database.prop("Notes").id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it("404 for a property of another database", async () => {
    const user = await createUser();
    const [a, b] = [await createDatabase(user), await createDatabase(user, { properties: [] })];
    const res = await patchProperty(user, b.id, a.prop("Notes").id, { name: "Moved" });
    expectErrorBody(res, 404);
    expect((await schemaRecords(a.id)).find((r) => r.id === a.prop("Notes").id)?.name).toBe("Notes");
  });
});

describe("DELETE /api/v1/databases/{id}/properties/{property_id}", () => {
  it("removes the property and its values from every row", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const notes = database.prop("Notes");
    const first = await createRow(user, database.id, { title: "one", Notes: "a", Priority: 1 });
    const second = await createRow(user, database.id, { title: "two", Notes: "b" });
    const third = await createRow(user, database.id, { title: "three" });

    const res = await deleteProperty(user, database.id, notes.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect((await schemaRecords(database.id)).map((r) => r.id)).not.toContain(notes.id);
    expect(await storedRows(database.id)).toEqual({
      [first.id]: { [database.prop("title").id]: "one", [database.prop("Priority").id]: 1 },
      [second.id]: { [database.prop("title").id]: "two" },
      [third.id]: { [database.prop("title").id]: "three" },
    });
    expect((await getPage(user, first.id)).body.properties_by_name).not.toHaveProperty("Notes");
    expectErrorBody(await putPage(user, first.id, { properties: { [notes.id]: "again" } }), 400);
  });

  it("400 for the title property, changing nothing", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    await createRow(user, database.id, { title: "Keep" });
    const before = await readDatabaseTarget(user, database);
    const res = await deleteProperty(user, database.id, database.prop("title").id);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { property_id: database.prop("title").id } });
    expect(await readDatabaseTarget(user, database)).toEqual(before);
  });

  it("404 for a property that does not exist", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    expectErrorBody(await deleteProperty(user, database.id, "prop_0000000000000000"), 404);
    expect(await schemaRecords(database.id)).toHaveLength(5);
  });
});
