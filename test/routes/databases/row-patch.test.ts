import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, insertBlock, storedRow } from "../../helpers/blocks";
import { createDatabase, createRow, setupDatabaseTarget, type TestDatabase } from "../../helpers/databases";
import { getPage, storedProperties } from "../../helpers/pages";

const patch = (user: TestUser, id: string, body: unknown) =>
  api<Block>(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body });

/** What the owner sees of a row, and the row as stored. */
async function readRowTarget(owner: TestUser, target: { id: string }) {
  const page = await getPage(owner, target.id);
  return { status: page.status, body: page.body, stored: await storedRow(target.id) };
}

describeAuthMatrix({
  name: "PATCH /api/v1/blocks/{id} (database row)",
  method: "PATCH",
  path: (id) => `${BLOCKS}/${id}`,
  body: { properties: { Status: "Done", Notes: "intruder" } },
  setup: async (owner) => ({ id: (await setupDatabaseTarget(owner)).rowId }),
  readBack: readRowTarget,
});

/**
 * A database and one of its rows that nobody owns (created_by NULL): the database is made
 * shared after creation so that its schema records exist, the row is written straight to D1.
 */
async function sharedRow(database: TestDatabase) {
  await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(database.id).run();
  const rowId = await insertBlock({
    type: "database_row",
    database_id: database.id,
    created_by: null,
    properties: {
      [database.prop("title").id]: "Shared row",
      [database.prop("Status").id]: database.option("Status", "Todo"),
      [database.prop("Notes").id]: "shared notes",
    },
  });
  return rowId;
}

describe("PATCH /api/v1/blocks/{id} on a database row", () => {
  it("merges only the validated patch and keeps the owner", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Status: "Todo", Notes: "keep me", Priority: 2 });

    const res = await patch(user, row.id, { properties: { Status: "Done" } });
    expect(res.status).toBe(200);
    const p = (name: string) => database.prop(name).id;
    const expected = {
      [p("title")]: "Row",
      [p("Status")]: database.option("Status", "Done"),
      [p("Notes")]: "keep me",
      [p("Priority")]: 2,
    };
    expect(res.body).toMatchObject({ properties: expected, created_by: user.id, last_edited_by: user.id });
    expect(await storedProperties(row.id)).toEqual(expected);
    expect(await storedRow(row.id)).toMatchObject({ created_by: user.id, created_at: row.created_at });
  });

  it("ignores created_by and last_edited_by given in the body", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row" });
    const res = await patch(user, row.id, {
      created_by: other.id,
      last_edited_by: other.id,
      properties: { Notes: "n" },
    });
    expect(res.status).toBe(200);
    expect(await storedRow(row.id)).toMatchObject({ created_by: user.id, last_edited_by: user.id });
  });

  it("keeps created_by NULL on a shared row patched by any user, merging only the patch", async () => {
    const [owner, editor] = [await createUser(), await createUser()];
    const database = await createDatabase(owner);
    const rowId = await sharedRow(database);

    const res = await patch(editor, rowId, { properties: { Status: "Doing", Priority: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created_by: null, last_edited_by: editor.id });
    const stored = await storedRow(rowId);
    expect(stored).toMatchObject({ created_by: null, last_edited_by: editor.id });
    expect(await storedProperties(rowId)).toEqual({
      [database.prop("title").id]: "Shared row",
      [database.prop("Status").id]: database.option("Status", "Doing"),
      [database.prop("Notes").id]: "shared notes",
      [database.prop("Priority").id]: 5,
    });
    const read = await getPage(editor, rowId);
    expect(read.body.properties_by_name).toMatchObject({ created_by: null, last_edited_by: editor.id, Priority: 5 });
  });

  it("refuses an invalid value on a shared row (400), leaving it unchanged", async () => {
    const [owner, editor] = [await createUser(), await createUser()];
    const database = await createDatabase(owner);
    const rowId = await sharedRow(database);
    const before = await storedRow(rowId);
    const res = await patch(editor, rowId, { properties: { Status: "todo", Notes: "fine" } });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({
      details: { errors: [{ property: "Status", allowed: ["Todo", "Doing", "Done"] }] },
    });
    expect(await storedRow(rowId)).toEqual(before);
  });

  it("refuses unknown keys and computed properties (400), leaving the row unchanged", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row" });
    const before = await storedRow(row.id);
    for (const properties of [{ Colour: "red" }, { created_by: "x" }, { Priority: "high" }]) {
      expectErrorBody(await patch(user, row.id, { properties }), 400);
    }
    expect(await storedRow(row.id)).toEqual(before);
  });

  it("validates against the new database when database_id changes in the same patch", async () => {
    const user = await createUser();
    const [from, to] = [
      await createDatabase(user),
      await createDatabase(user, { properties: [{ name: "Size", type: "number" }] }),
    ];
    const row = await createRow(user, from.id, { title: "Mover" });
    const before = await storedRow(row.id);
    expectErrorBody(await patch(user, row.id, { database_id: to.id, properties: { Status: "Done" } }), 400);
    expect(await storedRow(row.id)).toEqual(before);
    const moved = await patch(user, row.id, { database_id: to.id, properties: { Size: 3 } });
    expect(moved.status).toBe(200);
    expect(moved.body.database_id).toBe(to.id);
    expect((await storedProperties(row.id))?.[to.prop("Size").id]).toBe(3);
  });

  it("PATCH without properties (e.g. archiving) leaves the values alone", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Status: "Todo" });
    const before = await storedProperties(row.id);
    const res = await patch(user, row.id, { archived: true });
    expect(res.status).toBe(200);
    expect(await storedProperties(row.id)).toEqual(before);
    expect(await storedRow(row.id)).toMatchObject({ archived: 1, created_by: user.id });
  });
});
