import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  type Block,
  createBlock,
  getBlock,
  insertBlock,
  issuePaths,
  listBlocks,
  readBlockTarget,
  setupBlockTarget,
  storedRow,
} from "../../helpers/blocks";

const post = (user: TestUser, path: string, body?: unknown) =>
  api<Block>(`${BLOCKS}/${path}`, { method: "POST", auth: user, body });

const ids = (blocks: Block[]) => blocks.map((b) => b.id);

/** The block as stored, in any state (reads of archived or trashed blocks are 404 by design). */
async function stateOf(id: string) {
  const row = await storedRow(id);
  return { archived: row?.archived === 1, in_trash: row?.in_trash === 1 };
}

/** A block under its own page, so listings filtered by the page show exactly this block. */
async function blockUnderPage(user: TestUser, body: Record<string, unknown> = {}) {
  const page = await createBlock(user, { type: "page" });
  const block = await createBlock(user, { parent_id: page.id, properties: { title: "Stateful" }, ...body });
  return { page, block };
}

for (const [name, suffix, body] of [
  ["POST /api/v1/blocks/{id}/archive", "archive", undefined],
  ["POST /api/v1/blocks/{id}/trash", "trash", undefined],
  ["POST /api/v1/blocks/{id}/restore", "restore", undefined],
  ["POST /api/v1/blocks/{id}/convert", "convert", { type: "heading-1", properties: { title: "converted" } }],
] as const) {
  describeAuthMatrix({
    name,
    method: "POST",
    path: (id) => `${BLOCKS}/${id}/${suffix}`,
    body,
    setup: setupBlockTarget,
    readBack: readBlockTarget,
  });
}

describeAuthMatrix({
  name: "POST /api/v1/blocks/{id}/restore (of a trashed and archived block)",
  method: "POST",
  path: (id) => `${BLOCKS}/${id}/restore`,
  setup: async (owner) => {
    const target = await setupBlockTarget(owner);
    await api(`${BLOCKS}/${target.id}`, { method: "PATCH", auth: owner, body: { archived: true, in_trash: true } });
    return target;
  },
  readBack: readBlockTarget,
});

describe("POST /api/v1/blocks/{id}/archive", () => {
  it("sets archived=true without a body, changing nothing else", async () => {
    const user = await createUser();
    const { page, block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/archive`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...block, archived: true, updated_at: expect.any(String) });
    expect(await stateOf(block.id)).toEqual({ archived: true, in_trash: false });
    expectErrorBody(await getBlock(user, block.id), 404);
    expect((await listBlocks(user, `parent_id=${page.id}&archived=true`)).body).toEqual([res.body]);
    expect((await listBlocks(user, `parent_id=${page.id}`)).body).toEqual([]);
  });

  it.each([{}, { archived: true }])("archives with the body %j", async (body) => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/archive`, body);
    expect(res.body.archived).toBe(true);
    expect(await stateOf(block.id)).toEqual({ archived: true, in_trash: false });
  });

  it('unarchives with {"archived": false}', async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    await post(user, `${block.id}/archive`);
    const res = await post(user, `${block.id}/archive`, { archived: false });
    expect(res.status).toBe(200);
    expect(res.body.archived).toBe(false);
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
  });

  it("leaves in_trash as it is", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    await post(user, `${block.id}/trash`);
    expect((await post(user, `${block.id}/archive`)).body).toMatchObject({ archived: true, in_trash: true });
  });

  it.each([
    ["archived as a string", { archived: "false" }, "archived"],
    ["an unknown field", { archive: false }, ""],
  ])("refuses %s (400 with details) and changes nothing", async (_case, body, field) => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/archive`, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses malformed JSON (400) and changes nothing", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    expectErrorBody(await post(user, `${block.id}/archive`, "{archived"), 400);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/archive`), 404);
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/archive`), 400);
  });
});

describe("POST /api/v1/blocks/{id}/trash", () => {
  it("sets in_trash=true, changing nothing else", async () => {
    const user = await createUser();
    const { page, block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/trash`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...block, in_trash: true, updated_at: expect.any(String) });
    expect(await stateOf(block.id)).toEqual({ archived: false, in_trash: true });
    expectErrorBody(await getBlock(user, block.id), 404);
    expect((await listBlocks(user, `parent_id=${page.id}&in_trash=true`)).body).toEqual([res.body]);
    expect((await listBlocks(user, `parent_id=${page.id}`)).body).toEqual([]);
  });

  it("leaves archived as it is", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    await post(user, `${block.id}/archive`);
    expect((await post(user, `${block.id}/trash`)).body).toMatchObject({ archived: true, in_trash: true });
  });

  it("trashing twice keeps the block in the trash", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    await post(user, `${block.id}/trash`);
    const res = await post(user, `${block.id}/trash`);
    expect(res.status).toBe(200);
    expect(await stateOf(block.id)).toEqual({ archived: false, in_trash: true });
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/trash`), 404);
  });

  it("404 for a provider_audit_log block, which stays as it was", async () => {
    const user = await createUser();
    const id = await insertBlock({ type: "provider_audit_log", created_by: user.id });
    expectErrorBody(await post(user, `${id}/trash`), 404);
    expect(await stateOf(id)).toEqual({ archived: false, in_trash: false });
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/trash`), 400);
  });
});

describe("POST /api/v1/blocks/{id}/restore", () => {
  it.each([
    ["trashed", { in_trash: true }],
    ["archived", { archived: true }],
    ["trashed and archived", { in_trash: true, archived: true }],
  ])("returns a %s block to the active state", async (_case, flags) => {
    const user = await createUser();
    const { page, block } = await blockUnderPage(user);
    await api(`${BLOCKS}/${block.id}`, { method: "PATCH", auth: user, body: flags });
    const res = await post(user, `${block.id}/restore`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...block, updated_at: expect.any(String) });
    expect(await stateOf(block.id)).toEqual({ archived: false, in_trash: false });
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
    expect(ids((await listBlocks(user, `parent_id=${page.id}`)).body)).toEqual([block.id]);
  });

  it("leaves an active block active", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/restore`);
    expect(res.body).toMatchObject({ archived: false, in_trash: false });
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/restore`), 404);
  });

  it("404 for another user's trashed block, which stays in the trash", async () => {
    const [owner, other] = [await createUser(), await createUser()];
    const { block } = await blockUnderPage(owner);
    await post(owner, `${block.id}/trash`);
    expectErrorBody(await post(other, `${block.id}/restore`), 404);
    expect(await stateOf(block.id)).toEqual({ archived: false, in_trash: true });
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/restore`), 400);
  });
});

describe("POST /api/v1/blocks/{id}/convert", () => {
  it("changes the type and keeps the properties when none are given", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user, { properties: { title: "Heading soon", color: "blue" } });
    const res = await post(user, `${block.id}/convert`, { type: "heading-1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...block, type: "heading-1", updated_at: expect.any(String) });
    expect((await getBlock(user, block.id)).body).toEqual(res.body);
  });

  it("merges the given properties (RFC 7396) while changing the type", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user, { properties: { title: "Task", color: "blue", extra: { a: 1 } } });
    const res = await post(user, `${block.id}/convert`, {
      type: "to_do",
      properties: { checked: false, color: null, extra: { b: 2 } },
    });
    const expected = { title: "Task", checked: false, extra: { a: 1, b: 2 } };
    expect(res.body).toMatchObject({ type: "to_do", properties: expected });
    expect((await getBlock(user, block.id)).body).toMatchObject({ type: "to_do", properties: expected });
  });

  it("refuses a body without type (400 naming `type`) and changes nothing", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/convert`, { properties: { title: "x" } });
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain("type");
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it.each([
    ["an empty type", { type: "" }, "type"],
    ["properties as an array", { type: "quote", properties: [] }, "properties"],
    ["an unknown field", { type: "quote", parent_id: "x" }, ""],
  ])("refuses %s (400 with details) and changes nothing", async (_case, body, field) => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/convert`, body);
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toContain(field);
    expect((await getBlock(user, block.id)).body).toEqual(block);
  });

  it("refuses a request without a body (400)", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    expectErrorBody(await post(user, `${block.id}/convert`), 400);
  });

  it("refuses malformed JSON (400)", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    expectErrorBody(await post(user, `${block.id}/convert`, '{"type": quote}'), 400);
  });

  it("refuses converting to provider_audit_log (403) and changes nothing", async () => {
    const user = await createUser();
    const { block } = await blockUnderPage(user);
    const res = await post(user, `${block.id}/convert`, { type: "provider_audit_log" });
    expectErrorBody(res, 403);
    expect((await getBlock(user, block.id)).body).toEqual(block);
    expect((await storedRow(block.id))?.type).toBe("paragraph");
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${crypto.randomUUID()}/convert`, { type: "quote" }), 404);
  });

  it("404, not the internal type's 403, for converting a missing or unseen block to provider_audit_log", async () => {
    const [user, other] = [await createUser(), await createUser()];
    const { block } = await blockUnderPage(other);
    for (const id of [crypto.randomUUID(), block.id]) {
      expectErrorBody(await post(user, `${id}/convert`, { type: "provider_audit_log" }), 404);
    }
    expect((await storedRow(block.id))?.type).toBe("paragraph");
  });

  it("400 for an id longer than 128 characters", async () => {
    const user = await createUser();
    expectErrorBody(await post(user, `${"a".repeat(129)}/convert`, { type: "quote" }), 400);
  });
});
