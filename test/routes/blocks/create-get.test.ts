import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  type Block,
  childrenOf,
  countStored,
  createBlock,
  getBlock,
  hierarchyOf,
  ISO_DATE_TIME,
  insertBlock,
  issuePaths,
  listBlocks,
  readBlockTarget,
  setupBlockTarget,
  storedRow,
  UUID,
  uniqueType,
  uniqueWord,
} from "../../helpers/blocks";

const post = (auth: TestUser | undefined, body: unknown) => api<Block>(BLOCKS, { method: "POST", auth, body });

describeAuthMatrix({
  name: "POST /api/v1/blocks",
  method: "POST",
  path: () => BLOCKS,
  body: { type: "paragraph" },
});

describeAuthMatrix({
  name: "GET /api/v1/blocks/{id}",
  method: "GET",
  path: (id) => `${BLOCKS}/${id}`,
  setup: setupBlockTarget,
  readBack: readBlockTarget,
});

describe("POST /api/v1/blocks", () => {
  it("creates a block with a generated UUID, owned by the caller, and stores what it returns", async () => {
    const user = await createUser();
    const content = [{ type: "paragraph", children: [{ text: "Hello" }] }];
    const res = await post(user, { type: "page", properties: { title: "My page", icon: "📄" }, content });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      type: "page",
      parent_id: null,
      database_id: null,
      teamspace_id: null,
      properties: { title: "My page", icon: "📄" },
      content,
      position: expect.any(Number),
      archived: false,
      in_trash: false,
      created_by: user.id,
      last_edited_by: user.id,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: expect.stringMatching(ISO_DATE_TIME),
    });
    const read = await getBlock(user, res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("generates a different id for each block", async () => {
    const user = await createUser();
    const a = await createBlock(user);
    const b = await createBlock(user);
    expect(a.id).not.toBe(b.id);
  });

  it("uses a caller-supplied id", async () => {
    const user = await createUser();
    const id = `caller_${crypto.randomUUID()}`;
    const res = await post(user, { id, type: "paragraph" });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
    expect((await getBlock(user, id)).body).toEqual(res.body);
  });

  it("defaults properties to {} and content to null", async () => {
    const user = await createUser();
    const res = await post(user, { type: "divider" });
    expect(res.status).toBe(201);
    expect(res.body.properties).toEqual({});
    expect(res.body.content).toBeNull();
    expect(JSON.parse((await storedRow(res.body.id))?.properties as string)).toEqual({});
  });

  it.each([
    ["parent_id", "parent_id"],
    ["parentId", "parent_id"],
    ["database_id", "database_id"],
    ["databaseId", "database_id"],
  ] as const)("accepts the %s spelling and stores it as %s", async (spelling, field) => {
    const user = await createUser();
    const isDatabase = field === "database_id";
    const reference = await createBlock(user, { type: isDatabase ? "database" : "page" });
    const res = await post(user, { type: isDatabase ? "database_row" : "paragraph", [spelling]: reference.id });
    expect(res.status).toBe(201);
    expect(res.body[field]).toBe(reference.id);
    expect((await getBlock(user, res.body.id)).body[field]).toBe(reference.id);
  });

  it("accepts both spellings when they agree", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const res = await post(user, { type: "paragraph", parent_id: parent.id, parentId: parent.id });
    expect(res.status).toBe(201);
    expect(res.body.parent_id).toBe(parent.id);
  });

  it.each([
    ["parent_id", "parentId"],
    ["database_id", "databaseId"],
  ])("refuses %s and %s with different values (400) and stores nothing", async (snake, camel) => {
    const user = await createUser();
    const a = await createBlock(user, { type: "database" });
    const b = await createBlock(user, { type: "database" });
    const id = crypto.randomUUID();
    const res = await post(user, { id, type: "paragraph", [snake]: a.id, [camel]: b.id });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { [snake]: a.id, [camel]: b.id } });
    expect(await countStored([id])).toBe(0);
  });

  it("refuses a body without type (400 naming `type`)", async () => {
    const user = await createUser();
    const res = await post(user, { properties: { title: "No type" } });
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("type");
  });

  it.each([
    ["type is not a string", { type: 42 }, "type"],
    ["type is empty", { type: "" }, "type"],
    ["type has spaces", { type: "not a type" }, "type"],
    ["properties is an array", { type: "paragraph", properties: ["x"] }, "properties"],
    ["properties is a string", { type: "paragraph", properties: "x" }, "properties"],
    ["position is a string", { type: "paragraph", position: "1" }, "position"],
    ["id has a slash", { type: "paragraph", id: "a/b" }, "id"],
    ["id is empty", { type: "paragraph", id: "" }, "id"],
    ["id is too long", { type: "paragraph", id: "x".repeat(129) }, "id"],
    ["parent_id is empty", { type: "paragraph", parent_id: "" }, "parent_id"],
    ["parent_id is a number", { type: "paragraph", parent_id: 7 }, "parent_id"],
  ])("refuses a body where %s (400 naming the field)", async (_case, body, field) => {
    const user = await createUser();
    const res = await post(user, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
  });

  it("refuses unknown body fields (400 naming them) and stores nothing", async () => {
    const user = await createUser();
    const id = crypto.randomUUID();
    const res = await post(user, { id, type: "paragraph", colour: "red" });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({
      details: {
        issues: [expect.objectContaining({ code: "unrecognized_keys", message: expect.stringContaining("colour") })],
      },
    });
    expect(await countStored([id])).toBe(0);
  });

  it.each(["created_by", "last_edited_by", "created_at", "updated_at", "archived", "in_trash"])(
    "does not let the caller set the server-controlled field %s (400, nothing stored)",
    async (field) => {
      const user = await createUser();
      const other = await createUser();
      const id = crypto.randomUUID();
      const value = field.endsWith("_at") ? "2000-01-01T00:00:00.000Z" : field.endsWith("_by") ? other.id : true;
      const res = await post(user, { id, type: "paragraph", [field]: value });
      expectErrorBody(res, 400);
      expect(JSON.stringify(res.body)).toContain(field);
      expect(await countStored([id])).toBe(0);
    },
  );

  it("refuses malformed JSON (400)", async () => {
    const user = await createUser();
    const res = await post(user, '{"type": "paragraph",');
    expectErrorBody(res, 400);
  });

  it("refuses a body that is not JSON (415)", async () => {
    const user = await createUser();
    const res = await api(BLOCKS, {
      method: "POST",
      auth: user,
      body: '{"type":"paragraph"}',
      headers: { "Content-Type": "text/plain" },
    });
    expectErrorBody(res, 415);
  });

  it("refuses a duplicate caller id (409) and leaves the existing block as it was", async () => {
    const user = await createUser();
    const existing = await createBlock(user, { properties: { title: "first" } });
    const res = await post(user, { id: existing.id, type: "heading-1", properties: { title: "second" } });
    expectErrorBody(res, 409);
    expect((await getBlock(user, existing.id)).body).toEqual(existing);
  });

  it("refuses an id already used by another user's block (409) without touching that block", async () => {
    const owner = await createUser();
    const other = await createUser();
    const existing = await createBlock(owner, { properties: { title: "owner's" } });
    const res = await post(other, { id: existing.id, type: "paragraph", properties: { title: "taken over" } });
    expectErrorBody(res, 409);
    expect((await getBlock(owner, existing.id)).body).toEqual(existing);
    expect((await getBlock(other, existing.id)).status).toBe(404);
  });

  it.each([
    ["parent_id", "page"],
    ["database_id", "database"],
  ])("refuses a %s that is another user's block (404) and stores nothing", async (field, type) => {
    const user = await createUser();
    const other = await createUser();
    const foreign = await createBlock(other, { type });
    const id = crypto.randomUUID();
    const res = await post(user, { id, type: "paragraph", [field]: foreign.id });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { field, id: foreign.id } });
    expect(await countStored([id])).toBe(0);
    expect((await childrenOf(other, foreign.id)).body).toEqual([]);
  });

  it("refuses a parent that does not exist (404)", async () => {
    const user = await createUser();
    const res = await post(user, { type: "paragraph", parent_id: crypto.randomUUID() });
    expectErrorBody(res, 404);
  });

  it("creates under a shared parent", async () => {
    const user = await createUser();
    const shared = await insertBlock({ type: "page", created_by: null });
    const res = await post(user, { type: "paragraph", parent_id: shared });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ parent_id: shared, created_by: user.id });
  });

  it("refuses type provider_audit_log (403) and stores nothing", async () => {
    const user = await createUser();
    const id = crypto.randomUUID();
    const res = await post(user, { id, type: "provider_audit_log", properties: { provider: "x" } });
    expectErrorBody(res, 403);
    expect(await storedRow(id)).toBeNull();
  });

  it("stores nothing for an unauthenticated create", async () => {
    const id = crypto.randomUUID();
    const res = await post(undefined, { id, type: "paragraph" });
    expectErrorBody(res, 401);
    expect(await storedRow(id)).toBeNull();
  });

  it("places a block without position after its last sibling", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const first = await createBlock(user, { parent_id: parent.id });
    const second = await createBlock(user, { parent_id: parent.id });
    const placed = await createBlock(user, { parent_id: parent.id, position: 10 });
    const after = await createBlock(user, { parent_id: parent.id });

    expect(second.position).toBeGreaterThan(first.position as number);
    expect(placed.position).toBe(10);
    expect(after.position).toBeGreaterThan(10);
    const children = await childrenOf(user, parent.id);
    expect(children.body.map((b) => b.id)).toEqual([first.id, second.id, placed.id, after.id]);
  });

  it("places a top-level block after the caller's own and shared top-level blocks, not other users'", async () => {
    const user = await createUser();
    const other = await createUser();
    const first = await createBlock(user, { type: "page" });
    // Another user's activity far above: it must not show in the caller's positions.
    await insertBlock({ type: "page", position: 1e9, created_by: other.id });
    await insertBlock({ type: "provider_audit_log", position: 2e9, created_by: user.id });
    const second = await createBlock(user, { type: "page" });
    expect(second.position).toBe((first.position as number) + 1);

    const shared = await insertBlock({ type: "page", position: (second.position as number) + 10, created_by: null });
    const third = await createBlock(user, { type: "page" });
    expect(third.position).toBe((second.position as number) + 11);
    expect((await storedRow(shared))?.position).toBe((second.position as number) + 10);
  });

  it("places a child after the siblings the caller sees under a shared parent", async () => {
    const user = await createUser();
    const other = await createUser();
    const parent = await insertBlock({ type: "page", created_by: null });
    const mine = await createBlock(user, { parent_id: parent, position: 3 });
    await insertBlock({ parent_id: parent, position: 500, created_by: other.id });
    const next = await createBlock(user, { parent_id: parent });
    expect(next.position).toBe((mine.position as number) + 1);
  });

  it("stores an explicit position as given, including fractions", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const res = await post(user, { type: "paragraph", parent_id: parent.id, position: 2.5 });
    expect(res.body.position).toBe(2.5);
    expect((await storedRow(res.body.id))?.position).toBe(2.5);
  });
});

describe("GET /api/v1/blocks/{id}", () => {
  it("returns the caller's active block in one D1 round trip beyond authentication", async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "page", properties: { title: "Read me" } });
    const res = await getBlock(user, block.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(block);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("404 with an error body for a block that does not exist", async () => {
    const user = await createUser();
    const res = await getBlock(user, crypto.randomUUID());
    expectErrorBody(res, 404);
  });

  it("404 for another user's block", async () => {
    const owner = await createUser();
    const other = await createUser();
    const block = await createBlock(owner);
    expectErrorBody(await getBlock(other, block.id), 404);
  });

  it.each(["archive", "trash"])("404 for a block after %s (reads return only active blocks)", async (action) => {
    const user = await createUser();
    const block = await createBlock(user);
    expect((await api(`${BLOCKS}/${block.id}/${action}`, { method: "POST", auth: user })).status).toBe(200);
    expectErrorBody(await getBlock(user, block.id), 404);
  });

  it("returns a shared block (created_by null) to every user", async () => {
    const [a, b] = [await createUser(), await createUser()];
    const id = await insertBlock({ type: "page", created_by: null, properties: { title: "Shared" } });
    for (const user of [a, b]) {
      const res = await getBlock(user, id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, created_by: null, properties: { title: "Shared" } });
    }
  });

  it("never returns provider_audit_log blocks, owned or shared, by get, children, hierarchy, listing or search", async () => {
    const user = await createUser();
    const word = uniqueWord();
    const parent = await createBlock(user, { type: "page" });
    const owned = await insertBlock({
      type: "provider_audit_log",
      parent_id: parent.id,
      created_by: user.id,
      properties: { title: word },
    });
    const shared = await insertBlock({
      type: "provider_audit_log",
      parent_id: parent.id,
      created_by: null,
      properties: { title: word },
    });
    for (const id of [owned, shared]) expectErrorBody(await getBlock(user, id), 404);
    expect((await childrenOf(user, parent.id)).body).toEqual([]);
    expect((await hierarchyOf(user, parent.id)).body.children).toEqual([]);
    expect((await listBlocks(user, "type=provider_audit_log")).body).toEqual([]);
    expect((await listBlocks(user, `parent_id=${parent.id}`)).body).toEqual([]);
    const search = await listBlocks(user, `q=${word}`);
    expect(search.body).toEqual([]);
    expect(search.headers.get("X-Total-Count")).toBe("0");
    const everything = await listBlocks(user, "limit=100");
    expect(everything.body.filter((b) => b.type === "provider_audit_log")).toEqual([]);
  });

  it("does not return an archived shared block", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "page", created_by: null, archived: true, properties: { t: uniqueType() } });
    expectErrorBody(await getBlock(user, id), 404);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    const res = await getBlock(user, "a".repeat(129));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("id");
  });
});
