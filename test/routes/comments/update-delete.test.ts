import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createBlock, ISO_DATE_TIME, insertBlock, issuePaths } from "../../helpers/blocks";
import {
  COMMENTS,
  type CommentTarget,
  createComment,
  deleteComment,
  listBlockComments,
  patchComment,
  readCommentTarget,
  resolveComment,
  setupCommentTarget,
  storedComment,
  storedCommentsOn,
  unresolveComment,
} from "../../helpers/comments";

describeAuthMatrix<CommentTarget>({
  name: "PATCH /api/v1/comments/{id}",
  method: "PATCH",
  path: (id) => `${COMMENTS}/${id}`,
  body: { content: "Taken over" },
  setup: setupCommentTarget,
  readBack: readCommentTarget,
});

describeAuthMatrix<CommentTarget>({
  name: "DELETE /api/v1/comments/{id}",
  method: "DELETE",
  path: (id) => `${COMMENTS}/${id}`,
  setup: setupCommentTarget,
  readBack: readCommentTarget,
});

describeAuthMatrix<CommentTarget>({
  name: "POST /api/v1/comments/{id}/resolve",
  method: "POST",
  path: (id) => `${COMMENTS}/${id}/resolve`,
  setup: setupCommentTarget,
  readBack: readCommentTarget,
});

describeAuthMatrix<CommentTarget>({
  name: "POST /api/v1/comments/{id}/unresolve",
  method: "POST",
  path: (id) => `${COMMENTS}/${id}/unresolve`,
  setup: async (owner) => {
    const target = await setupCommentTarget(owner);
    expect((await resolveComment(owner, target.id)).status).toBe(200);
    return target;
  },
  readBack: readCommentTarget,
});

/** Alice's comment on a shared page (no owner), which Bob can see too. */
async function sharedThread() {
  const [alice, bob] = [await createUser(), await createUser()];
  const page = await insertBlock({ type: "page", properties: { title: "Shared" }, created_by: null });
  const comment = await createComment(alice, page, "Alice's comment");
  return { alice, bob, page, comment };
}

/** Each author-only operation, as Bob would send it to Alice's comment. */
const MUTATIONS: [string, (user: TestUser, id: string) => ReturnType<typeof api>][] = [
  ["PATCH", (user, id) => patchComment(user, id, { content: "Bob's words" })],
  ["DELETE", (user, id) => deleteComment(user, id)],
  ["resolve", (user, id) => resolveComment(user, id)],
  ["unresolve", (user, id) => unresolveComment(user, id)],
];

describe("author only", () => {
  it.each(MUTATIONS)("%s by another user who can see the block: 403, the comment unchanged", async (_name, mutate) => {
    const { alice, bob, page, comment } = await sharedThread();
    // Unresolve needs a resolved comment to have anything to change.
    await resolveComment(alice, comment.id);
    const before = await storedComment(comment.id);
    const res = await mutate(bob, comment.id);
    expectErrorBody(res, 403);
    expect(res.body).toMatchObject({ code: "forbidden" });
    expect(await storedComment(comment.id)).toEqual(before);
    expect((await listBlockComments(alice, page)).body.map((c) => c.id)).toEqual([comment.id]);
  });

  it.each(MUTATIONS)("%s of a comment that does not exist: 404", async (_name, mutate) => {
    const user = await createUser();
    const res = await mutate(user, crypto.randomUUID());
    expectErrorBody(res, 404);
    expect(res.body).toMatchObject({ code: "not_found" });
  });

  it.each(MUTATIONS)("%s by the author after the block became another user's: 404", async (_name, mutate) => {
    const { alice, bob, page, comment } = await sharedThread();
    // Bob's own comment on the shared page, then the page is taken private by Alice.
    const bobs = await createComment(bob, page, "Bob's comment");
    await env.DB.prepare("UPDATE blocks SET created_by = ? WHERE id = ?").bind(alice.id, page).run();
    const before = await storedComment(bobs.id);
    expectErrorBody(await mutate(bob, bobs.id), 404);
    expect(await storedComment(bobs.id)).toEqual(before);
    expect(await storedComment(comment.id)).not.toBeNull();
  });
});

describe("PATCH /api/v1/comments/{id}", () => {
  it("replaces the content and updated_at, keeps the rest, in one query round trip", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const before = await storedComment(target.id);
    const res = await patchComment(user, target.id, { content: "Edited" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      page_id: target.pageId,
      content: "Edited",
      updated_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expect(res.body.updated_at >= (before?.updated_at ?? "")).toBe(true);
    const { page_id: _page, ...row } = res.body;
    expect(await storedComment(target.id)).toEqual(row);
    expect(res.queryRoundTrips).toBe(1);
    expect(res.roundTrips).toBeLessThanOrEqual(2);
  });

  it("a reply can be edited by its author, whoever wrote the parent", async () => {
    const { alice, bob, page, comment } = await sharedThread();
    const reply = await createComment(bob, page, "Bob replies", comment.id);
    const res = await patchComment(bob, reply.id, { content: "Bob rephrases" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: reply.id, parent_id: comment.id, content: "Bob rephrases" });
    expect((await storedComment(comment.id))?.content).toBe("Alice's comment");
    expect((await patchComment(alice, reply.id, { content: "Alice rewrites" })).status).toBe(403);
  });

  it.each<[string, unknown, string[]]>([
    ["no content", {}, ["content"]],
    ["empty content", { content: "" }, ["content"]],
    ["whitespace-only content", { content: "\n \t" }, ["content"]],
    ["10,001 characters", { content: "x".repeat(10_001) }, ["content"]],
    ["a lone surrogate", { content: "\udfff" }, ["content"]],
    ["content as an array", { content: ["a"] }, ["content"]],
    ["another field besides", { content: "ok", resolved: true }, [""]],
    ["a block_id (comments do not move)", { content: "ok", block_id: "x" }, [""]],
  ])("400 for %s, changing nothing", async (_case, body, paths) => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const before = await storedComment(target.id);
    const res = await patchComment(user, target.id, body);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
    expect(issuePaths(res.body)).toEqual(paths);
    expect(await storedComment(target.id)).toEqual(before);
  });

  it("a comment on a trashed block can still be edited by its author (writes act on blocks in any state)", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    expect((await api(`/api/v1/blocks/${target.blockId}/trash`, { method: "POST", auth: user })).status).toBe(200);
    expectErrorBody(await listBlockComments(user, target.blockId), 404);
    const edited = await patchComment(user, target.id, { content: "Still mine" });
    expect(edited.status).toBe(200);
    expect((await storedComment(target.id))?.content).toBe("Still mine");
  });
});

describe("DELETE /api/v1/comments/{id}", () => {
  it("deletes a top-level comment with its replies (whoever wrote them), in one query round trip", async () => {
    const { alice, bob, page, comment } = await sharedThread();
    await createComment(bob, page, "Bob replies", comment.id);
    await createComment(alice, page, "Alice replies", comment.id);
    const other = await createComment(bob, page, "Another thread");
    const res = await deleteComment(alice, comment.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Comment deleted", deleted_count: 3 });
    expect(res.queryRoundTrips).toBe(1);
    expect((await storedCommentsOn([page])).map((c) => c.id)).toEqual([other.id]);
    expect((await listBlockComments(bob, page)).body.map((c) => c.id)).toEqual([other.id]);
  });

  it("deleting a reply leaves its parent and the other replies", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const second = await createComment(user, target.blockId, "Second reply", target.id);
    const res = await deleteComment(user, target.replyId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deleted_count: 1 });
    expect((await storedCommentsOn([target.blockId])).map((c) => c.id)).toEqual([target.id, second.id]);
  });

  it("a second delete is a 404", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    expect((await deleteComment(user, target.id)).status).toBe(200);
    expectErrorBody(await deleteComment(user, target.id), 404);
    expect(await storedCommentsOn([target.blockId])).toEqual([]);
  });

  it("a reply's author cannot delete the parent: 403, the whole thread kept", async () => {
    const { alice, bob, page, comment } = await sharedThread();
    const reply = await createComment(bob, page, "Bob replies", comment.id);
    expectErrorBody(await deleteComment(bob, comment.id), 403);
    expect((await storedCommentsOn([page])).map((c) => c.id)).toEqual([comment.id, reply.id]);
    expect((await storedComment(comment.id))?.created_by).toBe(alice.id);
  });
});

describe("resolve and unresolve", () => {
  it("resolve marks it resolved by the caller, now; in one query round trip", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const before = await storedComment(target.id);
    const res = await resolveComment(user, target.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      page_id: target.pageId,
      resolved: true,
      resolved_at: expect.stringMatching(ISO_DATE_TIME),
      resolved_by: user.id,
      updated_at: res.body.resolved_at,
    });
    const { page_id: _page, ...row } = res.body;
    expect(await storedComment(target.id)).toEqual(row);
    expect(res.queryRoundTrips).toBe(1);
  });

  it("resolving a resolved comment is a no-op 200: nothing rewritten", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const first = await resolveComment(user, target.id);
    const stored = await storedComment(target.id);
    const again = await resolveComment(user, target.id, {});
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await storedComment(target.id)).toEqual(stored);
    expect(again.queryRoundTrips).toBe(1);
  });

  it("unresolve reopens it and clears who and when; reopening an open comment is a no-op 200", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    await resolveComment(user, target.id);
    const res = await unresolveComment(user, target.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resolved: false, resolved_at: null, resolved_by: null });
    expect(res.queryRoundTrips).toBe(1);
    const stored = await storedComment(target.id);
    expect(stored).toMatchObject({ resolved: false, resolved_at: null, resolved_by: null });
    const again = await unresolveComment(user, target.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    expect(await storedComment(target.id)).toEqual(stored);
  });

  it("a reply is resolved on its own; its parent stays open", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    expect((await resolveComment(user, target.replyId)).body.resolved).toBe(true);
    expect((await storedComment(target.id))?.resolved).toBe(false);
  });

  it.each([
    ["resolve", resolveComment],
    ["unresolve", unresolveComment],
  ])("%s refuses a body with fields (400), changing nothing", async (_name, send) => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const before = await storedComment(target.id);
    const res = await send(user, target.id, { resolved: true });
    expectErrorBody(res, 400);
    expect(issuePaths(res.body)).toEqual([""]);
    expect(await storedComment(target.id)).toEqual(before);
  });

  it("concurrent resolves by the author all answer 200 with one resolution", async () => {
    const user = await createUser();
    const target = await setupCommentTarget(user);
    const results = await Promise.all(Array.from({ length: 5 }, () => resolveComment(user, target.id)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const stored = await storedComment(target.id);
    expect(new Set(results.map((r) => r.body.resolved_at))).toEqual(new Set([stored?.resolved_at]));
  });
});

describe("a block under no page", () => {
  it("its comments are changed like any other", async () => {
    const user = await createUser();
    const loose = await createBlock(user, { properties: { text: "loose" } });
    const comment = await createComment(user, loose.id);
    const res = await patchComment(user, comment.id, { content: "changed" });
    expect(res.body).toMatchObject({ page_id: null, content: "changed" });
  });
});
