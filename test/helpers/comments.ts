import { env } from "cloudflare:test";
import type { Comment } from "../../src/schemas/comments";
import { type ApiResponse, api, type TestUser } from "./api";
import { createBlock } from "./blocks";

export type { Comment };

export const COMMENTS = "/api/v1/comments";

export const postComment = (user: TestUser, body: unknown): Promise<ApiResponse<Comment>> =>
  api<Comment>(COMMENTS, { method: "POST", auth: user, body });

/** Creates a comment; throws unless 201. */
export async function createComment(
  user: TestUser,
  blockId: string,
  content = "A comment",
  parentId?: string,
): Promise<Comment> {
  const res = await postComment(user, { block_id: blockId, content, ...(parentId ? { parent_id: parentId } : {}) });
  if (res.status !== 201) throw new Error(`comment create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const patchComment = (user: TestUser, id: string, body: unknown): Promise<ApiResponse<Comment>> =>
  api<Comment>(`${COMMENTS}/${id}`, { method: "PATCH", auth: user, body });

export const deleteComment = (user: TestUser, id: string) => api(`${COMMENTS}/${id}`, { method: "DELETE", auth: user });

export const resolveComment = (user: TestUser, id: string, body?: unknown): Promise<ApiResponse<Comment>> =>
  api<Comment>(`${COMMENTS}/${id}/resolve`, { method: "POST", auth: user, body });

export const unresolveComment = (user: TestUser, id: string, body?: unknown): Promise<ApiResponse<Comment>> =>
  api<Comment>(`${COMMENTS}/${id}/unresolve`, { method: "POST", auth: user, body });

export const listBlockComments = (user: TestUser, blockId: string, query = ""): Promise<ApiResponse<Comment[]>> =>
  api<Comment[]>(`${COMMENTS}/block/${blockId}${query ? `?${query}` : ""}`, { auth: user });

export const listPageComments = (user: TestUser, pageId: string, query = ""): Promise<ApiResponse<Comment[]>> =>
  api<Comment[]>(`${COMMENTS}/page/${pageId}${query ? `?${query}` : ""}`, { auth: user });

/** A comment's row straight from D1 (`resolved` as a boolean), or null when absent. */
export async function storedComment(id: string): Promise<Omit<Comment, "page_id"> | null> {
  const row = await env.DB.prepare("SELECT * FROM comments WHERE id = ?")
    .bind(id)
    .first<Omit<Comment, "page_id" | "resolved"> & { resolved: number }>();
  return row ? { ...row, resolved: row.resolved === 1 } : null;
}

/** Every comment row on the given blocks, whoever wrote it, in insertion order. */
export async function storedCommentsOn(blockIds: string[]): Promise<Omit<Comment, "page_id">[]> {
  const placeholders = blockIds.map(() => "?").join(", ");
  const { results } = await env.DB.prepare(
    `SELECT * FROM comments WHERE block_id IN (${placeholders}) ORDER BY created_at, rowid`,
  )
    .bind(...blockIds)
    .all<Omit<Comment, "page_id" | "resolved"> & { resolved: number }>();
  return results.map((row) => ({ ...row, resolved: row.resolved === 1 }));
}

/** The target of an auth-matrix check: the owner's comment (with a reply) on a block of their page. */
export interface CommentTarget {
  /** The top-level comment. */
  id: string;
  replyId: string;
  blockId: string;
  pageId: string;
}

/** A page with a block under it, a comment on the block and a reply to it, all by `owner`. */
export async function setupCommentTarget(owner: TestUser): Promise<CommentTarget> {
  const page = await createBlock(owner, { type: "page", properties: { title: "Commented page" } });
  const block = await createBlock(owner, { parent_id: page.id, properties: { text: "Commented block" } });
  const comment = await createComment(owner, block.id, "Owner's comment");
  const reply = await createComment(owner, block.id, "Owner's reply", comment.id);
  return { id: comment.id, replyId: reply.id, blockId: block.id, pageId: page.id };
}

/** What the owner sees of the target's comments, and their rows. */
export async function readCommentTarget(owner: TestUser, target: { blockId: string; pageId: string }) {
  const [byBlock, byPage] = [
    await listBlockComments(owner, target.blockId),
    await listPageComments(owner, target.pageId),
  ];
  return {
    byBlock: { status: byBlock.status, body: byBlock.body },
    byPage: { status: byPage.status, body: byPage.body },
    stored: await storedCommentsOn([target.blockId, target.pageId]),
  };
}
