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
  insertBlock,
  issuePaths,
  listBlocks,
  readBlockTarget,
  setupBlockTarget,
  storedRow,
} from "../../helpers/blocks";

const patch = (user: TestUser, id: string, body: unknown) =>
  api<Block>(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body });
const remove = (user: TestUser, id: string) =>
  api<{ success: boolean; message: string; deleted_count: number }>(`${BLOCKS}/${id}`, {
    method: "DELETE",
    auth: user,
  });

describeAuthMatrix({
  name: "PATCH /api/v1/blocks/{id}",
  method: "PATCH",
  path: (id) => `${BLOCKS}/${id}`,
  body: { properties: { title: "hijacked" }, archived: true },
  setup: setupBlockTarget,
  readBack: readBlockTarget,
});

describeAuthMatrix({
  name: "DELETE /api/v1/blocks/{id}",
  method: "DELETE",
  path: (id) => `${BLOCKS}/${id}`,
  setup: setupBlockTarget,
  readBack: readBlockTarget,
});

describe("PATCH /api/v1/blocks/{id}", () => {
  it("merges properties as an RFC 7396 merge patch and stores the result", async () => {
    const user = await createUser();
    const block = await createBlock(user, {
      properties: { title: "Plan", meta: { a: 1, b: 2, deep: { x: 1, y: 2 } }, drop: "me", tags: ["a", "b"] },
    });
    const res = await patch(user, block.id, {
      properties: { meta: { b: null, c: 3, deep: { y: null, z: 3 } }, drop: null, tags: ["c"], added: true },
    });
    const expected = { title: "Plan", meta: { a: 1, c: 3, deep: { x: 1, z: 3 } }, tags: ["c"], added: true };
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual(expected);
    expect((await getBlock(user, block.id)).body.properties).toEqual(expected);
  });

  it("replaces content as a whole", async () => {
    const user = await createUser();
    const block = await createBlock(user, {
      type: "page",
      content: [
        { type: "paragraph", children: [{ text: "one" }] },
        { type: "paragraph", children: [{ text: "two" }] },
      ],
    });
    const content = [{ type: "heading-1", children: [{ text: "only" }] }];
    const res = await patch(user, block.id, { content });
    expect(res.body.content).toEqual(content);
    expect((await getBlock(user, block.id)).body.content).toEqual(content);
  });

  it("clears content with null", async () => {
    const user = await createUser();
    const block = await createBlock(user, { content: [{ type: "paragraph", children: [{ text: "x" }] }] });
    const res = await patch(user, block.id, { content: null });
    expect(res.body.content).toBeNull();
    expect((await storedRow(block.id))?.content).toBeNull();
  });

  it("changes only the fields given; updated_at moves forward and last_edited_by is the caller", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "Keep" }, content: ["kept"] });
    const res = await patch(user, block.id, { type: "heading-2", position: 42 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...block,
      type: "heading-2",
      position: 42,
      updated_at: expect.any(String),
    });
    expect(res.body.updated_at >= block.updated_at).toBe(true);
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
  });

  it("accepts and ignores server-controlled fields in the body", async () => {
    const user = await createUser();
    const other = await createUser();
    const block = await createBlock(user, { properties: { title: "Mine" } });
    const res = await patch(user, block.id, {
      id: "renamed-id",
      created_by: other.id,
      created_at: "2000-01-01T00:00:00.000Z",
      updated_at: "2000-01-01T00:00:00.000Z",
      last_edited_by: other.id,
      properties: { title: "Still mine" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: block.id,
      created_by: user.id,
      created_at: block.created_at,
      last_edited_by: user.id,
      properties: { title: "Still mine" },
    });
    expect(res.body.updated_at).not.toBe("2000-01-01T00:00:00.000Z");
    expect(res.body.updated_at >= block.updated_at).toBe(true);
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
    expect(await storedRow("renamed-id")).toBeNull();
    expect((await getBlock(other, block.id)).status).toBe(404);
  });

  it("sets archived and in_trash, and clears them again", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const block = await createBlock(user, { parent_id: parent.id });

    const archived = await patch(user, block.id, { archived: true });
    expect(archived.body).toMatchObject({ archived: true, in_trash: false });
    expect((await getBlock(user, block.id)).status).toBe(404);
    expect((await listBlocks(user, `parent_id=${parent.id}&archived=true`)).body.map((b) => b.id)).toEqual([block.id]);

    const trashed = await patch(user, block.id, { archived: false, in_trash: true });
    expect(trashed.body).toMatchObject({ archived: false, in_trash: true });
    expect((await listBlocks(user, `parent_id=${parent.id}&in_trash=true`)).body.map((b) => b.id)).toEqual([block.id]);

    const restored = await patch(user, block.id, { in_trash: false });
    expect(restored.body).toMatchObject({ archived: false, in_trash: false });
    expect((await getBlock(user, block.id)).status).toBe(200);
  });

  it("moves a block to another parent with either spelling", async () => {
    const user = await createUser();
    const [from, to, to2] = [await createBlock(user), await createBlock(user), await createBlock(user)];
    const block = await createBlock(user, { parent_id: from.id });
    expect((await patch(user, block.id, { parent_id: to.id })).body.parent_id).toBe(to.id);
    expect((await childrenOf(user, from.id)).body).toEqual([]);
    expect((await childrenOf(user, to.id)).body.map((b) => b.id)).toEqual([block.id]);
    expect((await patch(user, block.id, { parentId: to2.id })).body.parent_id).toBe(to2.id);
  });

  it("clears parent_id and teamspace_id with null", async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page" });
    const block = await createBlock(user, { parent_id: parent.id, teamspace_id: "team-1" });
    const res = await patch(user, block.id, { parent_id: null, teamspace_id: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ parent_id: null, teamspace_id: null });
    expect((await getBlock(user, block.id)).body).toMatchObject({ parent_id: null, teamspace_id: null });
    expect((await childrenOf(user, parent.id)).body).toEqual([]);
  });

  it("sets and clears database_id with either spelling", async () => {
    const user = await createUser();
    const database = await createBlock(user, { type: "database" });
    const block = await createBlock(user);
    expect((await patch(user, block.id, { databaseId: database.id })).body.database_id).toBe(database.id);
    expect((await getBlock(user, block.id)).body.database_id).toBe(database.id);
    expect((await patch(user, block.id, { database_id: null })).body.database_id).toBeNull();
    expect((await getBlock(user, block.id)).body.database_id).toBeNull();
  });

  it.each([
    ["itself", (ids: { a: string; b: string; c: string }) => ids.a],
    ["its child", (ids: { a: string; b: string; c: string }) => ids.b],
    ["its grandchild", (ids: { a: string; b: string; c: string }) => ids.c],
  ])("refuses to move a block under %s (400) and changes nothing", async (_case, pick) => {
    const user = await createUser();
    const a = await createBlock(user, { type: "page" });
    const b = await createBlock(user, { parent_id: a.id });
    const c = await createBlock(user, { parent_id: b.id });
    const res = await patch(user, a.id, { parent_id: pick({ a: a.id, b: b.id, c: c.id }), properties: { x: 1 } });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "parent_id" } });
    expect((await getBlock(user, a.id)).body).toEqual(a);
  });

  it.each([
    ["parent_id", "page"],
    ["database_id", "database"],
  ])("refuses a %s that is another user's block (404) and changes nothing", async (field, type) => {
    const user = await createUser();
    const other = await createUser();
    const foreign = await createBlock(other, { type });
    const block = await createBlock(user);
    const res = await patch(user, block.id, { [field]: foreign.id });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { field } });
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses changing the type to provider_audit_log (403) and changes nothing", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "Plain" } });
    const res = await patch(user, block.id, { type: "provider_audit_log", properties: { title: "Log" } });
    expectErrorBody(res, 403);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("404, not the internal type's 403, for changing a missing or unseen block to provider_audit_log", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const block = await createBlock(other, { properties: { title: "Theirs" } });
    for (const id of [crypto.randomUUID(), block.id]) {
      expectErrorBody(await patch(user, id, { type: "provider_audit_log" }), 404);
    }
    expect((await getBlock(other, block.id)).body).toEqual(block);
  });

  it("edits a shared block while keeping it shared", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "page", created_by: null, properties: { title: "Shared" } });
    const res = await patch(user, id, { properties: { note: "edited" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      created_by: null,
      last_edited_by: user.id,
      properties: { title: "Shared", note: "edited" },
    });
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await patch(user, crypto.randomUUID(), { properties: { a: 1 } }), 404);
  });

  it.each([
    ["an unknown field", { colour: "red" }, ""],
    ["properties as an array", { properties: [1] }, "properties"],
    ["archived as a string", { archived: "yes" }, "archived"],
    ["in_trash as a number", { in_trash: 1 }, "in_trash"],
    ["position as a string", { position: "3" }, "position"],
    ["an empty type", { type: "" }, "type"],
    ["a type starting with a digit", { type: "1col" }, "type"],
    ["an empty parent_id", { parent_id: "" }, "parent_id"],
  ])("refuses %s (400 with details) and changes nothing", async (_case, body, field) => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { title: "Same" } });
    const res = await patch(user, block.id, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses parent_id and parentId with different values (400)", async () => {
    const user = await createUser();
    const [a, b] = [await createBlock(user), await createBlock(user)];
    const block = await createBlock(user);
    const res = await patch(user, block.id, { parent_id: a.id, parentId: b.id });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { parent_id: a.id, parentId: b.id } });
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses malformed JSON (400) and changes nothing", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    expectErrorBody(await patch(user, block.id, "{archived: true"), 400);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    const res = await patch(user, "a".repeat(129), { properties: {} });
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("id");
  });
});

describe("DELETE /api/v1/blocks/{id}", () => {
  it("permanently deletes the block and all its descendants, in any state", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page" });
    const target = await createBlock(user, { parent_id: page.id });
    const sibling = await createBlock(user, { parent_id: page.id });
    const child = await createBlock(user, { parent_id: target.id });
    const grandchild = await createBlock(user, { parent_id: child.id });
    const trashedChild = await createBlock(user, { parent_id: target.id });
    await patch(user, trashedChild.id, { in_trash: true });

    const res = await remove(user, target.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), deleted_count: 4 });
    expect(await countStored([target.id, child.id, grandchild.id, trashedChild.id])).toBe(0);
    expect((await getBlock(user, target.id)).status).toBe(404);
    expect((await childrenOf(user, page.id)).body.map((b) => b.id)).toEqual([sibling.id]);
  });

  it("deletes a database together with its rows", async () => {
    const user = await createUser();
    const database = await createBlock(user, { type: "database" });
    const row = await createBlock(user, { type: "database_row", database_id: database.id });
    const res = await remove(user, database.id);
    expect(res.body.deleted_count).toBe(2);
    expect(await countStored([database.id, row.id])).toBe(0);
  });

  it("detaches, never deletes, another user's blocks under a deleted shared page", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const sharedPage = await insertBlock({ type: "page", created_by: null });
    const alicesChild = await createBlock(alice, { parent_id: sharedPage });
    const bobsChild = await createBlock(bob, { parent_id: sharedPage });
    const bobsGrandchild = await createBlock(bob, { parent_id: bobsChild.id });

    const res = await remove(alice, sharedPage);
    expect(res.body).toMatchObject({ success: true, deleted_count: 2 });
    expect(await countStored([sharedPage, alicesChild.id])).toBe(0);
    // Bob's subtree survives, moved to the top level rather than pointing at a deleted parent.
    expect((await getBlock(bob, bobsChild.id)).body).toMatchObject({ id: bobsChild.id, parent_id: null });
    expect((await childrenOf(bob, bobsChild.id)).body.map((b) => b.id)).toEqual([bobsGrandchild.id]);
  });

  it("deletes an archived block", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    await patch(user, block.id, { archived: true });
    expect((await remove(user, block.id)).body).toMatchObject({ success: true, deleted_count: 1 });
    expect(await storedRow(block.id)).toBeNull();
  });

  it("404 on a second delete of the same block", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    expect((await remove(user, block.id)).status).toBe(200);
    expectErrorBody(await remove(user, block.id), 404);
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await remove(user, crypto.randomUUID()), 404);
  });

  it("404 for a provider_audit_log block, which stays stored", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "provider_audit_log", created_by: user.id });
    expectErrorBody(await remove(user, id), 404);
    expect(await storedRow(id)).not.toBeNull();
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    const res = await remove(user, "a".repeat(129));
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("id");
  });
});
