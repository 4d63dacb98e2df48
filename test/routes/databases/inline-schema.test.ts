import { describe, expect, it } from "vitest";
import { MAX_OPTIONS, MAX_PROPERTIES } from "../../../src/services/databases/property-types";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, createBlock, storedRow } from "../../helpers/blocks";
import {
  createRow,
  DEFAULT_COLUMNS,
  getSchema,
  insertLegacyDatabase,
  OPT_ID,
  PROP_ID,
  schemaRecords,
} from "../../helpers/databases";
import { countOwnedBlocks, postPage, storedProperties } from "../../helpers/pages";

// A database written with an inline `properties.schema` (contract, Block rules 4 and 8): its
// properties become schema records, ids kept, beside the default columns; the inline schema is
// not kept. An older database with an inline schema and no records still reads it (legacy.test.ts).

const COMPUTED = DEFAULT_COLUMNS.slice(1).map((column) => [column.name, column.type]);

const issuesOf = (res: ApiResponse) =>
  (res.body as { details?: { issues?: { path: string; code: string }[] } }).details?.issues ?? [];

const createDatabase = (user: TestUser, schema: unknown, via: "pages" | "blocks" = "pages") =>
  via === "pages"
    ? postPage(user, { type: "database", title: "Inline", properties: { schema } })
    : api<Block>(BLOCKS, {
        method: "POST",
        auth: user,
        body: { type: "database", properties: { title: "Inline", schema } },
      });

const recordsOf = async (id: string) =>
  (await schemaRecords(id)).map((record) => [record.id, record.name, record.type, record.position]);

describe("a database created with an inline properties.schema", () => {
  it.each(["pages", "blocks"] as const)(
    "through %s: its properties become records (ids kept) beside the default columns; a row with a title lands",
    async (via) => {
      const user = await createUser();
      const res = await createDatabase(
        user,
        [
          { id: "status", name: "Status", type: "select", options: ["Todo", { name: "Done", color: "green" }] },
          { id: "score", name: "Score", type: "number" },
          { name: "Summary", type: "rich_text" },
        ],
        via,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const id = res.body.id;
      expect(res.body.properties).toEqual({ title: "Inline" });
      expect(await storedProperties(id)).toEqual({ title: "Inline" });

      const schema = await getSchema(user, id);
      expect(schema.body.legacy).toBe(false);
      expect(schema.body.properties.map((p) => [p.id, p.name, p.type])).toEqual([
        [expect.stringMatching(PROP_ID), "title", "title"],
        ["status", "Status", "select"],
        ["score", "Score", "number"],
        [expect.stringMatching(PROP_ID), "Summary", "text"],
        ...COMPUTED.map(([name, type]) => [expect.stringMatching(PROP_ID), name, type]),
      ]);
      expect(schema.body.properties.map((p) => p.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(schema.body.properties[1]?.options).toEqual([
        { id: expect.stringMatching(OPT_ID), name: "Todo", color: "default" },
        { id: expect.stringMatching(OPT_ID), name: "Done", color: "green" },
      ]);

      const row = await createRow(user, id, { Status: "Done", score: 3 }, { title: "First" });
      expect(row.properties_by_name).toMatchObject({ title: "First", Status: { name: "Done" }, Score: 3 });
      expect(Object.keys((await storedProperties(row.id)) ?? {}).sort()).toEqual(
        [schema.body.properties[0]?.id, "score", "status"].sort(),
      );
    },
  );

  it("an inline title property is the database's title, whatever its name; the object form keys by id", async () => {
    const user = await createUser();
    const res = await createDatabase(user, {
      name: { name: "Name", type: "title" },
      due: { name: "Due", type: "date" },
      made: { name: "Made", type: "created_time" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await recordsOf(res.body.id)).toEqual([
      ["name", "Name", "title", 0],
      ["due", "Due", "date", 1],
      ["made", "Made", "created_time", 2],
      ...COMPUTED.slice(1).map(([name, type], i) => [expect.stringMatching(PROP_ID), name, type, 3 + i]),
    ]);
    const row = await createRow(user, res.body.id, { Due: "2026-01-05" }, { title: "Titled" });
    expect(await storedProperties(row.id)).toEqual({ name: "Titled", due: "2026-01-05" });
  });

  it("an empty inline schema, or a null one, gives the default columns", async () => {
    const user = await createUser();
    for (const schema of [[], {}, null]) {
      const res = await createDatabase(user, schema);
      expect(res.status).toBe(201);
      expect((await schemaRecords(res.body.id)).map((r) => r.name)).toEqual(DEFAULT_COLUMNS.map((c) => c.name));
      expect(await storedProperties(res.body.id)).toEqual({ title: "Inline" });
    }
  });

  it.each([
    ["a string", "Status:select", "properties.schema", "invalid_schema"],
    ["an unknown type", [{ id: "a", name: "A", type: "formula" }], "properties.schema[0].type", "invalid_value"],
    ["an entry that is not an object", ["Status"], "properties.schema[0]", "invalid_type"],
    [
      "an unknown key",
      [{ id: "a", name: "A", type: "text", format: "x" }],
      "properties.schema[0]",
      "unrecognized_keys",
    ],
    ["an array entry without a name", [{ id: "a", type: "text" }], "properties.schema[0].name", "missing_name"],
    ["a blank name", [{ id: "a", name: "  ", type: "text" }], "properties.schema[0].name", "too_small"],
    ["an id with NUL", [{ id: "a\u0000b", name: "A", type: "text" }], "properties.schema[0].id", "custom"],
    [
      "an id differing from its key",
      { a: { id: "b", name: "A", type: "text" } },
      "properties.schema.a.id",
      "id_mismatch",
    ],
    [
      "a repeated id",
      [
        { id: "a", name: "A", type: "text" },
        { id: "a", name: "B", type: "number" },
      ],
      "properties.schema[1].id",
      "duplicate_id",
    ],
    [
      "a repeated name, whatever its case",
      [
        { id: "a", name: "Notes", type: "text" },
        { id: "b", name: "notes", type: "number" },
      ],
      "properties.schema[1].name",
      "duplicate_name",
    ],
    [
      "a name that is another property's id",
      [
        { id: "a", name: "A", type: "text" },
        { id: "b", name: "a", type: "number" },
      ],
      "properties.schema[1].name",
      "name_is_an_id",
    ],
    [
      "two title properties",
      [
        { id: "a", name: "A", type: "title" },
        { id: "b", name: "B", type: "title" },
      ],
      "properties.schema[1].type",
      "second_title",
    ],
    [
      "options on a text property",
      [{ id: "a", name: "A", type: "text", options: ["x"] }],
      "properties.schema[0].options",
      "options_not_allowed",
    ],
    [
      "a repeated option",
      [{ id: "a", name: "A", type: "select", options: ["x", "x"] }],
      "properties.schema[0].options[1].name",
      "duplicate_name",
    ],
    [
      "an unknown colour",
      [{ id: "a", name: "A", type: "select", options: [{ name: "x", color: "teal" }] }],
      "properties.schema[0].options[0]",
      "invalid_union",
    ],
    [
      "a property named as the default title column",
      [{ id: "a", name: "Title", type: "text" }],
      "properties.schema[0].name",
      "default_column",
    ],
    [
      "a property whose id is a default column's name",
      [{ id: "created_by", name: "Owner", type: "text" }],
      "properties.schema[0].id",
      "default_column",
    ],
    // The object form: its key is the id (and the name when none is given), held to the same rules.
    ["a key with NUL", { "a\u0000b": { type: "text" } }, "properties.schema.a\u0000b", "custom"],
    ["an empty key", { "": { type: "text" } }, "properties.schema.", "too_small"],
    ["a blank key", { "   ": { type: "text" } }, "properties.schema.   ", "too_small"],
    ["a blank key with a name", { "   ": { name: "Blank", type: "text" } }, "properties.schema.   ", "custom"],
    [
      "a key of 5,000 characters",
      { ["k".repeat(5000)]: { type: "text" } },
      `properties.schema.${"k".repeat(5000)}`,
      "too_big",
    ],
    [
      "keys naming one property, but for a trailing space",
      { "Status ": { type: "text" }, x: { name: "Status", type: "number" } },
      "properties.schema.x.name",
      "duplicate_name",
    ],
    [
      "a name of the object form that is blank",
      { a: { name: "  ", type: "text" } },
      "properties.schema.a.name",
      "too_small",
    ],
  ])("refuses %s (400 at its path), writing nothing", async (_case, schema, path, code) => {
    const user = await createUser();
    for (const via of ["pages", "blocks"] as const) {
      const res = await createDatabase(user, schema, via);
      expectErrorBody(res, 400);
      expect(issuesOf(res)).toContainEqual(expect.objectContaining({ path, code }));
      expect((res.body as unknown as { details: { field: string } }).details.field).toBe("properties.schema");
    }
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });
});

describe("keys every body refuses, in the object form", () => {
  it.each([
    ["__proto__", JSON.parse('{"__proto__": {"type": "text"}}'), "properties.schema.__proto__"],
    // Named with U+FFFD in the answer, which a strict JSON parser could not read otherwise.
    ["a key with a lone surrogate", { "a\ud800": { type: "text" } }, "properties.schema.a\ufffd"],
  ])(
    "%s is refused by the body's check as in any body (400 at its path), writing nothing",
    async (_case, schema, path) => {
      const user = await createUser();
      for (const via of ["pages", "blocks"] as const) {
        const res = await createDatabase(user, schema, via);
        expectErrorBody(res, 400);
        expect(issuesOf(res)).toContainEqual(expect.objectContaining({ path, code: "custom" }));
      }
      expect(await countOwnedBlocks(user.id)).toBe(0);
    },
  );
});

describe("the object form reads its keys as the array form reads ids and names", () => {
  it("a key is the id as given and the name trimmed, as the same entry of the array form", async () => {
    const user = await createUser();
    const asObject = await createDatabase(user, { "  Padded  ": { type: "text" } });
    const asArray = await createDatabase(user, [{ id: "  Padded  ", name: "  Padded  ", type: "text" }]);
    for (const res of [asObject, asArray]) {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect((await recordsOf(res.body.id))[1]).toEqual(["  Padded  ", "Padded", "text", 1]);
    }
  });
});

describe("the size of an inline schema", () => {
  const textProperties = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: `p${i}`, name: `P${i}`, type: "text" }));

  it(`holds at most ${MAX_PROPERTIES} properties with the default columns it lacks: one more is a 400`, async () => {
    const user = await createUser();
    // The title column and the four computed ones are added to what the schema gives.
    const fits = await createDatabase(user, textProperties(MAX_PROPERTIES - 5));
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    expect(await schemaRecords(fits.body.id)).toHaveLength(MAX_PROPERTIES);
    for (const schema of [
      textProperties(MAX_PROPERTIES - 4),
      Object.fromEntries(textProperties(MAX_PROPERTIES + 1).map(({ id, ...rest }) => [id, rest])),
    ]) {
      const res = await createDatabase(user, schema);
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({
        details: {
          field: "properties.schema",
          maximum: MAX_PROPERTIES,
          issues: [{ path: "properties.schema", code: "too_many_properties" }],
        },
      });
    }
    expect(await countOwnedBlocks(user.id)).toBe(1);
  });

  it("the property routes hold to the same caps: a property or an option past them is a 409", async () => {
    const user = await createUser();
    const options = Array.from({ length: MAX_OPTIONS }, (_, i) => `Option ${i}`);
    const full = await createDatabase(user, [
      { id: "s", name: "S", type: "select", options },
      ...textProperties(MAX_PROPERTIES - 6),
    ]);
    expect(full.status, JSON.stringify(full.body)).toBe(201);
    const property = await api(`/api/v1/databases/${full.body.id}/properties`, {
      method: "POST",
      auth: user,
      body: { name: "One more", type: "text" },
    });
    expectErrorBody(property, 409);
    expect(property.body).toMatchObject({ details: { maximum: MAX_PROPERTIES } });
    const option = await api(`/api/v1/databases/${full.body.id}/properties/s/options`, {
      method: "POST",
      auth: user,
      body: { name: "One more" },
    });
    expectErrorBody(option, 409);
    expect(option.body).toMatchObject({ details: { property_id: "s", maximum: MAX_OPTIONS } });
    expect(await schemaRecords(full.body.id)).toHaveLength(MAX_PROPERTIES);
  });

  it("20,000 properties are refused at once, with one issue", async () => {
    const user = await createUser();
    const started = Date.now();
    const res = await createDatabase(user, textProperties(20_000));
    expectErrorBody(res, 400);
    expect(issuesOf(res)).toEqual([expect.objectContaining({ code: "too_many_properties" })]);
    // Quadratic checks took 15 s here; refusing by count takes no reading of the entries.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it(`a property holds at most ${MAX_OPTIONS} options, as the property routes allow`, async () => {
    const user = await createUser();
    const options = (count: number) => Array.from({ length: count }, (_, i) => `Option ${i}`);
    const fits = await createDatabase(user, [{ id: "s", name: "S", type: "select", options: options(MAX_OPTIONS) }]);
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    const over = await createDatabase(user, [
      { id: "s", name: "S", type: "select", options: options(MAX_OPTIONS + 1) },
    ]);
    expectErrorBody(over, 400);
    expect(issuesOf(over)).toContainEqual(
      expect.objectContaining({ path: "properties.schema[0].options", code: "too_big" }),
    );
  });

  it("checks repeats in one pass: many options and properties repeating each other are read at once", async () => {
    const user = await createUser();
    const started = Date.now();
    const res = await createDatabase(
      user,
      Array.from({ length: 200 }, (_, i) => ({
        id: `p${i % 2}`,
        name: `P${i % 3}`,
        type: "select",
        options: Array.from({ length: MAX_OPTIONS }, (_, j) => `O${j % 2}`),
      })),
    );
    expectErrorBody(res, 400);
    expect(issuesOf(res)[0]).toMatchObject({ path: "properties.schema[0].options[2].name", code: "duplicate_name" });
    // Every repeat is found (498 options of each of 200 properties, and 198 ids and 197 names), 50 listed.
    expect(res.body).toMatchObject({ details: { truncated: true, total_issues: 200 * 498 + 198 + 197 } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("a block that becomes a database with an inline schema", () => {
  it.each(["convert", "patch"])("through %s: the schema given becomes records, not a property", async (how) => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Soon a database" } });
    const body = {
      type: "database",
      properties: { schema: [{ id: "stage", name: "Stage", type: "status", options: ["Idea"] }] },
    };
    const res = await api<Block>(`${BLOCKS}/${page.id}${how === "convert" ? "/convert" : ""}`, {
      method: how === "convert" ? "POST" : "PATCH",
      auth: user,
      body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.properties).toEqual({ title: "Soon a database" });
    expect((await recordsOf(page.id)).map(([id, name]) => [id, name])).toEqual([
      [expect.stringMatching(PROP_ID), "title"],
      ["stage", "Stage"],
      ...COMPUTED.map(([name]) => [expect.stringMatching(PROP_ID), name]),
    ]);
    const row = await createRow(user, page.id, { Stage: "Idea" }, { title: "Row" });
    expect(row.properties_by_name).toMatchObject({ title: "Row", Stage: { name: "Idea" } });
  });

  it("the inline schema a block already holds, with a patch applied to it, becomes its records", async () => {
    const user = await createUser();
    const page = await createBlock(user, {
      type: "page",
      properties: { title: "Held", schema: { a: { name: "A", type: "text" }, b: { name: "B", type: "number" } } },
    });
    const res = await api<Block>(`${BLOCKS}/${page.id}`, {
      method: "PATCH",
      auth: user,
      body: { type: "database", properties: { schema: { b: null, c: { name: "C", type: "checkbox" } } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.properties).toEqual({ title: "Held" });
    expect((await recordsOf(page.id)).map(([id]) => id).slice(1, 3)).toEqual(["a", "c"]);
  });

  it("an invalid inline schema held or given is a 400, and the block stays as it was", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Held", schema: [{ name: "A" }] } });
    const before = await storedRow(page.id);
    const res = await api(`${BLOCKS}/${page.id}/convert`, { method: "POST", auth: user, body: { type: "database" } });
    expectErrorBody(res, 400);
    expect(issuesOf(res)).toContainEqual(expect.objectContaining({ path: "properties.schema[0].type" }));
    expect(await storedRow(page.id)).toEqual(before);
    expect(await schemaRecords(page.id)).toEqual([]);
    // Dropping the held schema in the same request converts it with the default columns.
    const dropped = await api(`${BLOCKS}/${page.id}/convert`, {
      method: "POST",
      auth: user,
      body: { type: "database", properties: { schema: null } },
    });
    expect(dropped.status).toBe(200);
    expect((await schemaRecords(page.id)).map((r) => r.name)).toEqual(DEFAULT_COLUMNS.map((c) => c.name));
  });
});

describe("older databases keep their inline schema", () => {
  it("a database stored with an inline schema and no records reads and writes by it, untouched by a PATCH", async () => {
    const user = await createUser();
    const id = await insertLegacyDatabase(user.id, [{ id: "name", name: "Name", type: "title" }]);
    const res = await api(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body: { type: "database" } });
    expect(res.status).toBe(200);
    expect((await getSchema(user, id)).body.legacy).toBe(true);
    expect(await schemaRecords(id)).toEqual([]);
    const row = await createRow(user, id, {}, { title: "Old" });
    expect(await storedProperties(row.id)).toEqual({ name: "Old" });
  });
});
