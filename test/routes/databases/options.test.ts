import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { issuePaths } from "../../helpers/blocks";
import {
  createDatabase,
  createRow,
  DATABASES,
  OPT_ID,
  readDatabaseTarget,
  type SelectOption,
  schemaRecords,
  setupDatabaseTarget,
  type TestDatabase,
} from "../../helpers/databases";
import { getPage, putPage, storedProperties } from "../../helpers/pages";

const optionsPath = (databaseId: string, propertyId: string) =>
  `${DATABASES}/${databaseId}/properties/${propertyId}/options`;

const postOption = (user: TestUser, database: TestDatabase, property: string, body: unknown) =>
  api<SelectOption>(optionsPath(database.id, database.prop(property).id), { method: "POST", auth: user, body });

const patchOption = (user: TestUser, database: TestDatabase, property: string, option: string, body: unknown) =>
  api<SelectOption>(`${optionsPath(database.id, database.prop(property).id)}/${database.option(property, option).id}`, {
    method: "PATCH",
    auth: user,
    body,
  });

const deleteOption = (user: TestUser, database: TestDatabase, property: string, option: string) =>
  api(`${optionsPath(database.id, database.prop(property).id)}/${database.option(property, option).id}`, {
    method: "DELETE",
    auth: user,
  });

const optionsOf = async (database: TestDatabase, property: string) =>
  (await schemaRecords(database.id)).find((r) => r.id === database.prop(property).id)?.options;

/** Auth-matrix targets whose path names an option (or the options) of the owner's database. */
async function optionTarget(owner: TestUser) {
  const database = await setupDatabaseTarget(owner);
  const path = `${database.id}/properties/${database.prop("Status").id}/options`;
  return { id: `${path}/${database.option("Status", "Todo").id}`, optionsId: path, databaseId: database.id };
}
const readOptionTarget = (owner: TestUser, target: { databaseId: string }) =>
  readDatabaseTarget(owner, { id: target.databaseId });

describeAuthMatrix({
  name: "POST /api/v1/databases/{id}/properties/{property_id}/options",
  method: "POST",
  path: (id) => `${DATABASES}/${id.replace(/\/[^/]+$/, "")}`,
  body: { name: "Intruder" },
  setup: optionTarget,
  readBack: readOptionTarget,
});

describeAuthMatrix({
  name: "PATCH /api/v1/databases/{id}/properties/{property_id}/options/{option_id}",
  method: "PATCH",
  path: (id) => `${DATABASES}/${id}`,
  body: { name: "Renamed by intruder", color: "red" },
  setup: optionTarget,
  readBack: readOptionTarget,
});

describeAuthMatrix({
  name: "DELETE /api/v1/databases/{id}/properties/{property_id}/options/{option_id}",
  method: "DELETE",
  path: (id) => `${DATABASES}/${id}`,
  setup: optionTarget,
  readBack: readOptionTarget,
});

describe("POST .../properties/{property_id}/options", () => {
  it("adds an option (colour default unless given) and stores it", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postOption(user, database, "Status", { name: "Blocked", color: "red" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(OPT_ID), name: "Blocked", color: "red" });
    expect(await optionsOf(database, "Status")).toEqual([...database.prop("Status").options, res.body]);

    const plain = await postOption(user, database, "Tags", { name: "Poetry" });
    expect(plain.body).toMatchObject({ name: "Poetry", color: "default" });
  });

  it("makes the new option writable on rows", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row" });
    expectErrorBody(await putPage(user, row.id, { properties: { Stage: "Blocked" } }), 400);
    const option = (await postOption(user, database, "Stage", { name: "Blocked" })).body;
    expect((await putPage(user, row.id, { properties: { Stage: "Blocked" } })).status).toBe(200);
    expect((await storedProperties(row.id))?.[database.prop("Stage").id]).toEqual(option);
  });

  it("409 for an option name already taken, storing nothing", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await postOption(user, database, "Status", { name: "Done" });
    expectErrorBody(res, 409);
    expect(res.body).toMatchObject({ details: { name: "Done" } });
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it("400 for a property without options (text), storing nothing", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await postOption(user, database, "Notes", { name: "x" });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { property_id: database.prop("Notes").id, type: "text" } });
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it.each([
    ["no name", { color: "red" }, "name"],
    ["an empty name", { name: "" }, "name"],
    ["an unknown colour", { name: "x", color: "teal" }, "color"],
    ["an unknown field", { name: "x", id: "opt_mine" }, ""],
  ])("400 with validation details for %s, storing nothing", async (_case, body, path) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const before = await schemaRecords(database.id);
    const res = await postOption(user, database, "Status", body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await schemaRecords(database.id)).toEqual(before);
  });

  it("404 for a property that does not exist", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await api(optionsPath(database.id, "prop_0000000000000000"), {
      method: "POST",
      auth: user,
      body: { name: "x" },
    });
    expectErrorBody(res, 404);
  });
});

describe("PATCH .../options/{option_id}", () => {
  it("renames a select option: rows holding it show the new name, others are untouched", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const done = database.option("Status", "Done");
    const holder = await createRow(user, database.id, { title: "holder", Status: "Done" });
    const other = await createRow(user, database.id, { title: "other", Status: "Todo" });
    const otherBefore = await storedProperties(other.id);

    const res = await patchOption(user, database, "Status", "Done", { name: "Finished" });
    const renamed = { ...done, name: "Finished" };
    expect(res.status).toBe(200);
    expect(res.body).toEqual(renamed);
    expect(await optionsOf(database, "Status")).toEqual(
      database.prop("Status").options.map((o) => (o.id === done.id ? renamed : o)),
    );
    expect((await storedProperties(holder.id))?.[database.prop("Status").id]).toEqual(renamed);
    const read = await getPage(user, holder.id);
    expect(read.body.properties_by_name?.Status).toEqual(renamed);
    expect(await storedProperties(other.id)).toEqual(otherBefore);
    // The new name is what rows accept now.
    expectErrorBody(await putPage(user, other.id, { properties: { Status: "Done" } }), 400);
    expect((await putPage(user, other.id, { properties: { Status: "Finished" } })).status).toBe(200);
  });

  it("recolours a status option: rows holding it show the new colour", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "r", Stage: "In progress" });
    const res = await patchOption(user, database, "Stage", "In progress", { color: "orange" });
    const recoloured = { ...database.option("Stage", "In progress"), color: "orange" };
    expect(res.body).toEqual(recoloured);
    expect((await getPage(user, row.id)).body.properties_by_name?.Stage).toEqual(recoloured);
    expect((await storedProperties(row.id))?.[database.prop("Stage").id]).toEqual(recoloured);
  });

  it("renames and recolours a multi-select option inside each row's list, keeping the other options", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const [art, artist, music] = ["Art", "Artist", "Music"].map((name) => database.option("Tags", name)) as [
      SelectOption,
      SelectOption,
      SelectOption,
    ];
    const both = await createRow(user, database.id, { title: "both", Tags: ["Music", "Art"] });
    const artistOnly = await createRow(user, database.id, { title: "artist", Tags: ["Artist"] });

    const res = await patchOption(user, database, "Tags", "Art", { name: "Fine art", color: "brown" });
    const renamed = { ...art, name: "Fine art", color: "brown" };
    expect(res.body).toEqual(renamed);
    const tags = database.prop("Tags").id;
    expect((await storedProperties(both.id))?.[tags]).toEqual([music, renamed]);
    expect((await storedProperties(artistOnly.id))?.[tags]).toEqual([artist]);
    expect((await getPage(user, both.id)).body.properties_by_name?.Tags).toEqual([music, renamed]);
  });

  it("409 when renaming to another option's name, changing nothing", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    await createRow(user, database.id, { title: "r", Status: "Todo" });
    const before = await readDatabaseTarget(user, database);
    expectErrorBody(await patchOption(user, database, "Status", "Todo", { name: "Done" }), 409);
    expect(await readDatabaseTarget(user, database)).toEqual(before);
  });

  it.each([
    ["an empty body", {}, ""],
    ["an unknown colour", { color: "teal" }, "color"],
    ["an empty name", { name: "" }, "name"],
  ])("400 with validation details for %s, changing nothing", async (_case, body, path) => {
    const user = await createUser();
    const database = await createDatabase(user);
    await createRow(user, database.id, { title: "r", Status: "Todo" });
    const before = await readDatabaseTarget(user, database);
    const res = await patchOption(user, database, "Status", "Todo", body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
    expect(await readDatabaseTarget(user, database)).toEqual(before);
  });

  it("404 for an option of another property", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await api(
      `${optionsPath(database.id, database.prop("Status").id)}/${database.option("Tags", "Art").id}`,
      { method: "PATCH", auth: user, body: { name: "x" } },
    );
    expectErrorBody(res, 404);
  });
});

describe("DELETE .../options/{option_id}", () => {
  it("removes a select option and clears it from the rows holding it", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const holder = await createRow(user, database.id, { title: "holder", Status: "Doing", Priority: 1 });
    const other = await createRow(user, database.id, { title: "other", Status: "Todo" });
    const otherBefore = await storedProperties(other.id);

    const res = await deleteOption(user, database, "Status", "Doing");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect((await optionsOf(database, "Status"))?.map((o) => o.name)).toEqual(["Todo", "Done"]);
    expect(await storedProperties(holder.id)).toEqual({
      [database.prop("title").id]: "holder",
      [database.prop("Priority").id]: 1,
    });
    expect((await getPage(user, holder.id)).body.properties_by_name?.Status).toBeNull();
    expect(await storedProperties(other.id)).toEqual(otherBefore);
    expectErrorBody(await putPage(user, other.id, { properties: { Status: "Doing" } }), 400);
  });

  it("removes a multi-select option from each row's list, keeping the others", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const both = await createRow(user, database.id, { title: "both", Tags: ["Art", "Music"] });
    const artOnly = await createRow(user, database.id, { title: "art", Tags: ["Art"] });
    await deleteOption(user, database, "Tags", "Art");
    const tags = database.prop("Tags").id;
    expect((await storedProperties(both.id))?.[tags]).toEqual([database.option("Tags", "Music")]);
    expect((await storedProperties(artOnly.id))?.[tags]).toEqual([]);
  });

  it("removes and renames options in rows whose lists hold older plain strings beside them (was a 500)", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const tags = database.prop("Tags").id;
    const row = await createRow(user, database.id, { title: "mixed", Tags: ["Art", "Music"] });
    // An older row's list: the option as a bare string, a number and an object together.
    const music = database.option("Tags", "Music");
    const stored = (await storedProperties(row.id)) ?? {};
    await env.DB.prepare("UPDATE blocks SET properties = ? WHERE id = ?")
      .bind(JSON.stringify({ ...stored, [tags]: ["legacy text", music.id, 7, database.option("Tags", "Art")] }), row.id)
      .run();
    expect((await patchOption(user, database, "Tags", "Music", { name: "Sound" })).status).toBe(200);
    expect((await deleteOption(user, database, "Tags", "Art")).status).toBe(200);
    expect((await storedProperties(row.id))?.[tags]).toEqual(["legacy text", { ...music, name: "Sound" }, 7]);
  });

  it("400 for an option of a text property, and 404 for an option that does not exist", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const notes = await api(`${optionsPath(database.id, database.prop("Notes").id)}/opt_0000000000000000`, {
      method: "DELETE",
      auth: user,
    });
    expectErrorBody(notes, 400);
    const missing = await api(`${optionsPath(database.id, database.prop("Status").id)}/opt_0000000000000000`, {
      method: "DELETE",
      auth: user,
    });
    expectErrorBody(missing, 404);
    expect(await optionsOf(database, "Status")).toEqual(database.prop("Status").options);
  });
});
