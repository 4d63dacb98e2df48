import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, insertBlock, issuePaths, uniqueWord } from "../../helpers/blocks";
import { createDatabase, createRow, DATABASES, insertLegacyDatabase } from "../../helpers/databases";
import { containerPage, createPage, listPages, PAGES, type PageSummary } from "../../helpers/pages";

describeAuthMatrix({
  name: "GET /api/v1/pages",
  method: "GET",
  path: () => PAGES,
});

const ids = (summaries: PageSummary[]) => summaries.map((s) => s.id);

function expectPageHeaders(
  res: { headers: Headers },
  expected: { total: number; limit: number; offset: number; hasMore: boolean },
) {
  expect(res.headers.get("X-Total-Count")).toBe(String(expected.total));
  expect(res.headers.get("X-Pagination-Limit")).toBe(String(expected.limit));
  expect(res.headers.get("X-Pagination-Offset")).toBe(String(expected.offset));
  expect(res.headers.get("X-Has-More")).toBe(String(expected.hasMore));
}

/** A container holding one page, one database and one of its rows (created in that order). */
async function mixedContainer(user: TestUser) {
  const container = await containerPage(user);
  const page = await createPage(user, { title: "A page", parent_id: container.id, properties: { icon: "🔥" } });
  const database = await createDatabase(user, { title: "A database", parentId: container.id, properties: [] });
  const row = await createRow(user, database.id, { title: "A row" }, { parent_id: container.id });
  return { container, page, database, row };
}

describe("GET /api/v1/pages: summaries", () => {
  it("lists page-like blocks as lightweight summaries, most recently updated first", async () => {
    const user = await createUser();
    const { container, page, database, row } = await mixedContainer(user);
    const res = await listPages(user, `parent_id=${container.id}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: row.id,
        type: "database_row",
        title: "A row",
        parent_id: container.id,
        database_id: database.id,
        icon: null,
        archived: false,
        in_trash: false,
        created_by: user.id,
        created_at: row.created_at,
        updated_at: row.updated_at,
      },
      {
        id: database.id,
        type: "database",
        title: "A database",
        parent_id: container.id,
        database_id: null,
        icon: null,
        archived: false,
        in_trash: false,
        created_by: user.id,
        created_at: database.block.created_at,
        updated_at: expect.any(String),
      },
      {
        id: page.id,
        type: "page",
        title: "A page",
        parent_id: container.id,
        database_id: null,
        icon: "🔥",
        archived: false,
        in_trash: false,
        created_by: user.id,
        created_at: page.created_at,
        updated_at: page.updated_at,
      },
    ]);
    expectPageHeaders(res, { total: 3, limit: 50, offset: 0, hasMore: false });
  });

  it.each([
    ["page", "page"],
    ["database", "database"],
    ["database_row", "row"],
  ] as const)("filters by type=%s", async (type, key) => {
    const user = await createUser();
    const blocks = await mixedContainer(user);
    const res = await listPages(user, `parent_id=${blocks.container.id}&type=${type}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([key === "database" ? blocks.database.id : blocks[key].id]);
    expect(res.body[0]?.type).toBe(type);
    expectPageHeaders(res, { total: 1, limit: 50, offset: 0, hasMore: false });
  });

  it("filters rows by database_id", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const first = await createRow(user, database.id, { title: "one" });
    const second = await createRow(user, database.id, { title: "two" });
    const res = await listPages(user, `database_id=${database.id}`);
    expect(ids(res.body)).toEqual([second.id, first.id]);
    expect(res.body.map((s) => s.title)).toEqual(["two", "one"]);
  });

  it("titles a row by its title property, also after that property is renamed", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const row = await createRow(user, database.id, { title: "Named row" });
    const titleId = database.prop("title").id;
    const rename = await api(`${DATABASES}/${database.id}/properties/${titleId}`, {
      method: "PATCH",
      auth: user,
      body: { name: "Name" },
    });
    expect(rename.status).toBe(200);
    const res = await listPages(user, `database_id=${database.id}`);
    expect(res.body).toEqual([expect.objectContaining({ id: row.id, title: "Named row" })]);
  });

  it("titles a row of a legacy database (inline schema, no records) by its inline title property", async () => {
    const user = await createUser();
    const databaseId = await insertLegacyDatabase(user.id, [
      { id: "name", name: "Name", type: "title" },
      { id: "notes", name: "Notes", type: "text" },
    ]);
    const row = await createRow(user, databaseId, { title: "Legacy row", Notes: "n" });
    expect(row.properties).toEqual({ name: "Legacy row", notes: "n" });
    const res = await listPages(user, `database_id=${databaseId}`);
    expect(res.body).toEqual([expect.objectContaining({ id: row.id, title: "Legacy row" })]);
  });

  it("reads a rich-text title as its plain text", async () => {
    const user = await createUser();
    const container = await containerPage(user);
    await createPage(user, { parent_id: container.id, properties: { title: [{ text: "Rich" }, { text: " title" }] } });
    const res = await listPages(user, `parent_id=${container.id}`);
    expect(res.body.map((s) => s.title)).toEqual(["Rich title"]);
  });

  it("leaves out editor blocks, provider_audit_log blocks and, by default, trashed or archived pages", async () => {
    const user = await createUser();
    const container = await containerPage(user);
    const visible = await createPage(user, { title: "Visible", parent_id: container.id });
    await createBlock(user, { type: "paragraph", parent_id: container.id });
    const trashed = await insertBlock({ type: "page", parent_id: container.id, created_by: user.id, in_trash: true });
    const archived = await insertBlock({ type: "page", parent_id: container.id, created_by: user.id, archived: true });
    const audit = await insertBlock({ type: "provider_audit_log", parent_id: container.id, created_by: user.id });

    expect(ids((await listPages(user, `parent_id=${container.id}`)).body)).toEqual([visible.id]);
    expect(ids((await listPages(user, `parent_id=${container.id}&in_trash=true`)).body)).toEqual([trashed]);
    expect(ids((await listPages(user, `parent_id=${container.id}&archived=true`)).body)).toEqual([archived]);
    for (const query of ["", "&in_trash=true", "&archived=true", "&archived=true&in_trash=true"]) {
      expect(ids((await listPages(user, `parent_id=${container.id}${query}`)).body)).not.toContain(audit);
    }
  });

  it("never lists another user's pages, but lists shared ones", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const word = uniqueWord();
    const mine = await createPage(owner, { title: `Private ${word}` });
    const shared = await insertBlock({ type: "page", created_by: null, properties: { title: `Shared ${word}` } });
    expect(ids((await listPages(other, `q=${word}`)).body)).toEqual([shared]);
    expect(ids((await listPages(owner, `q=${word}`)).body).sort()).toEqual([mine.id, shared].sort());
  });

  it("never finds a provider_audit_log block with q", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const page = await createPage(user, { title: `Page ${word}` });
    await insertBlock({ type: "provider_audit_log", created_by: user.id, properties: { title: `Audit ${word}` } });
    await insertBlock({ type: "provider_audit_log", created_by: null, properties: { title: `Shared audit ${word}` } });
    const res = await listPages(user, `q=${word}`);
    expect(ids(res.body)).toEqual([page.id]);
    expect(res.headers.get("X-Total-Count")).toBe("1");
  });

  it("searches titles and body text with q", async () => {
    const user = await createUser();
    const [titleWord, bodyWord] = [uniqueWord(), uniqueWord()];
    const byTitle = await createPage(user, { title: `About ${titleWord}` });
    const byBody = await createPage(user, {
      title: "Plain",
      content: [{ type: "paragraph", children: [{ text: `mentions ${bodyWord} inside` }] }],
    });
    expect(ids((await listPages(user, `q=${titleWord}`)).body)).toEqual([byTitle.id]);
    expect(ids((await listPages(user, `q=${bodyWord}`)).body)).toEqual([byBody.id]);
  });
});

describe("GET /api/v1/pages: paging", () => {
  async function fivePages(user: TestUser) {
    const container = await containerPage(user);
    const pages = [];
    for (let i = 0; i < 5; i++) pages.push(await createPage(user, { title: `P${i}`, parent_id: container.id }));
    return { container, pages };
  }

  it("pages through with limit and offset, with the paging headers", async () => {
    const user = await createUser();
    const { container, pages } = await fivePages(user);
    const first = await listPages(user, `parent_id=${container.id}&limit=2`);
    const second = await listPages(user, `parent_id=${container.id}&limit=2&offset=2`);
    const last = await listPages(user, `parent_id=${container.id}&limit=2&offset=4`);

    expectPageHeaders(first, { total: 5, limit: 2, offset: 0, hasMore: true });
    expectPageHeaders(second, { total: 5, limit: 2, offset: 2, hasMore: true });
    expectPageHeaders(last, { total: 5, limit: 2, offset: 4, hasMore: false });
    const seen = [...ids(first.body), ...ids(second.body), ...ids(last.body)];
    expect(seen).toEqual(pages.map((p) => p.id).reverse());
  });

  it("clamps a limit above 100 to 100", async () => {
    const user = await createUser();
    const { container } = await fivePages(user);
    const res = await listPages(user, `parent_id=${container.id}&limit=500`);
    expect(res.status).toBe(200);
    expectPageHeaders(res, { total: 5, limit: 100, offset: 0, hasMore: false });
  });

  it("returns an empty page past the end", async () => {
    const user = await createUser();
    const { container } = await fivePages(user);
    const res = await listPages(user, `parent_id=${container.id}&offset=10`);
    expect(res.body).toEqual([]);
    expectPageHeaders(res, { total: 5, limit: 50, offset: 10, hasMore: false });
  });

  it.each([
    ["type=paragraph", "type"],
    ["type=provider_audit_log", "type"],
    ["limit=0", "limit"],
    ["limit=abc", "limit"],
    ["offset=-1", "offset"],
    ["archived=yes", "archived"],
    ["in_trash=1", "in_trash"],
    ["sortBy=title", ""],
  ])("400 with details for ?%s", async (query, path) => {
    const user = await createUser();
    const res = await listPages(user, query);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(path);
  });
});
