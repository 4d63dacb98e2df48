import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, ISO_DATE_TIME, insertBlock, insertBlocks, issuePaths, UUID } from "../../helpers/blocks";
import {
  COMMENTS,
  createComment,
  listBlockComments,
  postComment,
  storedComment,
  storedCommentsOn,
} from "../../helpers/comments";
import { createDatabase, createRow } from "../../helpers/databases";

describeAuthMatrix({
  name: "POST /api/v1/comments",
  method: "POST",
  path: () => COMMENTS,
  body: { block_id: "00000000-0000-4000-8000-000000000000", content: "Hello" },
});

/** A page with a paragraph under it, owned by `user`. */
async function pageWithBlock(user: Awaited<ReturnType<typeof createUser>>) {
  const page = await createBlock(user, { type: "page", properties: { title: "Plan" } });
  const block = await createBlock(user, { parent_id: page.id, properties: { text: "Ship on Friday" } });
  return { page, block };
}

describe("POST /api/v1/comments", () => {
  it("comments on a block: 201 with the whole record, stored as answered, in one query round trip", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const res = await postComment(user, { block_id: block.id, content: "Can we ship this on Friday?" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      block_id: block.id,
      page_id: page.id,
      parent_id: null,
      content: "Can we ship this on Friday?",
      created_by: user.id,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: res.body.created_at,
      resolved: false,
      resolved_at: null,
      resolved_by: null,
    });
    const { page_id: _page, ...row } = res.body;
    expect(await storedComment(res.body.id)).toEqual(row);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("comments on a page itself: its page_id is the page", async () => {
    const user = await createUser();
    const { page } = await pageWithBlock(user);
    const comment = await createComment(user, page.id, "On the page");
    expect(comment).toMatchObject({ block_id: page.id, page_id: page.id });
  });

  it("page_id is the nearest page-like ancestor, through nested blocks and sub-pages", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const nested = await createBlock(user, { parent_id: block.id });
    const deeper = await createBlock(user, { parent_id: nested.id });
    const subPage = await createBlock(user, { type: "page", parent_id: deeper.id, properties: { title: "Sub" } });
    const underSub = await createBlock(user, { parent_id: subPage.id });
    expect((await createComment(user, deeper.id)).page_id).toBe(page.id);
    expect((await createComment(user, subPage.id)).page_id).toBe(subPage.id);
    expect((await createComment(user, underSub.id)).page_id).toBe(subPage.id);
  });

  it("a database and a row are pages of their own; a block under a row belongs to the row", async () => {
    const user = await createUser();
    const database = await createDatabase(user);
    const row = await createRow(user, database.id, { title: "Write docs" });
    const underRow = await createBlock(user, { parent_id: row.id });
    expect((await createComment(user, database.id)).page_id).toBe(database.id);
    expect((await createComment(user, row.id)).page_id).toBe(row.id);
    expect((await createComment(user, underRow.id)).page_id).toBe(row.id);
  });

  it("a block under no page has page_id null", async () => {
    const user = await createUser();
    const loose = await createBlock(user, { properties: { text: "Top-level note" } });
    const comment = await createComment(user, loose.id);
    expect(comment.page_id).toBeNull();
    expect((await storedComment(comment.id))?.block_id).toBe(loose.id);
  });

  it("page_id is derived when read: it follows the block when the block moves", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const other = await createBlock(user, { type: "page", properties: { title: "Other" } });
    const comment = await createComment(user, block.id);
    expect(comment.page_id).toBe(page.id);
    const moved = await api(`/api/v1/blocks/${block.id}/move`, {
      method: "POST",
      auth: user,
      body: { parent_id: other.id },
    });
    expect(moved.status).toBe(200);
    const listed = await listBlockComments(user, block.id);
    expect(listed.body.map((c) => [c.id, c.page_id])).toEqual([[comment.id, other.id]]);
  });

  it("a walk up a parent cycle written straight to D1 ends: page_id null", async () => {
    const user = await createUser();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    await insertBlocks([
      { id: a, parent_id: b, created_by: user.id },
      { id: b, parent_id: a, created_by: user.id },
    ]);
    const comment = await createComment(user, a);
    expect(comment.page_id).toBeNull();
  });

  it("a shared block (no owner) can be commented on by anyone; the comment is its author's", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const shared = await insertBlock({ type: "page", properties: { title: "Shared" }, created_by: null });
    const comment = await createComment(bob, shared, "Bob was here");
    expect(comment).toMatchObject({ created_by: bob.id, page_id: shared });
    expect((await listBlockComments(alice, shared)).body.map((c) => c.id)).toEqual([comment.id]);
  });

  it("a shared block on a page the caller cannot see is a 404 (not shown on its page), storing nothing", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const alicesPage = await insertBlock({ type: "page", created_by: alice.id });
    const shared = await insertBlock({ parent_id: alicesPage, created_by: null });
    const refused = await postComment(bob, { block_id: shared, content: "Into Alice's thread" });
    expectErrorBody(refused, 404);
    expect(refused.body).toMatchObject({ details: { block_id: shared } });
    expect(await storedCommentsOn([shared])).toEqual([]);
    expect((await createComment(alice, shared)).page_id).toBe(alicesPage);
  });

  it("counts characters as code points: 10,000 emoji are accepted, 10,001 refused; stored as given", async () => {
    const user = await createUser();
    const { block } = await pageWithBlock(user);
    const longest = "\u{1f600}".repeat(10_000);
    const accepted = await postComment(user, { block_id: block.id, content: longest });
    expect(accepted.status).toBe(201);
    expect((await storedComment(accepted.body.id))?.content).toBe(longest);
    const refused = await postComment(user, { block_id: block.id, content: `${longest}x` });
    expectErrorBody(refused, 400);
    expect(issuePaths(refused.body)).toEqual(["content"]);
    expect(await storedCommentsOn([block.id])).toHaveLength(1);
  });

  it("keeps odd but valid text exactly: newlines, markup, SQL, NUL, RTL marks", async () => {
    const user = await createUser();
    const { block } = await pageWithBlock(user);
    const text =
      "  line 1\r\nline 2\n<script>alert(1)</script> ' OR 1=1 -- a\u0000b \u202etxt \u{1f469}\u200d\u{1f467}  ";
    const comment = await createComment(user, block.id, text);
    expect(comment.content).toBe(text);
    expect((await storedComment(comment.id))?.content).toBe(text);
  });

  describe("refuses bad input with 400, naming the field, storing nothing", () => {
    it.each<[string, unknown, string[]]>([
      ["no content", { block_id: "BLOCK" }, ["content"]],
      ["no block_id", { content: "Hi" }, ["block_id"]],
      ["empty content", { block_id: "BLOCK", content: "" }, ["content"]],
      ["whitespace-only content", { block_id: "BLOCK", content: " \n\t " }, ["content"]],
      ["10,001 characters", { block_id: "BLOCK", content: "a".repeat(10_001) }, ["content"]],
      ["a lone surrogate", { block_id: "BLOCK", content: "x\ud800y" }, ["content"]],
      ["content as a number", { block_id: "BLOCK", content: 42 }, ["content"]],
      ["content as null", { block_id: "BLOCK", content: null }, ["content"]],
      ["an empty block_id", { block_id: "", content: "Hi" }, ["block_id"]],
      ["a 129-character block_id", { block_id: "b".repeat(129), content: "Hi" }, ["block_id"]],
      ["block_id as a number", { block_id: 7, content: "Hi" }, ["block_id"]],
      ["an empty parent_id", { block_id: "BLOCK", content: "Hi", parent_id: "" }, ["parent_id"]],
      ["parent_id as an object", { block_id: "BLOCK", content: "Hi", parent_id: {} }, ["parent_id"]],
      ["an unknown field", { block_id: "BLOCK", content: "Hi", resolved: true }, [""]],
      ["the camelCase spelling", { blockId: "BLOCK", content: "Hi" }, ["block_id", ""]],
    ])("%s", async (_case, body, paths) => {
      const user = await createUser();
      const { block } = await pageWithBlock(user);
      const withBlock = JSON.parse(JSON.stringify(body).replaceAll('"BLOCK"', JSON.stringify(block.id)));
      const res = await postComment(user, withBlock);
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "request body" } });
      expect(issuePaths(res.body).sort()).toEqual(paths.sort());
      expect(await storedCommentsOn([block.id])).toEqual([]);
    });

    it.each([
      ["malformed JSON", '{"block_id": ', "application/json", 400],
      ["a JSON array", "[]", "application/json", 400],
      ["a form body", "block_id=x&content=y", "application/x-www-form-urlencoded", 415],
    ])("%s", async (_case, body, contentType, status) => {
      const user = await createUser();
      const res = await api(COMMENTS, { method: "POST", auth: user, body, headers: { "Content-Type": contentType } });
      expectErrorBody(res, status);
    });
  });

  describe("the block must be visible and active: 404 otherwise, storing nothing", () => {
    it("another user's block", async () => {
      const [alice, bob] = [await createUser(), await createUser()];
      const { block } = await pageWithBlock(alice);
      const res = await postComment(bob, { block_id: block.id, content: "Intruder" });
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ code: "not_found", details: { block_id: block.id } });
      expect(await storedCommentsOn([block.id])).toEqual([]);
    });

    it("a block that does not exist", async () => {
      const user = await createUser();
      const res = await postComment(user, { block_id: crypto.randomUUID(), content: "Nowhere" });
      expectErrorBody(res, 404);
    });

    it.each([
      ["archived", { archived: true }],
      ["trashed", { in_trash: true }],
    ])("an %s block", async (_case, flags) => {
      const user = await createUser();
      const id = await insertBlock({ created_by: user.id, ...flags });
      const res = await postComment(user, { block_id: id, content: "Too late" });
      expectErrorBody(res, 404);
      expect(await storedCommentsOn([id])).toEqual([]);
    });

    it.each([
      ["archived", { archived: true }],
      ["trashed", { in_trash: true }],
    ])("an active block under an %s page (hidden with it)", async (_case, flags) => {
      const user = await createUser();
      const page = await insertBlock({ type: "page", created_by: user.id, ...flags });
      const toggle = await insertBlock({ type: "toggle", parent_id: page, created_by: user.id });
      const id = await insertBlock({ parent_id: toggle, created_by: user.id });
      const res = await postComment(user, { block_id: id, content: "On a hidden block" });
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ details: { block_id: id } });
      expect(await storedCommentsOn([id])).toEqual([]);
    });

    it("an internal provider_audit_log block, even the caller's own", async () => {
      const user = await createUser();
      const id = await insertBlock({ type: "provider_audit_log", created_by: user.id });
      expectErrorBody(await postComment(user, { block_id: id, content: "Audit" }), 404);
      expect(await storedCommentsOn([id])).toEqual([]);
    });
  });
});

describe("replies", () => {
  it("a reply names its parent; both are listed on the block, oldest first", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const parent = await createComment(user, block.id, "Question");
    const res = await postComment(user, { block_id: block.id, content: "Answer", parent_id: parent.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ parent_id: parent.id, block_id: block.id, page_id: page.id });
    expect((await storedComment(res.body.id))?.parent_id).toBe(parent.id);
    expect((await listBlockComments(user, block.id)).body.map((c) => c.id)).toEqual([parent.id, res.body.id]);
  });

  it("parent_id null is a top-level comment", async () => {
    const user = await createUser();
    const { block } = await pageWithBlock(user);
    const res = await postComment(user, { block_id: block.id, content: "Top", parent_id: null });
    expect(res.status).toBe(201);
    expect(res.body.parent_id).toBeNull();
  });

  it("another user may reply to a comment on a block both can see", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const shared = await insertBlock({ type: "page", created_by: null });
    const parent = await createComment(alice, shared, "Alice asks");
    const reply = await createComment(bob, shared, "Bob answers", parent.id);
    expect(reply).toMatchObject({ parent_id: parent.id, created_by: bob.id });
  });

  it("replying to a reply is a 400 (one level of threads), storing nothing", async () => {
    const user = await createUser();
    const { block } = await pageWithBlock(user);
    const parent = await createComment(user, block.id, "Question");
    const reply = await createComment(user, block.id, "Answer", parent.id);
    const res = await postComment(user, { block_id: block.id, content: "Deeper", parent_id: reply.id });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { field: "parent_id", parent_id: reply.id } });
    expect((await storedCommentsOn([block.id])).map((c) => c.id)).toEqual([parent.id, reply.id]);
  });

  it("a parent on another block is a 400, storing nothing", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const onPage = await createComment(user, page.id, "On the page");
    const res = await postComment(user, { block_id: block.id, content: "Misplaced", parent_id: onPage.id });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { field: "parent_id", parent_block_id: page.id } });
    expect(await storedCommentsOn([block.id])).toEqual([]);
  });

  it("a parent that does not exist is a 404 naming parent_id, storing nothing", async () => {
    const user = await createUser();
    const { block } = await pageWithBlock(user);
    const missing = crypto.randomUUID();
    const res = await postComment(user, { block_id: block.id, content: "Orphan", parent_id: missing });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ code: "not_found", details: { field: "parent_id", parent_id: missing } });
    expect(await storedCommentsOn([block.id])).toEqual([]);
  });

  it("a parent on a block the caller cannot see is a 404 (not a 400 that would reveal it)", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const { block: alicesBlock } = await pageWithBlock(alice);
    const hidden = await createComment(alice, alicesBlock.id, "Private");
    const { block: bobsBlock } = await pageWithBlock(bob);
    const res = await postComment(bob, { block_id: bobsBlock.id, content: "Guess", parent_id: hidden.id });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { field: "parent_id" } });
    expect(await storedCommentsOn([bobsBlock.id, alicesBlock.id])).toHaveLength(1);
  });

  it("the block is checked before the parent: another user's block is a 404 for the block", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const { block } = await pageWithBlock(alice);
    const parent = await createComment(alice, block.id);
    const res = await postComment(bob, { block_id: block.id, content: "Hi", parent_id: parent.id });
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { block_id: block.id } });
    expect(await storedCommentsOn([block.id])).toHaveLength(1);
  });
});

describe("comments go with their block", () => {
  it("deleting a block deletes its comments and replies, and those of the blocks deleted with it", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    const child = await createBlock(user, { parent_id: block.id });
    const parent = await createComment(user, block.id);
    await createComment(user, block.id, "Reply", parent.id);
    await createComment(user, child.id);
    const onPage = await createComment(user, page.id);
    const res = await api(`/api/v1/blocks/${block.id}`, { method: "DELETE", auth: user });
    expect(res.status).toBe(200);
    expect(await storedCommentsOn([block.id, child.id])).toEqual([]);
    expect((await storedCommentsOn([page.id])).map((c) => c.id)).toEqual([onPage.id]);
  });

  it("deleting a page for good deletes the comments of its subtree", async () => {
    const user = await createUser();
    const { page, block } = await pageWithBlock(user);
    await createComment(user, page.id);
    await createComment(user, block.id);
    const res = await api(`/api/v1/pages/${page.id}?permanent=true`, { method: "DELETE", auth: user });
    expect(res.status).toBe(200);
    expect(await storedCommentsOn([page.id, block.id])).toEqual([]);
    const orphans = await env.DB.prepare(
      "SELECT count(*) AS n FROM comments c WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.id = c.block_id)",
    ).first<{ n: number }>();
    expect(orphans?.n).toBe(0);
  });
});
