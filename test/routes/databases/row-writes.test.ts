import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, storedRow } from "../../helpers/blocks";
import { createDatabase, createRow, PROP_ID, storedRowIds, type TestDatabase } from "../../helpers/databases";
import { getPage, postPage, putPage, storedProperties } from "../../helpers/pages";

interface RowProblem {
  property: string;
  name?: string;
  message: string;
  allowed?: string[];
}

const problemsOf = (res: ApiResponse): RowProblem[] =>
  (res.body as { details?: { errors?: RowProblem[] } }).details?.errors ?? [];

const postRow = (user: TestUser, databaseId: string, properties: unknown) =>
  postPage(user, { type: "database_row", database_id: databaseId, properties });

/** The stored keys of a row are canonical ids only. */
async function expectOnlyCanonicalKeys(id: string) {
  const stored = (await storedProperties(id)) ?? {};
  for (const key of Object.keys(stored)) expect(key).toMatch(PROP_ID);
}

const STATUS_OPTIONS = ["Todo", "Doing", "Done"];

describe("row writes: display-name aliases", () => {
  it("translates display names to canonical ids: only ids are stored, names are regenerated", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postRow(user, database.id, {
      title: "Write me",
      Status: "Doing",
      Tags: ["Art", "Music"],
      Stage: "Complete",
      Priority: 3,
      Due: "2024-06-01",
      Urgent: true,
      Notes: "free text",
    });
    expect(res.status).toBe(201);
    const p = (name: string) => database.prop(name).id;
    const expected = {
      [p("title")]: "Write me",
      [p("Status")]: database.option("Status", "Doing"),
      [p("Tags")]: [database.option("Tags", "Art"), database.option("Tags", "Music")],
      [p("Stage")]: database.option("Stage", "Complete"),
      [p("Priority")]: 3,
      [p("Due")]: "2024-06-01",
      [p("Urgent")]: true,
      [p("Notes")]: "free text",
    };
    expect(res.body.properties).toEqual(expected);
    expect(await storedProperties(res.body.id)).toEqual(expected);
    await expectOnlyCanonicalKeys(res.body.id);
    expect(res.body.properties_by_name).toEqual({
      title: "Write me",
      created_time: res.body.created_at,
      created_by: user.id,
      last_edited_time: res.body.updated_at,
      last_edited_by: user.id,
      Status: database.option("Status", "Doing"),
      Tags: [database.option("Tags", "Art"), database.option("Tags", "Music")],
      Stage: database.option("Stage", "Complete"),
      Priority: 3,
      Due: "2024-06-01",
      Urgent: true,
      Notes: "free text",
    });
    expect((await getPage(user, res.body.id)).body).toEqual(res.body);
  });

  it("accepts canonical ids and case-insensitive names alike", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, {
      TITLE: "Mixed",
      [database.prop("Priority").id]: 4,
      notes: "lower-case key",
    });
    expect(await storedProperties(row.id)).toEqual({
      [database.prop("title").id]: "Mixed",
      [database.prop("Priority").id]: 4,
      [database.prop("Notes").id]: "lower-case key",
    });
  });

  it("stores select values as {id, name, color} whether given by name, {name, color} or {id}", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const todo = database.option("Status", "Todo");
    for (const value of ["Todo", { name: "Todo", color: "blue" }, { id: todo.id }, { id: todo.id, name: "Todo" }]) {
      const row = await createRow(user, database.id, { Status: value });
      expect((await storedProperties(row.id))?.[database.prop("Status").id]).toEqual(todo);
      expect(row.properties_by_name?.Status).toEqual({ id: todo.id, name: "Todo", color: "red" });
    }
  });

  it("stores a multi-select as a list of options without duplicates", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const art = database.option("Tags", "Art");
    const row = await createRow(user, database.id, { Tags: ["Art", { id: art.id }, { name: "Artist" }] });
    expect((await storedProperties(row.id))?.[database.prop("Tags").id]).toEqual([
      art,
      database.option("Tags", "Artist"),
    ]);
  });

  it("translates aliases on PUT too, merging with the stored values; null clears a value", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Status: "Todo", Notes: "keep", Priority: 1 });
    const res = await putPage(user, row.id, { properties: { status: "Done", Priority: null, Urgent: false } });
    expect(res.status).toBe(200);
    const p = (name: string) => database.prop(name).id;
    const expected = {
      [p("title")]: "Row",
      [p("Status")]: database.option("Status", "Done"),
      [p("Notes")]: "keep",
      [p("Urgent")]: false,
    };
    expect(res.body.properties).toEqual(expected);
    expect(await storedProperties(row.id)).toEqual(expected);
    expect(res.body.properties_by_name).toMatchObject({ Status: expected[p("Status")], Priority: null, Urgent: false });
  });

  it("sets a row's title through PUT `title`", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createRow(user, database.id, { title: "Before" });
    const res = await putPage(user, row.id, { title: "After" });
    expect(res.body.properties).toEqual({ [database.prop("title").id]: "After" });
    expect(res.body.properties_by_name?.title).toBe("After");
  });

  it("validates and translates rows written through POST /api/v1/blocks", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await api<Block>(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "database_row", databaseId: database.id, properties: { title: "B", Status: "Done" } },
    });
    expect(res.status).toBe(201);
    expect(await storedProperties(res.body.id)).toEqual({
      [database.prop("title").id]: "B",
      [database.prop("Status").id]: database.option("Status", "Done"),
    });
    const refused = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "database_row", database_id: database.id, properties: { Status: "done" } },
    });
    expectErrorBody(refused, 400);
    expect(await storedRowIds(database.id)).toEqual([res.body.id]);
  });

  it("400 for a row created through POST /api/v1/blocks without database_id, storing nothing", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, { method: "POST", auth: user, body: { type: "database_row", properties: {} } });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "database_id" } });
  });
});

describe("row writes: controlled values", () => {
  async function refused(database: TestDatabase, user: TestUser, properties: Record<string, unknown>) {
    const res = await postRow(user, database.id, properties);
    expectErrorBody(res, 400);
    expect(await storedRowIds(database.id)).toEqual([]);
    return problemsOf(res);
  }

  it.each([
    ["an unknown select value", { Status: "Blocked" }, "Status", STATUS_OPTIONS],
    ["a case-mismatched select value", { Status: "done" }, "Status", STATUS_OPTIONS],
    ["a select value with a trailing space", { Status: "Done " }, "Status", STATUS_OPTIONS],
    ["an unknown status value", { Stage: "Finished" }, "Stage", ["Not started", "In progress", "Complete"]],
    ["a case-mismatched status value", { Stage: "complete" }, "Stage", ["Not started", "In progress", "Complete"]],
    ["an unknown multi-select value", { Tags: ["Art", "Sculpture"] }, "Tags", ["Art", "Artist", "Music"]],
    ["a case-mismatched multi-select value", { Tags: ["art"] }, "Tags", ["Art", "Artist", "Music"]],
    ["a substring of a multi-select option", { Tags: ["Artis"] }, "Tags", ["Art", "Artist", "Music"]],
    ["an unknown option id", { Status: { id: "opt_0000000000000000" } }, "Status", STATUS_OPTIONS],
  ])(
    "refuses %s (400 naming the property and its options), storing nothing",
    async (_case, properties, name, allowed) => {
      const user = await createUser();
      const database = await createDatabase(user);
      const problems = await refused(database, user, properties);
      expect(problems).toEqual([{ property: name, name, message: expect.any(String), allowed }]);
    },
  );

  it("points a case mismatch at the option meant", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const [problem] = await refused(database, user, { Status: "done" });
    expect(problem?.message).toContain("'Done'");
  });

  it("refuses case-mismatched values through PUT, leaving the row unchanged", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Status: "Todo" });
    const before = await storedRow(row.id);
    const res = await putPage(user, row.id, { properties: { Status: "DONE", Notes: "would be fine" } });
    expectErrorBody(res, 400);
    expect(problemsOf(res)).toEqual([
      { property: "Status", name: "Status", message: expect.any(String), allowed: STATUS_OPTIONS },
    ]);
    expect(await storedRow(row.id)).toEqual(before);
  });

  it("lists every property at fault at once", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const problems = await refused(database, user, {
      Status: "Nope",
      Priority: "3",
      Urgent: "yes",
      Colour: "red",
      created_time: "2024-01-01",
    });
    expect(problems.map((p) => p.property).sort()).toEqual(["Colour", "Priority", "Status", "Urgent", "created_time"]);
  });

  it.each([
    ["a number given as a string", { Priority: "3" }, "Priority"],
    ["a checkbox given as a string", { Urgent: "true" }, "Urgent"],
    ["text given as a number", { Notes: 5 }, "Notes"],
    ["a title given as an object", { title: { text: "x" } }, "title"],
    ["a multi-select given as one name", { Tags: "Art" }, "Tags"],
    ["a select given as a number", { Status: 1 }, "Status"],
    ["a computed property", { created_by: "someone" }, "created_by"],
    ["a computed property by id", { last_edited_time: "2024-01-01" }, "last_edited_time"],
  ])("refuses %s (400 naming it), storing nothing", async (_case, properties, key) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const problems = await refused(database, user, properties);
    expect(problems).toEqual([expect.objectContaining({ property: key, message: expect.any(String) })]);
  });

  it("refuses a url value no export would link, through POST and PUT, changing nothing; keeps safe ones", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Site", type: "url" }] });
    for (const link of ["javascript:alert(1)", " JAVASCRIPT:alert(1)", "data:text/html,x", "file:///etc/passwd"]) {
      const problems = await refused(database, user, { Site: link });
      expect(problems).toEqual([
        expect.objectContaining({ property: "Site", message: expect.stringContaining("link") }),
      ]);
    }
    const row = await createRow(user, database.id, { Site: "https://example.com" }, { title: "Row" });
    const before = await storedRow(row.id);
    expectErrorBody(await putPage(user, row.id, { properties: { Site: "javascript:alert(1)" } }), 400);
    expect(await storedRow(row.id)).toEqual(before);
    for (const link of ["http://example.com", "mailto:a@example.com", "tel:+15550100", "example.com/page"]) {
      const res = await putPage(user, row.id, { properties: { Site: link } });
      expect(res.status).toBe(200);
      expect((await storedProperties(row.id))?.[database.prop("Site").id]).toBe(link);
    }
  });

  it("refuses an unknown key, listing the writable property names", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const problems = await refused(database, user, { Colour: "red" });
    expect(problems).toEqual([
      {
        property: "Colour",
        message: expect.any(String),
        allowed: ["title", "Status", "Tags", "Stage", "Priority", "Due", "Urgent", "Notes"],
      },
    ]);
  });

  it("refuses the same property given by id and by name", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const problems = await refused(database, user, { [database.prop("Notes").id]: "a", Notes: "b" });
    expect(problems).toEqual([expect.objectContaining({ property: "Notes", name: "Notes" })]);
  });

  it("refuses `title` given both as the field and as a property with another value", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const res = await postPage(user, {
      type: "database_row",
      database_id: database.id,
      title: "One",
      properties: { title: "Two" },
    });
    expectErrorBody(res, 400);
    expect(await storedRowIds(database.id)).toEqual([]);
  });
});
