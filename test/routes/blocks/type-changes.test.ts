import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, createBlock, insertBlock, storedRow } from "../../helpers/blocks";
import {
  addProperty,
  createDatabase,
  createRow,
  DATABASES,
  getSchema,
  type TestDatabase,
} from "../../helpers/databases";
import {
  countOwnedBlocks,
  createPage,
  getPage,
  listPages,
  PAGES,
  putPage,
  storedContent,
  storedProperties,
} from "../../helpers/pages";

// A block that changes type or database keeps only what its new type allows:
// a row holds only values its schema has a property for and accepts, and a
// page-like block's body is canonical items that the pages endpoints read.

const patchBlock = (user: TestUser, id: string, body: unknown) =>
  api<Block>(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body });

const convertBlock = (user: TestUser, id: string, body: unknown) =>
  api<Block>(`${BLOCKS}/${id}/convert`, { method: "POST", auth: user, body });

/** A page whose properties the fixture schema would refuse (or does not know), beside ones it accepts. */
const UNCHECKED_PROPERTIES = {
  Status: { id: "opt_forged", name: "Forged", color: "red" },
  Tags: ["Art", "Sculpture"],
  Urgent: "yes",
  junk: { nested: true },
  Priority: 3,
  Notes: "kept words",
};

/** What a row of `database` keeps of UNCHECKED_PROPERTIES (with `title`): the values the schema accepts. */
const keptOf = (database: TestDatabase, title: string) => ({
  [database.prop("title").id]: title,
  [database.prop("Priority").id]: 3,
  [database.prop("Notes").id]: "kept words",
});

describe("a block becoming a row keeps only what the row's schema accepts", () => {
  it("PATCH of a page to database_row with database_id: forged options and unknown keys are not stored", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const page = await createPage(user, { title: "Paged", properties: UNCHECKED_PROPERTIES });
    const before = await storedRow(page.id);

    // Values given in the change itself are validated: a forged option or an unknown key is a 400, nothing stored.
    for (const properties of [
      { Status: "Forged" },
      { Status: { id: "opt_forged", name: "Forged" } },
      { Tags: ["Art", "Forged"] },
      { junk: 1 },
    ]) {
      const refused = await patchBlock(user, page.id, { type: "database_row", database_id: database.id, properties });
      expectErrorBody(refused, 400);
      expect(await storedRow(page.id)).toEqual(before);
    }

    const res = await patchBlock(user, page.id, { type: "database_row", database_id: database.id });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedProperties(page.id)).toEqual(keptOf(database, "Paged"));
    expect(res.body.properties).toEqual(keptOf(database, "Paged"));
    const read = await getPage(user, page.id);
    expect(read.status).toBe(200);
    expect(read.body.properties_by_name).toMatchObject({ title: "Paged", Status: null, Tags: null, Priority: 3 });
  });

  it("PATCH moving a row to another database keeps the values the new schema has (by name) and accepts", async () => {
    const user = await createUser();
    const from = await createDatabase(user);
    const to = await createDatabase(user, {
      properties: [
        { name: "Status", type: "select", options: [{ name: "Todo", color: "blue" }] },
        { name: "Priority", type: "text" },
        { name: "Notes", type: "text" },
      ],
    });
    const row = await createRow(user, from.id, {
      title: "Moving",
      Status: "Todo",
      Tags: ["Art"],
      Priority: 2,
      Notes: "travels",
      Urgent: true,
    });

    const res = await patchBlock(user, row.id, { database_id: to.id });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = {
      [to.prop("title").id]: "Moving",
      [to.prop("Status").id]: to.option("Status", "Todo"),
      [to.prop("Notes").id]: "travels",
    };
    // Tags and Urgent have no property there; Priority is text there, and 2 is not text.
    expect(await storedProperties(row.id)).toEqual(expected);
    expect((await storedRow(row.id))?.database_id).toBe(to.id);
    const read = await getPage(user, row.id);
    expect(read.body.properties_by_name).toMatchObject({ title: "Moving", Status: to.option("Status", "Todo") });
  });

  it("PATCH moving a row: properties named title or schema go to the properties of that name there, the title to the title", async () => {
    const user = await createUser();
    // In each database the title property is named Name, and `title` and `schema` are text properties.
    const shaped = async () => {
      const database = await createDatabase(user, { properties: [{ name: "schema", type: "text" }] });
      const titleId = database.prop("title").id;
      const renamed = await api(`${DATABASES}/${database.id}/properties/${titleId}`, {
        method: "PATCH",
        auth: user,
        body: { name: "Name" },
      });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      const text = await addProperty(user, database.id, { name: "title", type: "text" });
      return { id: database.id, titleId, schemaId: database.prop("schema").id, textId: text.id };
    };
    const from = await shaped();
    const to = await shaped();
    const row = await createRow(user, from.id, { Name: "Moving", schema: "kept", title: "also kept" });

    const res = await patchBlock(user, row.id, { database_id: to.id });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedProperties(row.id)).toEqual({
      [to.titleId]: "Moving",
      [to.schemaId]: "kept",
      [to.textId]: "also kept",
    });
  });

  it("POST .../convert to database_row of a block already pointing at a database: the same rules", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const id = await insertBlock({
      type: "page",
      created_by: user.id,
      database_id: database.id,
      properties: { title: "Converted", ...UNCHECKED_PROPERTIES },
    });
    const forged = await convertBlock(user, id, { type: "database_row", properties: { Status: "Forged" } });
    expectErrorBody(forged, 400);
    expect((await storedRow(id))?.type).toBe("page");

    const res = await convertBlock(user, id, { type: "database_row" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedProperties(id)).toEqual(keptOf(database, "Converted"));
    expect((await storedRow(id))?.type).toBe("database_row");
  });
});

describe("a row that stops being one keeps its values by name", () => {
  it("POST .../convert to page: the title as `title`, each value under its property's name, and back again", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Ship it", Status: "Todo", Priority: 2 });

    const converted = await convertBlock(user, row.id, { type: "page", properties: { Priority: null, Owner: "Ada" } });

    expect(converted.status, JSON.stringify(converted.body)).toBe(200);
    // The change's properties apply to the named values as a merge patch: null removes, a new key adds.
    const named = { title: "Ship it", Status: database.option("Status", "Todo"), Owner: "Ada" };
    expect(converted.body.properties).toEqual(named);
    expect(await storedProperties(row.id)).toEqual(named);
    // The pages listing names it by its title again.
    const listed = (await listPages(user, "type=page")).body.find((page) => page.id === row.id);
    expect(listed?.title).toBe("Ship it");

    // Becoming a row of the same database again, it gets its values back by those names.
    const again = await convertBlock(user, row.id, { type: "database_row" });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await storedProperties(row.id)).toEqual({
      [database.prop("title").id]: "Ship it",
      [database.prop("Status").id]: database.option("Status", "Todo"),
    });
  });

  it("the title is `title` even beside another property named so, which keeps its id", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const renamed = await api(`${DATABASES}/${database.id}/properties/${database.prop("title").id}`, {
      method: "PATCH",
      auth: user,
      body: { name: "Name" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const text = await addProperty(user, database.id, { name: "title", type: "text" });
    const row = await createRow(user, database.id, { Name: "The title", title: "A text named title" });

    const res = await convertBlock(user, row.id, { type: "page" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The other keeps its value under its id: nothing is lost.
    expect(res.body.properties).toEqual({ title: "The title", [text.id]: "A text named title" });
    // Back into the database, each value goes back to its own property.
    const back = await convertBlock(user, row.id, { type: "database_row" });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(await storedProperties(row.id)).toEqual({
      [database.prop("title").id]: "The title",
      [text.id]: "A text named title",
    });
  });

  it("a property named `schema` keeps its id: the row becomes a database with its default columns", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const schemaNamed = await addProperty(user, database.id, { name: "schema", type: "text" });
    const row = await createRow(user, database.id, { title: "Ledger", schema: "words, not columns" });

    const res = await convertBlock(user, row.id, { type: "database" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.properties).toEqual({ title: "Ledger", [schemaNamed.id]: "words, not columns" });
  });

  it("a row becoming a database with an inline schema stores no `schema` key, as a page would", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Grown" });

    const res = await convertBlock(user, row.id, {
      type: "database",
      properties: { schema: { Extra: { type: "text" } } },
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedProperties(row.id)).toEqual({ title: "Grown" });
    const columns = (await getSchema(user, row.id)).body.properties.map((property) => property.name);
    expect(columns).toContain("Extra");
  });

  it("a value written while the row is converted is never lost: the conversion reads the row again", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const rows = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createRow(user, database.id, { title: `Racing ${i}`, Notes: "before" })),
    );

    // Each row is converted while its Notes are written: whichever lands first, the page holds the
    // written value (a row's write after the conversion is a page's merge patch of the same name).
    const answers = await Promise.all(
      rows.flatMap((row) => [
        patchBlock(user, row.id, { properties: { Notes: "written" } }),
        convertBlock(user, row.id, { type: "page" }),
      ]),
    );

    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [i, row] of rows.entries()) {
      expect(await storedProperties(row.id)).toEqual({ title: `Racing ${i}`, Notes: "written" });
    }
  });

  it("PATCH to a paragraph: the same", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Note", Notes: "words" });

    const res = await patchBlock(user, row.id, { type: "paragraph" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.properties).toEqual({ title: "Note", Notes: "words" });
  });
});

/** The words of canonical content items, in order. */
const wordsOf = (content: unknown): string =>
  (content as { children?: { text: string }[] }[])
    .map((item) => (item.children ?? []).map((span) => span.text).join(""))
    .join(" ");

describe("a block becoming page-like gets a canonical body with its words", () => {
  it.each([
    ["page", "PATCH"],
    ["database", "PATCH"],
    ["page", "convert"],
    ["database", "convert"],
  ])("a plain string as content, turned into a %s by %s", async (type, how) => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph", content: "plain words stay" });

    const res =
      how === "PATCH" ? await patchBlock(user, block.id, { type }) : await convertBlock(user, block.id, { type });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const content = await storedContent(block.id);
    expect(Array.isArray(content)).toBe(true);
    expect(wordsOf(content)).toContain("plain words stay");
    const read = await getPage(user, block.id);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.content).toEqual(content);
    expect((await putPage(user, block.id, { title: "Now a page" })).status).toBe(200);
  });

  it("an object as content keeps its words as a paragraph", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "callout", content: { text: "object words", icon: "!" } });

    const res = await convertBlock(user, block.id, { type: "page" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedContent(block.id)).toEqual([{ type: "paragraph", children: [{ text: "object words" }] }]);
    expect((await getPage(user, block.id)).status).toBe(200);
    const put = await putPage(user, block.id, { content: [{ type: "paragraph", children: [{ text: "rewritten" }] }] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it("a list of lines keeps each line as a paragraph", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "paragraph", content: ["first line", "second line"] });

    const res = await patchBlock(user, block.id, { type: "page" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedContent(block.id)).toEqual([
      { type: "paragraph", children: [{ text: "first line" }] },
      { type: "paragraph", children: [{ text: "second line" }] },
    ]);
    expect((await getPage(user, block.id)).status).toBe(200);
  });

  it("an editor block's spans become one paragraph with those spans", async () => {
    const user = await createUser();
    const spans = [{ text: "Bold", bold: true }, { text: " and plain" }];
    const block = await createBlock(user, { type: "paragraph", content: spans });

    const res = await patchBlock(user, block.id, { type: "page" });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedContent(block.id)).toEqual([{ type: "paragraph", children: spans }]);
    const read = await getPage(user, block.id);
    expect(read.status).toBe(200);
    expect(read.body.content).toEqual([{ type: "paragraph", children: spans }]);
  });

  it("a block with text content becoming a row of a database", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const block = await createBlock(user, { type: "paragraph", content: [{ text: "row body" }] });

    const res = await patchBlock(user, block.id, { type: "database_row", database_id: database.id });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedContent(block.id)).toEqual([{ type: "paragraph", children: [{ text: "row body" }] }]);
    const read = await getPage(user, block.id);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect((await putPage(user, block.id, { properties: { Priority: 5 } })).status).toBe(200);
  });
});

describe("a database_id the body names that the caller cannot see, or that is no database", () => {
  /** What each case may change: a page and a row of the caller's own database. */
  type Mine = { page: string; row: string };
  const rowOf = (databaseId: string) => ({ type: "database_row", database_id: databaseId });
  it.each<[string, (user: TestUser, id: string, mine: Mine) => Promise<ApiResponse>]>([
    ["POST /blocks of a row", (user, id) => api(BLOCKS, { method: "POST", auth: user, body: rowOf(id) })],
    ["POST /pages of a row", (user, id) => api(PAGES, { method: "POST", auth: user, body: rowOf(id) })],
    ["PATCH of a page into a row", (user, id, mine) => patchBlock(user, mine.page, rowOf(id))],
    ["PATCH of a row's database_id", (user, id, mine) => patchBlock(user, mine.row, { database_id: id })],
  ])("%s: 404 naming the field, as a body's other references, writing nothing", async (_case, send) => {
    const [user, other] = [await createUser(), await createUser()];
    const own = await createDatabase(user, { properties: [] });
    const mine = {
      page: (await createPage(user, { title: "Stays a page" })).id,
      row: (await createRow(user, own.id, { title: "Stays" })).id,
    };
    const othersDatabase = await createDatabase(other, { properties: [] });
    const count = await countOwnedBlocks(user.id);
    for (const id of [othersDatabase.id, mine.page]) {
      const res = await send(user, id, mine);
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ code: "not_found", details: { field: "database_id", id } });
      expect(await countOwnedBlocks(user.id)).toBe(count);
      expect((await storedRow(mine.row))?.database_id).toBe(own.id);
      expect((await storedRow(mine.page))?.type).toBe("page");
    }
  });
});
