import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  type Block,
  createBlock,
  insertBlock,
  insertBlocks,
  issuePaths,
  listBlocks,
  uniqueType,
  uniqueWord,
} from "../../helpers/blocks";

const ids = (blocks: Block[]) => blocks.map((b) => b.id);
const q = (text: string) => `q=${encodeURIComponent(text)}`;

function expectPageHeaders(
  res: { headers: Headers },
  expected: { total: number; limit: number; offset: number; hasMore: boolean },
) {
  expect({
    total: res.headers.get("X-Total-Count"),
    limit: res.headers.get("X-Pagination-Limit"),
    offset: res.headers.get("X-Pagination-Offset"),
    hasMore: res.headers.get("X-Has-More"),
  }).toEqual({
    total: String(expected.total),
    limit: String(expected.limit),
    offset: String(expected.offset),
    hasMore: String(expected.hasMore),
  });
}

/** `count` blocks of a fresh type owned by `user`, positions 1..count; returns the type and ids. */
async function manyOfType(user: TestUser, count: number) {
  const type = uniqueType();
  const blockIds = await insertBlocks(Array.from({ length: count }, () => ({ type, created_by: user.id })));
  return { type, blockIds };
}

describeAuthMatrix({
  name: "GET /api/v1/blocks",
  method: "GET",
  path: () => BLOCKS,
});

describeAuthMatrix({
  name: "GET /api/v1/blocks?q=",
  method: "GET",
  path: () => `${BLOCKS}?q=anything`,
});

describe("GET /api/v1/blocks: paging", () => {
  it("returns 50 blocks by default, with the paging headers, in one D1 round trip beyond authentication", async () => {
    const user = await createUser();
    const { type, blockIds } = await manyOfType(user, 51);
    const res = await listBlocks(user, `type=${type}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(50);
    expect(new Set(blockIds).size).toBe(51);
    for (const block of res.body) expect(blockIds).toContain(block.id);
    expectPageHeaders(res, { total: 51, limit: 50, offset: 0, hasMore: true });
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("clamps a limit above 100 to 100", async () => {
    const user = await createUser();
    const { type } = await manyOfType(user, 105);
    const res = await listBlocks(user, `type=${type}&limit=150`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(100);
    expectPageHeaders(res, { total: 105, limit: 100, offset: 0, hasMore: true });
  });

  it("pages through with limit and offset, without gaps or repeats", async () => {
    const user = await createUser();
    const { type, blockIds } = await manyOfType(user, 5);
    const pages = [];
    for (const offset of [0, 2, 4]) {
      const res = await listBlocks(user, `type=${type}&sortBy=position&sortOrder=asc&limit=2&offset=${offset}`);
      expectPageHeaders(res, { total: 5, limit: 2, offset, hasMore: offset < 4 });
      pages.push(...ids(res.body));
    }
    expect(pages).toEqual(blockIds);
    const past = await listBlocks(user, `type=${type}&offset=10`);
    expect(past.body).toEqual([]);
    expectPageHeaders(past, { total: 5, limit: 50, offset: 10, hasMore: false });
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=x", "limit"],
    ["limit=2.5", "limit"],
    // Only decimal digits are a number: none of these is read as JavaScript's Number() would read it.
    ["limit=0x10", "limit"],
    ["limit=1e1", "limit"],
    ["limit=5.0", "limit"],
    ["limit=%205", "limit"],
    ["limit=", "limit"],
    ["offset=", "offset"],
    ["offset=0b1", "offset"],
    ["offset=-1", "offset"],
    ["offset=x", "offset"],
    ["sortBy=title", "sortBy"],
    ["sortBy=seq", "sortBy"],
    ["sortOrder=up", "sortOrder"],
    ["archived=yes", "archived"],
    ["in_trash=1", "in_trash"],
    [`q=${"a".repeat(501)}`, "q"],
  ])("refuses %s (400 naming the parameter)", async (query, field) => {
    const user = await createUser();
    const res = await listBlocks(user, query);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
  });

  it("says what is wrong with an integer: not decimal digits, or out of bounds", async () => {
    const user = await createUser();
    const messages = async (query: string) => {
      const res = await listBlocks(user, query);
      expectErrorBody(res, 400);
      return JSON.stringify(res.body);
    };
    expect(await messages("limit=0x10")).toContain("Expected an integer in decimal digits");
    expect(await messages("limit=0")).toContain("Too small");
    expect(await messages("offset=-1")).toContain("Too small");
  });

  it("refuses an unknown query parameter (400 naming it)", async () => {
    const user = await createUser();
    const res = await listBlocks(user, "page_size=10");
    expectErrorBody(res, 400);
    expect(JSON.stringify(res.body)).toContain("page_size");
  });

  it("refuses parent_id and parentId with different values (400)", async () => {
    const user = await createUser();
    expectErrorBody(await listBlocks(user, "parent_id=a&parentId=b"), 400);
  });
});

describe("GET /api/v1/blocks: visibility and filters", () => {
  it("lists only the caller's and shared blocks, in one D1 round trip beyond authentication", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const mine = await createBlock(user, { properties: { title: "mine" } });
    const theirs = await createBlock(other, { properties: { title: "theirs" } });
    const shared = await insertBlock({ created_by: null });
    const res = await listBlocks(user, "limit=100");
    expect(res.status).toBe(200);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
    expect(ids(res.body)).toContain(mine.id);
    expect(ids(res.body)).toContain(shared);
    expect(ids(res.body)).not.toContain(theirs.id);
    for (const block of res.body) expect([user.id, null]).toContain(block.created_by);
  });

  it("filters by type, keeping other users' blocks of that type out and shared ones in", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const type = uniqueType();
    const mine = await createBlock(user, { type });
    await createBlock(user, { type: "paragraph" });
    await createBlock(other, { type });
    const shared = await insertBlock({ type, created_by: null });
    const res = await listBlocks(user, `type=${type}&sortBy=created_at&sortOrder=asc`);
    expect(ids(res.body).sort()).toEqual([mine.id, shared].sort());
    expect(res.body.find((b) => b.id === mine.id)).toEqual(mine);
    expect(res.headers.get("X-Total-Count")).toBe("2");
  });

  it.each(["parent_id", "parentId"])("filters by %s, in one D1 round trip beyond authentication", async (key) => {
    const [user, other] = [await createUser(), await createUser()];
    const parent = await insertBlock({ type: "page", created_by: null });
    const a = await createBlock(user, { parent_id: parent });
    const b = await createBlock(user, { parent_id: parent });
    await createBlock(user, { parent_id: a.id }); // grandchild: not listed
    await createBlock(other, { parent_id: parent }); // another user's: not listed
    const res = await listBlocks(user, `${key}=${parent}&sortBy=position&sortOrder=asc`);
    expect(ids(res.body)).toEqual([a.id, b.id]);
    expect(res.headers.get("X-Total-Count")).toBe("2");
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it.each(["database_id", "databaseId"])("filters by %s", async (key) => {
    const user = await createUser();
    const database = await createBlock(user, { type: "database" });
    const otherDatabase = await createBlock(user, { type: "database" });
    const row = await createBlock(user, { type: "database_row", database_id: database.id });
    await createBlock(user, { type: "database_row", database_id: otherDatabase.id });
    const res = await listBlocks(user, `${key}=${database.id}`);
    expect(res.body).toEqual([row]);
  });

  it("lists active blocks by default, archived ones with archived=true, trashed ones with in_trash=true", async () => {
    const user = await createUser();
    const type = uniqueType();
    const [active, archived, trashed, both] = await insertBlocks([
      { type, created_by: user.id },
      { type, created_by: user.id, archived: true },
      { type, created_by: user.id, in_trash: true },
      { type, created_by: user.id, archived: true, in_trash: true },
    ]);
    expect(ids((await listBlocks(user, `type=${type}`)).body)).toEqual([active]);
    expect(ids((await listBlocks(user, `type=${type}&archived=false&in_trash=false`)).body)).toEqual([active]);
    expect(ids((await listBlocks(user, `type=${type}&archived=true`)).body)).toEqual([archived]);
    expect(ids((await listBlocks(user, `type=${type}&in_trash=true`)).body)).toEqual([trashed]);
    expect(ids((await listBlocks(user, `type=${type}&archived=true&in_trash=true`)).body)).toEqual([both]);
  });

  it("never lists provider_audit_log blocks", async () => {
    const user = await createUser();
    await insertBlocks([
      { type: "provider_audit_log", created_by: user.id },
      { type: "provider_audit_log", created_by: null },
    ]);
    const res = await listBlocks(user, "type=provider_audit_log");
    expect(res.body).toEqual([]);
    expect(res.headers.get("X-Total-Count")).toBe("0");
  });
});

describe("GET /api/v1/blocks: sorting", () => {
  // created_at, updated_at and position each give a different order.
  async function threeBlocks(user: TestUser) {
    const type = uniqueType();
    const parent = await createBlock(user, { type: "page" });
    const [a, b, c] = await insertBlocks(
      [
        { position: 2, created_at: "2024-01-01T00:00:00.000Z", updated_at: "2024-03-03T00:00:00.000Z" },
        { position: 3, created_at: "2024-01-02T00:00:00.000Z", updated_at: "2024-03-01T00:00:00.000Z" },
        { position: 1, created_at: "2024-01-03T00:00:00.000Z", updated_at: "2024-03-02T00:00:00.000Z" },
      ].map((row) => ({ ...row, type, parent_id: parent.id, created_by: user.id })),
    );
    return { type, parentId: parent.id, a, b, c };
  }

  it.each([
    ["", ["a", "c", "b"]],
    ["&sortOrder=asc", ["b", "c", "a"]],
    ["&sortBy=updated_at&sortOrder=desc", ["a", "c", "b"]],
    ["&sortBy=updated_at&sortOrder=asc", ["b", "c", "a"]],
    ["&sortBy=created_at&sortOrder=asc", ["a", "b", "c"]],
    ["&sortBy=created_at", ["c", "b", "a"]],
    ["&sortBy=position&sortOrder=asc", ["c", "a", "b"]],
    ["&sortBy=position&sortOrder=desc", ["b", "a", "c"]],
  ])("orders by %j as %j, filtered by type and by parent", async (sort, order) => {
    const user = await createUser();
    const blocks = await threeBlocks(user);
    const expected = order.map((key) => blocks[key as "a" | "b" | "c"]);
    expect(ids((await listBlocks(user, `type=${blocks.type}${sort}`)).body)).toEqual(expected);
    expect(ids((await listBlocks(user, `parent_id=${blocks.parentId}${sort}`)).body)).toEqual(expected);
  });
});

describe("GET /api/v1/blocks?q= (full-text search)", () => {
  it("finds a block by its title, in one D1 round trip beyond authentication", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const block = await createBlock(user, { type: "page", properties: { title: `Quarterly ${word} review` } });
    await createBlock(user, { type: "page", properties: { title: "Quarterly budget review" } });
    const res = await listBlocks(user, q(word));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([block]);
    expectPageHeaders(res, { total: 1, limit: 50, offset: 0, hasMore: false });
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("finds a block by a rich-text title, another property value and its content text", async () => {
    const user = await createUser();
    const [w1, w2, w3] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const richTitle = await createBlock(user, { properties: { title: [{ text: { content: w1 } }] } });
    const byProperty = await createBlock(user, { properties: { title: "Row", status: { name: `In ${w2}` } } });
    const byContent = await createBlock(user, {
      type: "page",
      properties: { title: "Notes" },
      content: [
        { type: "heading-1", children: [{ text: "Intro" }] },
        { type: "paragraph", children: [{ text: `We discussed ${w3} at length` }] },
      ],
    });
    expect(ids((await listBlocks(user, q(w1))).body)).toEqual([richTitle.id]);
    expect(ids((await listBlocks(user, q(w2))).body)).toEqual([byProperty.id]);
    expect(ids((await listBlocks(user, q(w3))).body)).toEqual([byContent.id]);
  });

  it("ranks a title match above a body-only match", async () => {
    const user = await createUser();
    const word = uniqueWord();
    // The title match is created first, so recency alone would put it last.
    const inTitle = await createBlock(user, { properties: { title: `${word} plan` }, content: null });
    const inBody = await createBlock(user, {
      properties: { title: "Other plan" },
      content: [{ type: "paragraph", children: [{ text: word }] }],
    });
    expect(ids((await listBlocks(user, q(word))).body)).toEqual([inTitle.id, inBody.id]);
  });

  it("requires every word, matching the last one as a prefix", async () => {
    const user = await createUser();
    const [w1, w2] = [uniqueWord(), uniqueWord()];
    const block = await createBlock(user, { properties: { title: `${w1} ${w2}` } });
    await createBlock(user, { properties: { title: w1 } });
    expect(ids((await listBlocks(user, q(`${w1} ${w2}`))).body)).toEqual([block.id]);
    expect(ids((await listBlocks(user, q(`${w1} ${w2.slice(0, 5)}`))).body)).toEqual([block.id]);
    expect((await listBlocks(user, q(`${w1.slice(0, 5)} ${w2}`))).body).toEqual([]);
    expect(ids((await listBlocks(user, q(`${w2.slice(0, 6)}`))).body)).toEqual([block.id]);
  });

  it.each([
    '"',
    '"unterminated',
    "*",
    "NEAR(a b)",
    "title:x",
    "a OR b",
    "-x",
    "(x",
    "x AND",
    "^x",
    "{title body}: x",
    "'; DROP TABLE blocks; --",
    "%",
    "🙂",
  ])("takes FTS syntax in q literally: %j answers 200", async (text) => {
    const user = await createUser();
    const res = await listBlocks(user, q(text));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
  });

  it("treats operators and quotes around a word as plain text", async () => {
    const user = await createUser();
    const [word, absent] = [uniqueWord(), uniqueWord()];
    const block = await createBlock(user, { properties: { title: word } });
    expect(ids((await listBlocks(user, q(`"${word}"`))).body)).toEqual([block.id]);
    expect(ids((await listBlocks(user, q(`${word}*`))).body)).toEqual([block.id]);
    expect(ids((await listBlocks(user, q(`title:${word}`))).body)).toEqual([]);
    // As an operator, OR would match the block; taken literally every word must occur.
    expect((await listBlocks(user, q(`${word} OR ${absent}`))).body).toEqual([]);
  });

  it("never returns other users' blocks; returns shared ones", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const word = uniqueWord();
    const mine = await createBlock(user, { properties: { title: word } });
    const theirs = await createBlock(other, { properties: { title: word } });
    const shared = await insertBlock({ created_by: null, properties: { title: word } });
    const res = await listBlocks(user, `${q(word)}&sortBy=created_at&sortOrder=asc`);
    expect(ids(res.body)).toEqual([mine.id, shared]);
    expect(ids(res.body)).not.toContain(theirs.id);
    expect(res.headers.get("X-Total-Count")).toBe("2");
    expect(ids((await listBlocks(other, q(word))).body).sort()).toEqual([theirs.id, shared].sort());
  });

  it("combines q with type, archived and in_trash filters", async () => {
    const user = await createUser();
    const [word, type] = [uniqueWord(), uniqueType()];
    const [plain, typed, archived, trashed] = await insertBlocks([
      { created_by: user.id, properties: { title: word } },
      { type, created_by: user.id, properties: { title: word } },
      { created_by: user.id, properties: { title: word }, archived: true },
      { created_by: user.id, properties: { title: word }, in_trash: true },
    ]);
    expect(ids((await listBlocks(user, `${q(word)}&sortBy=created_at`)).body).sort()).toEqual([plain, typed].sort());
    expect(ids((await listBlocks(user, `${q(word)}&type=${type}`)).body)).toEqual([typed]);
    expect(ids((await listBlocks(user, `${q(word)}&archived=true`)).body)).toEqual([archived]);
    expect(ids((await listBlocks(user, `${q(word)}&in_trash=true`)).body)).toEqual([trashed]);
  });

  it("pages search results and sorts them by a field when asked", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const [first, second, third] = await insertBlocks(
      ["2024-01-01", "2024-01-02", "2024-01-03"].map((day) => ({
        created_by: user.id,
        properties: { title: word },
        created_at: `${day}T00:00:00.000Z`,
      })),
    );
    const page1 = await listBlocks(user, `${q(word)}&sortBy=created_at&sortOrder=asc&limit=2`);
    expect(ids(page1.body)).toEqual([first, second]);
    expectPageHeaders(page1, { total: 3, limit: 2, offset: 0, hasMore: true });
    const page2 = await listBlocks(user, `${q(word)}&sortBy=created_at&sortOrder=asc&limit=2&offset=2`);
    expect(ids(page2.body)).toEqual([third]);
    expectPageHeaders(page2, { total: 3, limit: 2, offset: 2, hasMore: false });
  });

  it("follows updates and deletes of the searched text", async () => {
    const user = await createUser();
    const [before, after, inContent] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const block = await createBlock(user, { properties: { title: before } });
    const patched = await api<Block>(`${BLOCKS}/${block.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { title: after }, content: [{ type: "paragraph", children: [{ text: inContent }] }] },
    });
    expect(patched.status).toBe(200);
    expect((await listBlocks(user, q(before))).body).toEqual([]);
    expect((await listBlocks(user, q(after))).body).toEqual([patched.body]);
    expect((await listBlocks(user, q(inContent))).body).toEqual([patched.body]);
    await api(`${BLOCKS}/${block.id}`, { method: "DELETE", auth: user });
    expect((await listBlocks(user, q(after))).body).toEqual([]);
  });

  it("answers [] for a q without any word", async () => {
    const user = await createUser();
    await createBlock(user, { properties: { title: "something" } });
    const res = await listBlocks(user, q("  ?! "));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get("X-Total-Count")).toBe("0");
  });
});
