import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  type Block,
  type BlockTree,
  childrenOf,
  createBlock,
  getBlock,
  hierarchyOf,
  insertBlock,
  insertBlocks,
  issuePaths,
  readBlockTarget,
  setupBlockTarget,
  storedRow,
  treeDepth,
  treeIds,
} from "../../helpers/blocks";

const post = (user: TestUser | undefined, path: string, body?: unknown) =>
  api<Block>(`${BLOCKS}/${path}`, { method: "POST", auth: user, body });

const ids = (blocks: Block[]) => blocks.map((b) => b.id);

/** A chain of `length` blocks below `rootId`, each the only child of the previous one; returns their ids. */
async function chainBelow(user: TestUser, rootId: string, length: number): Promise<string[]> {
  const chain = Array.from({ length }, () => crypto.randomUUID());
  await insertBlocks(chain.map((id, i) => ({ id, parent_id: i === 0 ? rootId : chain[i - 1], created_by: user.id })));
  return chain;
}

/** Drops the fields a copy is expected to differ in, keeping the shape and the copied data. */
const shapeOf = (node: BlockTree): unknown => ({
  type: node.type,
  properties: node.properties,
  content: node.content,
  children: node.children.map(shapeOf),
});

for (const [name, method, suffix] of [
  ["GET /api/v1/blocks/{id}/children", "GET", "children"],
  ["GET /api/v1/blocks/{id}/hierarchy", "GET", "hierarchy"],
  ["POST /api/v1/blocks/{id}/duplicate", "POST", "duplicate"],
] as const) {
  describeAuthMatrix({
    name,
    method,
    path: (id) => `${BLOCKS}/${id}/${suffix}`,
    setup: setupBlockTarget,
    readBack: readBlockTarget,
  });
}

describeAuthMatrix({
  name: "POST /api/v1/blocks/{id}/move",
  method: "POST",
  path: (id) => `${BLOCKS}/${id}/move`,
  body: { parent_id: null, position: 99 },
  setup: setupBlockTarget,
  readBack: readBlockTarget,
});

describe("GET /api/v1/blocks/{id}/children", () => {
  it("returns direct children by position ascending, unpositioned last, in one D1 round trip beyond authentication", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const third = await createBlock(user, { parent_id: parent.id, position: 3 });
    const unpositioned = await insertBlock({ parent_id: parent.id, position: null, created_by: user.id });
    const first = await createBlock(user, { parent_id: parent.id, position: 1 });
    const second = await createBlock(user, { parent_id: parent.id, position: 2.5 });
    await createBlock(user, { parent_id: first.id }); // a grandchild: not a direct child

    const res = await childrenOf(user, parent.id);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([first.id, second.id, third.id, unpositioned]);
    expect(res.body[0]).toEqual(first);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("excludes archived and trashed children", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const active = await createBlock(user, { parent_id: parent.id });
    const archived = await createBlock(user, { parent_id: parent.id });
    const trashed = await createBlock(user, { parent_id: parent.id });
    await post(user, `${archived.id}/archive`);
    await post(user, `${trashed.id}/trash`);
    expect(ids((await childrenOf(user, parent.id)).body)).toEqual([active.id]);
  });

  it("under a shared parent, returns the caller's and shared children but not other users'", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const parent = await insertBlock({ type: "page", created_by: null });
    const mine = await createBlock(user, { parent_id: parent, position: 1 });
    const theirs = await createBlock(other, { parent_id: parent, position: 2 });
    const [shared] = await insertBlocks([{ parent_id: parent, position: 3, created_by: null }]);
    await insertBlock({ type: "provider_audit_log", parent_id: parent, position: 4, created_by: null });

    expect(ids((await childrenOf(user, parent)).body)).toEqual([mine.id, shared]);
    expect(ids((await childrenOf(other, parent)).body)).toEqual([theirs.id, shared]);
  });

  it("returns [] for a block without children", async () => {
    const user = await createUser();
    const leaf = await createBlock(user);
    const res = await childrenOf(user, leaf.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("404 for a missing parent and for an archived or trashed parent", async () => {
    const user = await createUser();
    expectErrorBody(await childrenOf(user, crypto.randomUUID()), 404);
    for (const action of ["archive", "trash"]) {
      const parent = await createBlock(user, { type: "page" });
      await createBlock(user, { parent_id: parent.id });
      await post(user, `${parent.id}/${action}`);
      expectErrorBody(await childrenOf(user, parent.id), 404);
    }
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    const res = await childrenOf(user, "a".repeat(129));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("id");
  });
});

describe("GET /api/v1/blocks/{id}/hierarchy", () => {
  it("nests active visible descendants in `children`, ordered by position, in one D1 round trip beyond authentication", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const root = await insertBlock({ type: "page", created_by: null, properties: { title: "Shared root" } });
    const b = await createBlock(user, { parent_id: root, position: 2 });
    const a = await createBlock(user, { parent_id: root, position: 1 });
    const a2 = await createBlock(user, { parent_id: a.id, position: 2 });
    const a1 = await createBlock(user, { parent_id: a.id, position: 1 });
    const archived = await createBlock(user, { parent_id: a.id, position: 3 });
    await createBlock(user, { parent_id: archived.id }); // under an archived block: hidden with it
    await post(user, `${archived.id}/archive`);
    const trashed = await createBlock(user, { parent_id: b.id });
    await post(user, `${trashed.id}/trash`);
    await createBlock(other, { parent_id: root }); // another user's child of the shared root

    const res = await hierarchyOf(user, root);
    expect(res.status).toBe(200);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
    const { children: _children, ...rootBlock } = res.body;
    expect(rootBlock).toEqual((await getBlock(user, root)).body);
    expect(res.body.children.map((child) => ({ id: child.id, children: child.children.map((c) => c.id) }))).toEqual([
      { id: a.id, children: [a1.id, a2.id] },
      { id: b.id, children: [] },
    ]);
    expect(res.body.children[0]?.children[0]).toEqual({ ...a1, children: [] });
  });

  it("goes 10 levels deep by default", async () => {
    const user = await createUser();
    const root = await createBlock(user, { type: "page" });
    const chain = await chainBelow(user, root.id, 12);
    const res = await hierarchyOf(user, root.id);
    expect(treeDepth(res.body)).toBe(10);
    expect(treeIds(res.body)).toEqual([root.id, ...chain.slice(0, 10)]);
  });

  it.each([0, 1, 3])("honours depth=%i", async (depth) => {
    const user = await createUser();
    const root = await createBlock(user, { type: "page" });
    const chain = await chainBelow(user, root.id, 5);
    const res = await hierarchyOf(user, root.id, `?depth=${depth}`);
    expect(res.status).toBe(200);
    expect(treeIds(res.body)).toEqual([root.id, ...chain.slice(0, depth)]);
  });

  it("returns exactly 25 levels of a 30-deep chain with depth=25, still in one D1 round trip beyond authentication", async () => {
    const user = await createUser();
    const root = await createBlock(user, { type: "page" });
    const chain = await chainBelow(user, root.id, 30);
    const res = await hierarchyOf(user, root.id, "?depth=25");
    expect(res.status).toBe(200);
    expect(treeDepth(res.body)).toBe(25);
    expect(treeIds(res.body)).toEqual([root.id, ...chain.slice(0, 25)]);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it.each([
    ["26", "depth"],
    ["-1", "depth"],
    ["abc", "depth"],
    ["1.5", "depth"],
    ["0x2", "depth"],
    ["", "depth"],
  ])("refuses depth=%s (400 naming depth)", async (depth, field) => {
    const user = await createUser();
    const root = await createBlock(user);
    const res = await hierarchyOf(user, root.id, `?depth=${depth}`);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
  });

  it("refuses an unknown query parameter (400)", async () => {
    const user = await createUser();
    const root = await createBlock(user);
    const res = await hierarchyOf(user, root.id, "?levels=2");
    expectErrorBody(res, 400);
    expect(JSON.stringify(res.body)).toContain("levels");
  });

  it("404 for a missing block and for an archived one", async () => {
    const user = await createUser();
    expectErrorBody(await hierarchyOf(user, crypto.randomUUID()), 404);
    const root = await createBlock(user);
    await post(user, `${root.id}/archive`);
    expectErrorBody(await hierarchyOf(user, root.id), 404);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await hierarchyOf(user, "a".repeat(129)), 400);
  });
});

describe("POST /api/v1/blocks/{id}/duplicate", () => {
  /** page > [target > [c1 > [g1], c2, trashed c3], after] */
  async function family(user: TestUser) {
    const page = await createBlock(user, { type: "page" });
    const target = await createBlock(user, {
      parent_id: page.id,
      position: 1,
      type: "toggle",
      properties: { title: "Target", nested: { a: [1, 2] } },
      content: [{ type: "paragraph", children: [{ text: "body" }] }],
    });
    const after = await createBlock(user, { parent_id: page.id, position: 2 });
    const c1 = await createBlock(user, { parent_id: target.id, properties: { title: "c1" } });
    const g1 = await createBlock(user, { parent_id: c1.id, properties: { title: "g1" } });
    const c2 = await createBlock(user, { parent_id: target.id, properties: { title: "c2" } });
    const c3 = await createBlock(user, { parent_id: target.id, properties: { title: "c3" } });
    await post(user, `${c3.id}/trash`);
    return { page, target, after, c1, g1, c2, c3 };
  }

  it("copies the block and its active subtree with new ids, right after the original", async () => {
    const user = await createUser();
    const f = await family(user);
    const originalTree = (await hierarchyOf(user, f.target.id)).body;

    const res = await post(user, `${f.target.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      ...f.target,
      id: expect.any(String),
      position: expect.any(Number),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.id).not.toBe(f.target.id);
    expect(res.body.position).toBeGreaterThan(1);
    expect(res.body.position).toBeLessThan(2);
    expect(ids((await childrenOf(user, f.page.id)).body)).toEqual([f.target.id, res.body.id, f.after.id]);

    const copyTree = (await hierarchyOf(user, res.body.id)).body;
    expect(shapeOf(copyTree)).toEqual(shapeOf(originalTree));
    expect(treeIds(copyTree)).toHaveLength(4); // target, c1, g1, c2: the trashed c3 is not copied
    const originalIds = new Set([f.target.id, f.c1.id, f.g1.id, f.c2.id, f.c3.id]);
    for (const id of treeIds(copyTree)) expect(originalIds.has(id)).toBe(false);
    const walk = (node: BlockTree): void => {
      for (const child of node.children) {
        expect(child.parent_id).toBe(node.id);
        expect(child.created_by).toBe(user.id);
        walk(child);
      }
    };
    walk(copyTree);
    expect(copyTree.children.map((c) => c.position)).toEqual(originalTree.children.map((c) => c.position));

    expect((await hierarchyOf(user, f.target.id)).body).toEqual(originalTree);
    expect((await getBlock(user, f.target.id)).body).toEqual(f.target);
  });

  it('copies only the block with {"include_children": false}', async () => {
    const user = await createUser();
    const f = await family(user);
    const res = await post(user, `${f.target.id}/duplicate`, { include_children: false });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      parent_id: f.page.id,
      properties: f.target.properties,
      content: f.target.content,
    });
    expect((await childrenOf(user, res.body.id)).body).toEqual([]);
    expect(ids((await childrenOf(user, f.target.id)).body)).toEqual([f.c1.id, f.c2.id]);
  });

  it('copies children with {"include_children": true} and with an empty body', async () => {
    const user = await createUser();
    const f = await family(user);
    for (const body of [{ include_children: true }, {}]) {
      const res = await post(user, `${f.target.id}/duplicate`, body);
      expect(res.status).toBe(201);
      expect(treeIds((await hierarchyOf(user, res.body.id)).body)).toHaveLength(4);
    }
  });

  it("places the copy of the last sibling after it", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page" });
    const first = await createBlock(user, { parent_id: page.id, position: 1 });
    const last = await createBlock(user, { parent_id: page.id, position: 5 });
    const res = await post(user, `${last.id}/duplicate`);
    expect(res.body.position).toBeGreaterThan(5);
    expect(ids((await childrenOf(user, page.id)).body)).toEqual([first.id, last.id, res.body.id]);
  });

  it("gives each of 20 concurrent copies its own place after the original, before its next sibling", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page" });
    const before = await createBlock(user, { parent_id: page.id, position: 1 });
    const original = await createBlock(user, { parent_id: page.id, position: 2 });
    const after = await createBlock(user, { parent_id: page.id, position: 3 });

    const copies = await Promise.all(Array.from({ length: 20 }, () => post(user, `${original.id}/duplicate`)));
    expect(copies.map((res) => res.status)).toEqual(Array(20).fill(201));

    const children = (await childrenOf(user, page.id)).body;
    expect(children).toHaveLength(23);
    const positions = children.map((child) => child.position);
    expect(new Set(positions).size).toBe(23);
    expect(ids(children).slice(0, 2)).toEqual([before.id, original.id]);
    expect(ids(children).at(-1)).toBe(after.id);
    expect(new Set(ids(children).slice(2, -1))).toEqual(new Set(copies.map((res) => res.body.id)));
  });

  it("places the copy after the last sibling when no position is left between the original and the next", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page" });
    const original = await createBlock(user, { parent_id: page.id, position: 1 });
    const next = await createBlock(user, { parent_id: page.id, position: 1 + Number.EPSILON });
    const last = await createBlock(user, { parent_id: page.id, position: 5 });
    const res = await post(user, `${original.id}/duplicate`);
    expect(res.body.position).toBe(6);
    expect(ids((await childrenOf(user, page.id)).body)).toEqual([original.id, next.id, last.id, res.body.id]);
  });

  it("places the copy of an unpositioned block after the last sibling the caller sees", async () => {
    const user = await createUser();
    const other = await createUser();
    const page = await insertBlock({ type: "page", created_by: null });
    const original = await insertBlock({ parent_id: page, position: null, created_by: user.id });
    const last = await createBlock(user, { parent_id: page, position: 4 });
    await insertBlock({ parent_id: page, position: 900, created_by: other.id });
    const res = await post(user, `${original}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body.position).toBe((last.position as number) + 1);
  });

  it("places the copy before the next sibling the caller sees, whatever others have between", async () => {
    const user = await createUser();
    const other = await createUser();
    const page = await insertBlock({ type: "page", created_by: null });
    const original = await createBlock(user, { parent_id: page, position: 1 });
    await insertBlock({ parent_id: page, position: 1.5, created_by: other.id });
    await createBlock(user, { parent_id: page, position: 3 });
    const res = await post(user, `${original.id}/duplicate`);
    expect(res.body.position).toBe(2);
  });

  it("copies a shared block as a block owned by the caller, leaving the original shared", async () => {
    const user = await createUser();
    const shared = await insertBlock({ type: "page", created_by: null, properties: { title: "Template" } });
    const res = await post(user, `${shared}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created_by: user.id, last_edited_by: user.id, properties: { title: "Template" } });
    expect((await storedRow(shared))?.created_by).toBeNull();
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/duplicate`), 404);
  });

  it.each([
    ["include_children as a string", { include_children: "no" }, "include_children"],
    ["an unknown field", { deep: true }, ""],
  ])("refuses %s (400 with details) and copies nothing", async (_case, body, field) => {
    const user = await createUser();
    const f = await family(user);
    const res = await post(user, `${f.target.id}/duplicate`, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
    expect(ids((await childrenOf(user, f.page.id)).body)).toEqual([f.target.id, f.after.id]);
  });

  it("refuses malformed JSON (400) and copies nothing", async () => {
    const user = await createUser();
    const f = await family(user);
    expectErrorBody(await post(user, `${f.target.id}/duplicate`, "{include_children"), 400);
    expect(ids((await childrenOf(user, f.page.id)).body)).toEqual([f.target.id, f.after.id]);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/duplicate`), 400);
  });
});

describe("POST /api/v1/blocks/{id}/move", () => {
  it.each(["parent_id", "parentId"])("moves a block under another parent with %s and a position", async (key) => {
    const user = await createUser();
    const [from, to] = [await createBlock(user, { type: "page" }), await createBlock(user, { type: "page" })];
    const existing = await createBlock(user, { parent_id: to.id, position: 1 });
    const block = await createBlock(user, { parent_id: from.id, properties: { title: "Moving" } });

    const res = await post(user, `${block.id}/move`, { [key]: to.id, position: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...block, parent_id: to.id, position: 0.5, updated_at: expect.any(String) });
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
    expect((await childrenOf(user, from.id)).body).toEqual([]);
    expect(ids((await childrenOf(user, to.id)).body)).toEqual([block.id, existing.id]);
  });

  it("moves a block to the top level with parent_id null", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const block = await createBlock(user, { parent_id: parent.id });
    const res = await post(user, `${block.id}/move`, { parent_id: null });
    expect(res.status).toBe(200);
    expect(res.body.parent_id).toBeNull();
    expect((await childrenOf(user, parent.id)).body).toEqual([]);
  });

  it.each(["teamspace_id", "teamspaceId"])("sets and clears the teamspace with %s", async (key) => {
    const user = await createUser();
    const block = await createBlock(user);
    const set = await post(user, `${block.id}/move`, { [key]: "team-a" });
    expect(set.body).toMatchObject({ teamspace_id: "team-a", parent_id: block.parent_id, position: block.position });
    expect((await getBlock(user, block.id)).body.teamspace_id).toBe("team-a");
    const cleared = await post(user, `${block.id}/move`, { [key]: null });
    expect(cleared.body.teamspace_id).toBeNull();
  });

  it("changes only the position", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const a = await createBlock(user, { parent_id: parent.id });
    const b = await createBlock(user, { parent_id: parent.id });
    const res = await post(user, `${b.id}/move`, { position: 0 });
    expect(res.body).toMatchObject({ parent_id: parent.id, position: 0 });
    expect(ids((await childrenOf(user, parent.id)).body)).toEqual([b.id, a.id]);
  });

  it("refuses an empty body (400 with details) and changes nothing", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const res = await post(user, `${block.id}/move`, {});
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { fields: ["parent_id", "teamspace_id", "position"] } });
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses a request without a body (400)", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    expectErrorBody(await post(user, `${block.id}/move`), 400);
  });

  it.each([
    ["itself", 0],
    ["its child", 1],
    ["its grandchild", 2],
  ])("refuses moving a block under %s (400) and changes nothing", async (_case, index) => {
    const user = await createUser();
    const a = await createBlock(user, { type: "page" });
    const b = await createBlock(user, { parent_id: a.id });
    const c = await createBlock(user, { parent_id: b.id });
    const res = await post(user, `${a.id}/move`, { parent_id: [a.id, b.id, c.id][index], position: 7 });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "parent_id" } });
    expect((await getBlock(user, a.id)).body).toEqual(a);
    expect((await getBlock(user, b.id)).body).toEqual(b);
  });

  it("refuses a parent that does not exist (404) and changes nothing", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const missing = crypto.randomUUID();
    const res = await post(user, `${block.id}/move`, { parent_id: missing });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { field: "parent_id", id: missing } });
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses another user's block as parent (404) and changes nothing on either side", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const foreign = await createBlock(other, { type: "page" });
    const block = await createBlock(user);
    expectErrorBody(await post(user, `${block.id}/move`, { parent_id: foreign.id }), 404);
    expect((await getBlock(user, block.id)).body).toEqual(block);
    expect((await childrenOf(other, foreign.id)).body).toEqual([]);
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/move`, { position: 1 }), 404);
  });

  it.each([
    ["parent_id and parentId with different values", { parent_id: "a", parentId: "b" }, "parent_id"],
    ["teamspace_id and teamspaceId with different values", { teamspace_id: "a", teamspaceId: "b" }, "teamspace_id"],
  ])("refuses %s (400) and changes nothing", async (_case, body, key) => {
    const user = await createUser();
    const block = await createBlock(user);
    const res = await post(user, `${block.id}/move`, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { [key]: "a" } });
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it.each([
    ["an unknown field", { parent: "x" }, ""],
    ["position as a string", { position: "1" }, "position"],
    ["an empty parent_id", { parent_id: "" }, "parent_id"],
  ])("refuses %s (400 naming the field)", async (_case, body, field) => {
    const user = await createUser();
    const block = await createBlock(user);
    const res = await post(user, `${block.id}/move`, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
  });

  it("refuses malformed JSON (400)", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    expectErrorBody(await post(user, `${block.id}/move`, "{position: 1}"), 400);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/move`, { position: 1 }), 400);
  });
});
