import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { insertBlock, issuePaths } from "../../helpers/blocks";
import {
  createDatabase,
  createRow,
  queryRows,
  type Row,
  readDatabaseTarget,
  setupDatabaseTarget,
  type TestDatabase,
} from "../../helpers/databases";
import { createPage } from "../../helpers/pages";

describeAuthMatrix({
  name: "POST /api/v1/databases/{id}/query",
  method: "POST",
  path: (id) => `/api/v1/databases/${id}/query`,
  body: { filters: [{ property: "Status", operator: "equals", value: "Todo" }] },
  setup: setupDatabaseTarget,
  readBack: readDatabaseTarget,
});

const titles = (rows: Row[]) => rows.map((row) => row.properties_by_name.title);

/** Five rows covering each kind of value, created in this order (a..e). */
async function populated(user: TestUser) {
  const database = await createDatabase(user);
  const rows = {
    a: await createRow(user, database.id, {
      title: "a",
      Status: "Todo",
      Tags: ["Art"],
      Stage: "Not started",
      Priority: 3,
      Due: "2024-05-01",
      Urgent: true,
      Notes: "Alpha note",
    }),
    b: await createRow(user, database.id, {
      title: "b",
      Status: "Done",
      Tags: ["Artist"],
      Stage: "Complete",
      Priority: 10,
      Due: { start: "2024-05-31T23:00:00Z", end: "2024-06-02T10:00:00Z" },
      Urgent: false,
    }),
    c: await createRow(user, database.id, {
      title: "c",
      Status: "Doing",
      Tags: ["Art", "Music"],
      Stage: "In progress",
      Priority: -1.5,
      Due: "2024-06-15",
    }),
    d: await createRow(user, database.id, { title: "d", Tags: [], Priority: 3, Due: "2024-04-30" }),
    e: await createRow(user, database.id, { title: "e", Status: "Todo", Tags: ["Music"] }),
  };
  return { database, rows };
}

async function titlesFor(user: TestUser, database: TestDatabase, body: unknown) {
  const res = await queryRows(user, database.id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return titles(res.body);
}

describe("POST /api/v1/databases/{id}/query: no filters", () => {
  it("returns the active rows in position order with properties_by_name and X-Total-Count", async () => {
    const user = await createUser();
    const { database, rows } = await populated(user);
    await api(`/api/v1/pages/${rows.d.id}`, { method: "DELETE", auth: user });
    const res = await queryRows(user, database.id);
    expect(res.status).toBe(200);
    expect(titles(res.body)).toEqual(["a", "b", "c", "e"]);
    expect(res.headers.get("X-Total-Count")).toBe("4");
    expect(res.headers.get("X-Has-More")).toBe("false");
    expect(res.body[0]).toMatchObject({
      id: rows.a.id,
      type: "database_row",
      database_id: database.id,
      properties: rows.a.properties,
      properties_by_name: { title: "a", Status: database.option("Status", "Todo"), Priority: 3 },
    });
  });

  it("pages with limit and offset", async () => {
    const user = await createUser();
    const { database } = await populated(user);
    const first = await queryRows(user, database.id, { limit: 2 });
    const last = await queryRows(user, database.id, { limit: 2, offset: 4 });
    expect(titles(first.body)).toEqual(["a", "b"]);
    expect(first.headers.get("X-Total-Count")).toBe("5");
    expect(first.headers.get("X-Has-More")).toBe("true");
    expect(titles(last.body)).toEqual(["e"]);
    expect(last.headers.get("X-Has-More")).toBe("false");
  });

  it("leaves out rows owned by other users", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const { database } = await populated(user);
    await insertBlock({ type: "database_row", database_id: database.id, created_by: other.id, properties: {} });
    const res = await queryRows(user, database.id);
    expect(res.headers.get("X-Total-Count")).toBe("5");
  });
});

describe("POST /api/v1/databases/{id}/query: filters", () => {
  it.each([
    ["select equals by name", { property: "Status", operator: "equals", value: "Todo" }, ["a", "e"]],
    ["select equals by option id", { property: "Status", operator: "equals", value: "@Status/Done" }, ["b"]],
    [
      "select not_equals (empty included)",
      { property: "Status", operator: "not_equals", value: "Todo" },
      ["b", "c", "d"],
    ],
    ["status equals", { property: "Stage", operator: "equals", value: "In progress" }, ["c"]],
    ["select is_empty", { property: "Status", operator: "is_empty" }, ["d"]],
    [
      "multi-select contains by name, never a substring",
      { property: "Tags", operator: "contains", value: "Art" },
      ["a", "c"],
    ],
    ["multi-select contains the longer name", { property: "Tags", operator: "contains", value: "Artist" }, ["b"]],
    [
      "multi-select contains by option id",
      { property: "Tags", operator: "contains", value: "@Tags/Music" },
      ["c", "e"],
    ],
    [
      "multi-select contains by {id}",
      { property: "Tags", operator: "contains", value: { id: "@Tags/Art" } },
      ["a", "c"],
    ],
    ["multi-select not_contains", { property: "Tags", operator: "not_contains", value: "Art" }, ["b", "d", "e"]],
    ["multi-select is_empty", { property: "Tags", operator: "is_empty" }, ["d"]],
    ["multi-select is_not_empty", { property: "Tags", operator: "is_not_empty" }, ["a", "b", "c", "e"]],
    ["checkbox true", { property: "Urgent", operator: "equals", value: true }, ["a"]],
    ["checkbox false (unset included)", { property: "Urgent", operator: "equals", value: false }, ["b", "c", "d", "e"]],
    ["number equals", { property: "Priority", operator: "equals", value: 3 }, ["a", "d"]],
    [
      "number not_equals (empty included, as for every type)",
      { property: "Priority", operator: "not_equals", value: 3 },
      ["b", "c", "e"],
    ],
    [
      "text not_equals (empty included)",
      { property: "Notes", operator: "not_equals", value: "Alpha note" },
      ["b", "c", "d", "e"],
    ],
    ["text equals is exact, case included", { property: "Notes", operator: "equals", value: "alpha note" }, []],
    ["number greater_than", { property: "Priority", operator: "greater_than", value: 3 }, ["b"]],
    ["number less_than", { property: "Priority", operator: "less_than", value: 3 }, ["c"]],
    ["number is_empty", { property: "Priority", operator: "is_empty" }, ["e"]],
    ["date equals a day", { property: "Due", operator: "equals", value: "2024-05-01" }, ["a"]],
    ["date on_or_after a day", { property: "Due", operator: "on_or_after", value: "2024-05-31" }, ["b", "c"]],
    [
      "date on_or_before a day (whole day)",
      { property: "Due", operator: "on_or_before", value: "2024-05-31" },
      ["a", "b", "d"],
    ],
    ["date before", { property: "Due", operator: "before", value: "2024-05-01" }, ["d"]],
    ["date after", { property: "Due", operator: "after", value: "2024-06-01" }, ["c"]],
    ["date is_empty", { property: "Due", operator: "is_empty" }, ["e"]],
    ["text contains (case-insensitive)", { property: "Notes", operator: "contains", value: "ALPHA" }, ["a"]],
    ["title equals", { property: "title", operator: "equals", value: "c" }, ["c"]],
  ])("%s", async (_case, filter, expected) => {
    const user = await createUser();
    const { database } = await populated(user);
    // "@Prop/Option" stands for that option's id, which only exists once the database does.
    const resolve = (value: unknown): unknown => {
      if (typeof value === "string" && value.startsWith("@")) {
        const [prop, option] = value.slice(1).split("/") as [string, string];
        return database.option(prop, option).id;
      }
      if (value && typeof value === "object") return { id: resolve((value as { id: string }).id) };
      return value;
    };
    const value = "value" in filter ? { value: resolve(filter.value) } : {};
    expect(await titlesFor(user, database, { filters: [{ ...filter, ...value }] })).toEqual(expected);
  });

  it.each(["created_time", "last_edited_time"])("%s equals a day: rows of that UTC day", async (property) => {
    const user = await createUser();
    const database = await createDatabase(user);
    const column = property === "created_time" ? "created_at" : "updated_at";
    await insertBlock({ type: "database_row", database_id: database.id, created_by: user.id, properties: {} });
    await insertBlock({
      type: "database_row",
      database_id: database.id,
      created_by: user.id,
      properties: {},
      [column]: "2024-05-01T23:59:59.999Z",
    });
    await insertBlock({
      type: "database_row",
      database_id: database.id,
      created_by: user.id,
      properties: {},
      [column]: "2024-05-02T00:00:00.000Z",
    });
    const countFor = async (value: string) => {
      const res = await queryRows(user, database.id, { filters: [{ property, operator: "equals", value }] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.map((row) => row[column]);
    };
    expect(await countFor("2024-05-01")).toEqual(["2024-05-01T23:59:59.999Z"]);
    expect(await countFor("2024-05-02T12:00:00Z")).toEqual(["2024-05-02T00:00:00.000Z"]);
    expect(await countFor("2024-05-03")).toEqual([]);
  });

  it("combines filters with AND, and accepts property ids", async () => {
    const user = await createUser();
    const { database } = await populated(user);
    const filters = [
      { property: "Status", operator: "equals", value: "Todo" },
      { property: database.prop("Tags").id, operator: "contains", value: "Music" },
    ];
    expect(await titlesFor(user, database, { filters })).toEqual(["e"]);
    const res = await queryRows(user, database.id, { filters });
    expect(res.headers.get("X-Total-Count")).toBe("1");
  });

  it("a date range: on_or_after and on_or_before together", async () => {
    const user = await createUser();
    const { database } = await populated(user);
    const filters = [
      { property: "Due", operator: "on_or_after", value: "2024-05-01" },
      { property: "Due", operator: "on_or_before", value: "2024-05-31" },
    ];
    expect(await titlesFor(user, database, { filters })).toEqual(["a", "b"]);
  });

  it("compares date-times as instants, whatever offset they were written with", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    // 01:00+02:00 on May 1 is 23:00Z on April 30; 23:00-05:00 on April 30 is 04:00Z on May 1.
    const early = await createRow(user, database.id, { title: "early", Due: { start: "2024-05-01T01:00:00+02:00" } });
    const late = await createRow(user, database.id, { title: "late", Due: { start: "2024-04-30T23:00:00-05:00" } });
    const before = await queryRows(user, database.id, {
      filters: [{ property: "Due", operator: "before", value: "2024-05-01T00:00:00Z" }],
    });
    expect(before.body.map((r) => r.id)).toEqual([early.id]);
    const after = await queryRows(user, database.id, {
      filters: [{ property: "Due", operator: "after", value: "2024-05-01T00:00:00Z" }],
    });
    expect(after.body.map((r) => r.id)).toEqual([late.id]);
    const sorted = await queryRows(user, database.id, { sorts: [{ property: "Due", direction: "asc" }] });
    expect(sorted.body.map((r) => r.id)).toEqual([early.id, late.id]);
  });

  it("an option 'Art' never matches a row tagged only 'Artist'", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const artist = await createRow(user, database.id, { title: "artist", Tags: ["Artist"] });
    const art = await createRow(user, database.id, { title: "art", Tags: ["Art"] });
    const res = await queryRows(user, database.id, {
      filters: [{ property: "Tags", operator: "contains", value: "Art" }],
    });
    expect(res.body.map((r) => r.id)).toEqual([art.id]);
    expect(res.body.map((r) => r.id)).not.toContain(artist.id);
  });
});

describe("POST /api/v1/databases/{id}/query: sorts", () => {
  it.each([
    ["Priority asc (empty last)", [{ property: "Priority", direction: "asc" }], ["c", "a", "d", "b", "e"]],
    ["Priority desc (empty last)", [{ property: "Priority", direction: "desc" }], ["b", "a", "d", "c", "e"]],
    [
      "Priority desc then title desc",
      [
        { property: "Priority", direction: "desc" },
        { property: "title", direction: "desc" },
      ],
      ["b", "d", "a", "c", "e"],
    ],
    ["title desc", [{ property: "title", direction: "desc" }], ["e", "d", "c", "b", "a"]],
    ["Status by option name asc", [{ property: "Status" }], ["c", "b", "a", "e", "d"]],
    ["Due asc (start of a range)", [{ property: "Due", direction: "asc" }], ["d", "a", "b", "c", "e"]],
  ])("sorts by %s", async (_case, sorts, expected) => {
    const user = await createUser();
    const { database } = await populated(user);
    expect(await titlesFor(user, database, { sorts })).toEqual(expected);
  });
});

describe("POST /api/v1/databases/{id}/query: refusals", () => {
  it.each([
    [
      "an unknown property",
      { filters: [{ property: "Colour", operator: "equals", value: "x" }] },
      "filters[0].property",
    ],
    [
      "an operator that does not fit the type",
      { filters: [{ property: "Status", operator: "contains", value: "Todo" }] },
      "filters[0].operator",
    ],
    [
      "a number compared with a string",
      { filters: [{ property: "Priority", operator: "greater_than", value: "3" }] },
      "filters[0].value",
    ],
    [
      "a checkbox compared with a string",
      { filters: [{ property: "Urgent", operator: "equals", value: "true" }] },
      "filters[0].value",
    ],
    [
      "a date that is not a date",
      { filters: [{ property: "Due", operator: "after", value: "soon" }] },
      "filters[0].value",
    ],
    ["a sort by an unknown property", { sorts: [{ property: "Colour" }] }, "sorts[0].property"],
  ])("400 for %s, naming where", async (_case, body, path) => {
    const user = await createUser();
    const { database } = await populated(user);
    const res = await queryRows(user, database.id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { path } });
  });

  it.each([
    ["an unknown option", "Todoo"],
    ["a case-mismatched option", "todo"],
  ])("400 for %s of a select, listing the options", async (_case, value) => {
    const user = await createUser();
    const { database } = await populated(user);
    const res = await queryRows(user, database.id, { filters: [{ property: "Status", operator: "equals", value }] });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({
      details: { property: database.prop("Status").id, allowed: ["Todo", "Doing", "Done"] },
    });
  });

  it.each([5, null, true, ["Todo"]])("400 for the select value %j: an option name or id is a string", async (value) => {
    const user = await createUser();
    const { database } = await populated(user);
    const res = await queryRows(user, database.id, { filters: [{ property: "Status", operator: "equals", value }] });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({
      error: "Expected an option name or id of property 'Status'",
      details: { property: database.prop("Status").id, allowed: ["Todo", "Doing", "Done"] },
    });
  });

  it.each(["Ar", "art", "Artists"])("400 for the multi-select value %j: options match exactly", async (value) => {
    const user = await createUser();
    const { database } = await populated(user);
    const res = await queryRows(user, database.id, { filters: [{ property: "Tags", operator: "contains", value }] });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { allowed: ["Art", "Artist", "Music"] } });
  });

  it.each([
    ["an unknown operator", { filters: [{ property: "Status", operator: "like", value: "x" }] }, "filters.0.operator"],
    ["a filter without a property", { filters: [{ operator: "equals", value: "x" }] }, "filters.0.property"],
    ["an unknown sort direction", { sorts: [{ property: "title", direction: "up" }] }, "sorts.0.direction"],
    ["limit 0", { limit: 0 }, "limit"],
    ["a negative offset", { offset: -1 }, "offset"],
    ["an unknown field", { filter: [] }, ""],
  ])("400 with validation details for %s", async (_case, body, path) => {
    const user = await createUser();
    const { database } = await populated(user);
    const res = await queryRows(user, database.id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
  });

  it("404 for a page that is not a database, and for a missing id", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Page" });
    expectErrorBody(await queryRows(user, page.id, {}), 404);
    expectErrorBody(await queryRows(user, crypto.randomUUID(), {}), 404);
  });
});
