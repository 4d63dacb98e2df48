import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, getBlock, insertBlock, issuePaths, storedRow, UUID } from "../../helpers/blocks";
import { createDatabase, createRow } from "../../helpers/databases";
import {
  countOwnedBlocks,
  createPage,
  getPage,
  PAGES,
  postPage,
  readPageTarget,
  setupPageTarget,
  storedContent,
  storedProperties,
} from "../../helpers/pages";

describeAuthMatrix({
  name: "POST /api/v1/pages",
  method: "POST",
  path: () => PAGES,
  body: { title: "Never stored" },
});

describeAuthMatrix({
  name: "POST /api/pages (unversioned creation alias)",
  method: "POST",
  path: () => "/api/pages",
  body: { title: "Never stored" },
});

describeAuthMatrix({
  name: "GET /api/v1/pages/{id}",
  method: "GET",
  path: (id) => `${PAGES}/${id}`,
  setup: setupPageTarget,
  readBack: readPageTarget,
});

describe("POST /api/v1/pages: pages", () => {
  it("creates a page (type defaults to page) with the title in properties.title, and stores it", async () => {
    const user = await createUser();
    const content = [{ type: "paragraph", children: [{ text: "Hello" }] }];
    const res = await postPage(user, { title: "My page", properties: { icon: "📄" }, content });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      type: "page",
      parent_id: null,
      database_id: null,
      teamspace_id: null,
      properties: { icon: "📄", title: "My page" },
      content,
      position: expect.any(Number),
      archived: false,
      in_trash: false,
      created_by: user.id,
      last_edited_by: user.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body).not.toHaveProperty("properties_by_name");
    expect(await storedProperties(res.body.id)).toEqual({ icon: "📄", title: "My page" });
    expect(await storedContent(res.body.id)).toEqual(content);
    expect((await storedRow(res.body.id))?.type).toBe("page");
    expect((await getPage(user, res.body.id)).body).toEqual(res.body);
  });

  it("accepts the title once in properties.title, or twice with the same value", async () => {
    const user = await createUser();
    const inProperties = await createPage(user, { properties: { title: "Inside" } });
    expect(inProperties.properties).toEqual({ title: "Inside" });
    const both = await createPage(user, { title: "Same", properties: { title: "Same" } });
    expect(await storedProperties(both.id)).toEqual({ title: "Same" });
  });

  it("creates a page under a parent, with either spelling of parent_id", async () => {
    const user = await createUser();
    const parent = await createPage(user, { title: "Parent" });
    const a = await createPage(user, { title: "A", parent_id: parent.id });
    const b = await createPage(user, { title: "B", parentId: parent.id });
    expect(a.parent_id).toBe(parent.id);
    expect(b.parent_id).toBe(parent.id);
    expect((await storedRow(b.id))?.parent_id).toBe(parent.id);
  });

  it("places a top-level page or row after the caller's own top-level blocks, not other users'", async () => {
    const user = await createUser();
    const other = await createUser();
    const first = await createPage(user, { title: "First" });
    await insertBlock({ type: "page", position: 1e9, created_by: other.id });
    const second = await createPage(user, { title: "Second" });
    expect((await storedRow(second.id))?.position).toBe(((await storedRow(first.id))?.position as number) + 1);
    const database = await createDatabase(user, { properties: [] });
    await insertBlock({ type: "database_row", database_id: database.id, position: 2e9, created_by: other.id });
    const row = await createRow(user, database.id, {}, { title: "Row" });
    expect((await storedRow(row.id))?.position).toBe(((await storedRow(database.id))?.position as number) + 1);
  });

  it("takes a caller-supplied id, and refuses it when already in use (409, nothing changed)", async () => {
    const user = await createUser();
    const id = `page-${crypto.randomUUID()}`;
    const page = await createPage(user, { id, title: "First" });
    expect(page.id).toBe(id);
    const again = await postPage(user, { id, title: "Second" });
    expectErrorBody(again, 409);
    expect(await storedProperties(id)).toEqual({ title: "First" });
  });

  it("normalises content: missing children and checked get their defaults", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "Defaults",
      content: [{ type: "divider" }, { type: "to_do", children: [{ text: "task" }] }],
    });
    const expected = [
      { type: "divider", children: [{ text: "" }] },
      { type: "to_do", children: [{ text: "task" }], checked: false },
    ];
    expect(page.content).toEqual(expected);
    expect(await storedContent(page.id)).toEqual(expected);
  });

  it("converts content_markdown to canonical content items", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "From markdown",
      content_markdown: "## Section\n\nHello **world**\n\n- one\n- two\n- [x] done",
    });
    const expected = [
      { type: "heading-2", children: [{ text: "Section" }] },
      { type: "paragraph", children: [{ text: "Hello " }, { text: "world", bold: true }] },
      { type: "bulleted-list", children: [{ text: "one" }] },
      { type: "bulleted-list", children: [{ text: "two" }] },
      { type: "to_do", children: [{ text: "done" }], checked: true },
    ];
    expect(page.content).toEqual(expected);
    expect(await storedContent(page.id)).toEqual(expected);
  });

  it("reads a task item of a loose list (blank line between items) without its [x] marker in the text", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Loose", content_markdown: "- one\n\n- [x] done\n\n- [ ] open" });
    const expected = [
      { type: "bulleted-list", children: [{ text: "one" }] },
      { type: "to_do", children: [{ text: "done" }], checked: true },
      { type: "to_do", children: [{ text: "open" }], checked: false },
    ];
    expect(page.content).toEqual(expected);
    expect(await storedContent(page.id)).toEqual(expected);
  });

  it.each([
    ["title twice with different values", { title: "A", properties: { title: "B" } }, "fields"],
    [
      "both content and content_markdown",
      { title: "X", content: [{ type: "paragraph", children: [{ text: "a" }] }], content_markdown: "a" },
      "fields",
    ],
    ["a type that is not page-like", { title: "X", type: "paragraph" }, "issues"],
    ["the internal provider_audit_log type", { title: "X", type: "provider_audit_log" }, "issues"],
    ["an unknown field", { title: "X", body: "text" }, "issues"],
    ["a title that is not a string", { title: 42 }, "issues"],
    ["properties as an array", { properties: [] }, "issues"],
    ["content that is not an array", { content: "Hello" }, "issues"],
    ["an id with a slash", { id: "a/b" }, "issues"],
    ["malformed JSON", "{title", undefined],
  ])("refuses %s (400 with details) and stores nothing", async (_case, body, detailKey) => {
    const user = await createUser();
    const res = await postPage(user, body);
    expectErrorBody(res, 400);
    if (detailKey)
      expect((res.body as unknown as { details: Record<string, unknown> }).details).toHaveProperty(detailKey);
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("names the both-bodies conflict in details", async () => {
    const user = await createUser();
    const res = await postPage(user, { content: [], content_markdown: "x" });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { fields: ["content", "content_markdown"] } });
  });

  it("404 for a parent the caller cannot see, storing nothing", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const parent = await createPage(owner, { title: "Private" });
    const res = await postPage(other, { title: "Intruder", parent_id: parent.id });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { field: "parent_id" } });
    expect(await countOwnedBlocks(other.id)).toBe(0);
  });
});

describe("POST /api/v1/pages: databases and rows", () => {
  it("requires database_id for a row (400 naming it) and stores nothing", async () => {
    const user = await createUser();
    const res = await postPage(user, { type: "database_row", title: "Orphan" });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "database_id" } });
    expect(await countOwnedBlocks(user.id)).toBe(0);
  });

  it("puts a row's title into its database's title property and answers with properties_by_name", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const titleId = database.prop("title").id;
    const res = await postPage(user, { type: "database_row", database_id: database.id, title: "First row" });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: "database_row",
      database_id: database.id,
      properties: { [titleId]: "First row" },
      created_by: user.id,
    });
    expect(res.body.properties_by_name).toEqual({
      title: "First row",
      created_time: res.body.created_at,
      created_by: user.id,
      last_edited_time: res.body.updated_at,
      last_edited_by: user.id,
    });
    expect(await storedProperties(res.body.id)).toEqual({ [titleId]: "First row" });
  });

  it("accepts databaseId as the spelling of database_id", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createPage(user, { type: "database_row", databaseId: database.id, title: "Spelled" });
    expect(row.database_id).toBe(database.id);
  });

  it("404 for a row in another user's database, storing nothing", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const database = await createDatabase(owner, { properties: [] });
    const res = await postPage(other, { type: "database_row", database_id: database.id, title: "Intruder" });
    expectErrorBody(res, 404);
    expect(await countOwnedBlocks(other.id)).toBe(0);
  });

  it("404 for a row whose database_id names a plain page, storing nothing", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Not a database" });
    const res = await postPage(user, { type: "database_row", database_id: page.id, title: "Row" });
    expectErrorBody(res, 404);
    expect(await countOwnedBlocks(user.id)).toBe(1);
  });
});

describe("GET /api/v1/pages/{id}", () => {
  it("returns a page as stored", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Readable", content: [{ type: "quote", children: [{ text: "q" }] }] });
    const res = await getPage(user, page.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(page);
  });

  it("returns a database without properties_by_name", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const res = await getPage(user, database.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: database.id, type: "database", properties: { title: "Tasks" } });
    expect(res.body).not.toHaveProperty("properties_by_name");
  });

  it("returns a row with its canonical properties and properties_by_name", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Row", Status: "Done", Priority: 2 });
    const res = await getPage(user, row.id);
    const done = database.option("Status", "Done");
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({
      [database.prop("title").id]: "Row",
      [database.prop("Status").id]: done,
      [database.prop("Priority").id]: 2,
    });
    expect(res.body.properties_by_name).toEqual({
      title: "Row",
      created_time: row.created_at,
      created_by: user.id,
      last_edited_time: row.updated_at,
      last_edited_by: user.id,
      Status: done,
      Tags: null,
      Stage: null,
      Priority: 2,
      Due: null,
      Urgent: null,
      Notes: null,
    });
  });

  it("404 for an editor block (a paragraph is not a page), which getBlock still returns", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Holder" });
    const paragraph = await createBlock(user, { parent_id: page.id, properties: { text: "para" } });
    expectErrorBody(await getPage(user, paragraph.id), 404);
    expect((await getBlock(user, paragraph.id)).status).toBe(200);
  });

  it("404 for a trashed page and for an id that does not exist", async () => {
    const user = await createUser();
    const trashed = await insertBlock({ type: "page", created_by: user.id, in_trash: true });
    const archived = await insertBlock({ type: "page", created_by: user.id, archived: true });
    expectErrorBody(await getPage(user, trashed), 404);
    expectErrorBody(await getPage(user, archived), 404);
    expectErrorBody(await getPage(user, crypto.randomUUID()), 404);
  });

  it("returns a shared page (created_by null) to any user", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "page", created_by: null, properties: { title: "Shared" } });
    const res = await getPage(user, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, created_by: null, properties: { title: "Shared" } });
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    const res = await getPage(user, "a".repeat(129));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("id");
  });
});
