import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, insertBlock, insertBlocks, issuePaths } from "../../helpers/blocks";
import {
  COMMENTS,
  type Comment,
  type CommentTarget,
  createComment,
  listBlockComments,
  listPageComments,
  readCommentTarget,
  resolveComment,
  setupCommentTarget,
} from "../../helpers/comments";
import { createDatabase, createRow } from "../../helpers/databases";

describeAuthMatrix<CommentTarget>({
  name: "GET /api/v1/comments/block/{blockId}",
  method: "GET",
  path: (id) => `${COMMENTS}/block/${id}`,
  setup: async (owner) => {
    const target = await setupCommentTarget(owner);
    return { ...target, id: target.blockId };
  },
  readBack: readCommentTarget,
});

describeAuthMatrix<CommentTarget>({
  name: "GET /api/v1/comments/page/{pageId}",
  method: "GET",
  path: (id) => `${COMMENTS}/page/${id}`,
  setup: async (owner) => {
    const target = await setupCommentTarget(owner);
    return { ...target, id: target.pageId };
  },
  readBack: readCommentTarget,
});

const ids = (comments: Comment[]) => comments.map((c) => c.id);

/**
 * A page with: a comment on the page, a block with a nested block under it, a sub-page
 * (with a block of its own) and a database with a row, each commented on.
 */
async function commentedPage(user: TestUser) {
  const page = await createBlock(user, { type: "page", properties: { title: "Plan" } });
  const block = await createBlock(user, { parent_id: page.id });
  const nested = await createBlock(user, { parent_id: block.id });
  const subPage = await createBlock(user, { type: "page", parent_id: page.id, properties: { title: "Sub" } });
  const underSub = await createBlock(user, { parent_id: subPage.id });
  const database = await createDatabase(user, { parentId: page.id });
  const row = await createRow(user, database.id, { title: "Row" });
  const onPage = await createComment(user, page.id, "On the page");
  const onBlock = await createComment(user, block.id, "On the block");
  const reply = await createComment(user, block.id, "A reply", onBlock.id);
  const onNested = await createComment(user, nested.id, "On the nested block");
  const onSubPage = await createComment(user, subPage.id, "On the sub-page");
  const underSubPage = await createComment(user, underSub.id, "Under the sub-page");
  const onDatabase = await createComment(user, database.id, "On the database");
  const onRow = await createComment(user, row.id, "On the row");
  return {
    page,
    block,
    nested,
    subPage,
    database,
    row,
    comments: { onPage, onBlock, reply, onNested, onSubPage, underSubPage, onDatabase, onRow },
  };
}

describe("GET /api/v1/comments/page/{pageId}", () => {
  it("lists the page's comments and those of the blocks under it, oldest first, not those of sub-pages", async () => {
    const user = await createUser();
    const { page, comments } = await commentedPage(user);
    const res = await listPageComments(user, page.id);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([comments.onPage.id, comments.onBlock.id, comments.reply.id, comments.onNested.id]);
    expect(res.body.every((c) => c.page_id === page.id)).toBe(true);
    expect(res.body[2]).toEqual(comments.reply);
    expect(res.headers.get("X-Total-Count")).toBe("4");
    expect(res.headers.get("X-Has-More")).toBe("false");
  });

  it("a sub-page, a database and a row list their own comments", async () => {
    const user = await createUser();
    const { subPage, database, row, comments } = await commentedPage(user);
    expect(ids((await listPageComments(user, subPage.id)).body)).toEqual([
      comments.onSubPage.id,
      comments.underSubPage.id,
    ]);
    expect(ids((await listPageComments(user, database.id)).body)).toEqual([comments.onDatabase.id]);
    expect(ids((await listPageComments(user, row.id)).body)).toEqual([comments.onRow.id]);
  });

  it("costs one query round trip", async () => {
    const user = await createUser();
    const { page } = await commentedPage(user);
    const res = await listPageComments(user, page.id);
    expect(res.status).toBe(200);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("follows blocks that moved: a block moved to another page takes its comments along", async () => {
    const user = await createUser();
    const { page, block, comments } = await commentedPage(user);
    const other = await createBlock(user, { type: "page", properties: { title: "Other" } });
    const moved = await api(`/api/v1/blocks/${block.id}/move`, {
      method: "POST",
      auth: user,
      body: { parent_id: other.id },
    });
    expect(moved.status).toBe(200);
    expect(ids((await listPageComments(user, page.id)).body)).toEqual([comments.onPage.id]);
    expect(ids((await listPageComments(user, other.id)).body)).toEqual([
      comments.onBlock.id,
      comments.reply.id,
      comments.onNested.id,
    ]);
  });

  it("leaves out archived and trashed blocks with what is under them", async () => {
    const user = await createUser();
    const { page, block, comments } = await commentedPage(user);
    expect((await api(`/api/v1/blocks/${block.id}/trash`, { method: "POST", auth: user })).status).toBe(200);
    expect(ids((await listPageComments(user, page.id)).body)).toEqual([comments.onPage.id]);
    await api(`/api/v1/blocks/${block.id}/restore`, { method: "POST", auth: user });
    await api(`/api/v1/blocks/${block.id}/archive`, { method: "POST", auth: user });
    expect(ids((await listPageComments(user, page.id)).body)).toEqual([comments.onPage.id]);
  });

  it("leaves out blocks the caller cannot see under a shared page, and what is under them", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const shared = await insertBlock({ type: "page", created_by: null });
    const [alicesBlock, sharedUnderAlices, sharedBlock] = [
      crypto.randomUUID(),
      crypto.randomUUID(),
      crypto.randomUUID(),
    ];
    await insertBlocks([
      { id: alicesBlock, parent_id: shared, created_by: alice.id },
      { id: sharedUnderAlices, parent_id: alicesBlock, created_by: null },
      { id: sharedBlock, parent_id: shared, created_by: null },
    ]);
    const onShared = await createComment(bob, shared, "Bob on the page");
    const onAlices = await createComment(alice, alicesBlock, "Alice on her block");
    const underAlices = await createComment(alice, sharedUnderAlices, "Alice under her block");
    const onSharedBlock = await createComment(alice, sharedBlock, "Alice on a shared block");
    expect(ids((await listPageComments(bob, shared)).body)).toEqual([onShared.id, onSharedBlock.id]);
    expect(ids((await listPageComments(alice, shared)).body)).toEqual([
      onShared.id,
      onAlices.id,
      underAlices.id,
      onSharedBlock.id,
    ]);
  });

  it("a deep chain of blocks is walked (200 levels)", async () => {
    const user = await createUser();
    const page = await insertBlock({ type: "page", created_by: user.id });
    const chain = Array.from({ length: 200 }, () => crypto.randomUUID());
    await insertBlocks(chain.map((id, i) => ({ id, parent_id: i === 0 ? page : chain[i - 1], created_by: user.id })));
    const deepest = await createComment(user, chain.at(-1) as string, "At the bottom");
    const res = await listPageComments(user, page);
    expect(ids(res.body)).toEqual([deepest.id]);
    expect(res.body[0]?.page_id).toBe(page);
  });

  it.each([
    ["a paragraph", async (user: TestUser) => (await createBlock(user)).id],
    ["an archived page", (user: TestUser) => insertBlock({ type: "page", archived: true, created_by: user.id })],
    ["a trashed page", (user: TestUser) => insertBlock({ type: "page", in_trash: true, created_by: user.id })],
    ["a page that does not exist", async () => crypto.randomUUID()],
  ])("404 for %s", async (_case, make) => {
    const user = await createUser();
    const id = await make(user);
    const res = await listPageComments(user, id);
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ code: "not_found", details: { page_id: id } });
  });
});

describe("GET /api/v1/comments/block/{blockId}", () => {
  it("lists the block's own comments and replies, oldest first, not those of blocks under it; one round trip", async () => {
    const user = await createUser();
    const { page, block, comments } = await commentedPage(user);
    const res = await listBlockComments(user, block.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([comments.onBlock, comments.reply]);
    expect(res.body.every((c) => c.page_id === page.id)).toBe(true);
    expect(res.headers.get("X-Total-Count")).toBe("2");
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
    expect(ids((await listBlockComments(user, page.id)).body)).toEqual([comments.onPage.id]);
  });

  it("an empty list for a block without comments", async () => {
    const user = await createUser();
    const block = await createBlock(user);
    const res = await listBlockComments(user, block.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get("X-Total-Count")).toBe("0");
    expect(res.headers.get("X-Has-More")).toBe("false");
  });

  it("another user's comments on a shared block are listed too", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const shared = await insertBlock({ type: "page", created_by: null });
    const first = await createComment(alice, shared, "Alice");
    const second = await createComment(bob, shared, "Bob");
    for (const user of [alice, bob]) {
      expect(ids((await listBlockComments(user, shared)).body)).toEqual([first.id, second.id]);
    }
  });

  it.each([
    ["archived", { archived: true }],
    ["trashed", { in_trash: true }],
  ])("404 for an %s block", async (_case, flags) => {
    const user = await createUser();
    const block = await createBlock(user);
    await createComment(user, block.id);
    await env.DB.prepare(
      `UPDATE blocks SET archived = ${"archived" in flags ? 1 : 0}, in_trash = ${"in_trash" in flags ? 1 : 0} WHERE id = ?`,
    )
      .bind(block.id)
      .run();
    expectErrorBody(await listBlockComments(user, block.id), 404);
  });

  it("404 for a block that does not exist", async () => {
    const user = await createUser();
    const id = crypto.randomUUID();
    const res = await listBlockComments(user, id);
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ details: { block_id: id } });
  });
});

describe("the resolved filter", () => {
  it("resolved=true lists only resolved comments, resolved=false only open ones, with their counts", async () => {
    const user = await createUser();
    const { page, block, comments } = await commentedPage(user);
    await resolveComment(user, comments.onBlock.id);
    await resolveComment(user, comments.onNested.id);
    const resolved = await listPageComments(user, page.id, "resolved=true");
    expect(ids(resolved.body)).toEqual([comments.onBlock.id, comments.onNested.id]);
    expect(resolved.body.every((c) => c.resolved)).toBe(true);
    expect(resolved.headers.get("X-Total-Count")).toBe("2");
    const open = await listPageComments(user, page.id, "resolved=false");
    expect(ids(open.body)).toEqual([comments.onPage.id, comments.reply.id]);
    expect(open.headers.get("X-Total-Count")).toBe("2");
    expect(ids((await listBlockComments(user, block.id, "resolved=true")).body)).toEqual([comments.onBlock.id]);
    expect(ids((await listBlockComments(user, block.id, "resolved=false")).body)).toEqual([comments.reply.id]);
    expect(ids((await listBlockComments(user, block.id)).body)).toEqual([comments.onBlock.id, comments.reply.id]);
  });

  it.each(["resolved=yes", "resolved=1", "resolved=TRUE", "resolved="])("400 for %s", async (query) => {
    const user = await createUser();
    const { page, block } = await commentedPage(user);
    for (const res of [await listPageComments(user, page.id, query), await listBlockComments(user, block.id, query)]) {
      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "query parameters" } });
      expect(issuePaths(res.body)).toEqual(["resolved"]);
    }
  });
});

describe("pagination", () => {
  /** A block with `count` comments, oldest first. */
  async function manyComments(user: TestUser, count: number) {
    const page = await createBlock(user, { type: "page", properties: { title: "Busy" } });
    const made: string[] = [];
    for (let i = 0; i < count; i++) made.push((await createComment(user, page.id, `Comment ${i}`)).id);
    return { page, made };
  }

  it("pages with limit and offset, the headers telling where it is", async () => {
    const user = await createUser();
    const { page, made } = await manyComments(user, 5);
    const first = await listBlockComments(user, page.id, "limit=2");
    expect(ids(first.body)).toEqual(made.slice(0, 2));
    expect(first.headers.get("X-Total-Count")).toBe("5");
    expect(first.headers.get("X-Pagination-Limit")).toBe("2");
    expect(first.headers.get("X-Pagination-Offset")).toBe("0");
    expect(first.headers.get("X-Has-More")).toBe("true");
    const last = await listPageComments(user, page.id, "limit=2&offset=4");
    expect(ids(last.body)).toEqual(made.slice(4));
    expect(last.headers.get("X-Pagination-Offset")).toBe("4");
    expect(last.headers.get("X-Has-More")).toBe("false");
    const beyond = await listPageComments(user, page.id, "offset=10");
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get("X-Total-Count")).toBe("5");
  });

  it("the default page is 50 and a limit above 100 is lowered to 100", async () => {
    const user = await createUser();
    const page = await insertBlock({ type: "page", created_by: user.id });
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    await env.DB.batch(
      Array.from({ length: 120 }, (_, i) =>
        env.DB.prepare(
          "INSERT INTO comments (id, block_id, content, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).bind(
          `bulk-${page}-${i}`,
          page,
          `Bulk ${i}`,
          user.id,
          new Date(base + i).toISOString(),
          new Date(base + i).toISOString(),
        ),
      ),
    );
    const byDefault = await listPageComments(user, page);
    expect(byDefault.body).toHaveLength(50);
    expect(byDefault.headers.get("X-Pagination-Limit")).toBe("50");
    expect(byDefault.headers.get("X-Total-Count")).toBe("120");
    const clamped = await listBlockComments(user, page, "limit=500");
    expect(clamped.body).toHaveLength(100);
    expect(clamped.headers.get("X-Pagination-Limit")).toBe("100");
    expect(clamped.body[0]?.content).toBe("Bulk 0");
    expect(clamped.body[99]?.content).toBe("Bulk 99");
  });

  it("comments made in the same millisecond keep the order they were made in", async () => {
    const user = await createUser();
    const page = await insertBlock({ type: "page", created_by: user.id });
    const at = "2026-01-01T00:00:00.000Z";
    const made = Array.from({ length: 6 }, (_, i) => `same-${page}-${5 - i}`);
    await env.DB.batch(
      made.map((id) =>
        env.DB.prepare(
          "INSERT INTO comments (id, block_id, content, created_by, created_at, updated_at) VALUES (?, ?, 'x', ?, ?, ?)",
        ).bind(id, page, user.id, at, at),
      ),
    );
    expect(ids((await listBlockComments(user, page)).body)).toEqual(made);
    expect(ids((await listPageComments(user, page, "limit=3&offset=3")).body)).toEqual(made.slice(3));
  });

  it.each(["limit=0", "limit=-1", "limit=abc", "offset=-1", "offset=1.5", "sort=created_at"])(
    "400 for %s",
    async (query) => {
      const user = await createUser();
      const block = await createBlock(user, { type: "page" });
      const [byBlock, byPage] = [
        await listBlockComments(user, block.id, query),
        await listPageComments(user, block.id, query),
      ];
      for (const res of [byBlock, byPage]) {
        expectErrorBody(res, 400);
        expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "query parameters" } });
      }
    },
  );
});
