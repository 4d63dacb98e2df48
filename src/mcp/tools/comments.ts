import { z } from "@hono/zod-openapi";
import { PaginationBody, pageWindow } from "../../lib/pagination";
import { CreateCommentBody, PageIdParams } from "../../routes/comments/comments.schemas";
import type { Comment } from "../../schemas/comments";
import { createComment, listPageComments } from "../../services/comments/comments";
import { defineTool } from "../tool";

// Comments as POST /api/v1/comments and GET /api/v1/comments/page/{pageId} serve them.

/** `- [resolved] text (id …, on …, reply to …, by …, at …)`. */
const commentLine = (comment: Comment): string =>
  `- ${comment.resolved ? "[resolved] " : ""}${comment.content} (id ${comment.id}, on ${comment.block_id}${comment.parent_id ? `, reply to ${comment.parent_id}` : ""}, by ${comment.created_by}, ${comment.created_at})`;

export const addCommentTool = defineTool({
  name: "add_comment",
  title: "Comment on a block or page",
  description:
    "Adds a comment to a block or page the caller can see; with `parent_id`, a reply to a top-level comment on the same block.",
  scope: "write",
  input: CreateCommentBody,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    const comment = await createComment(ctx, input);
    return {
      text: `Added comment ${comment.id} on ${comment.block_id}${comment.parent_id ? ` (a reply to ${comment.parent_id})` : ""}.`,
      structured: { ...comment },
    };
  },
});

export const listCommentsTool = defineTool({
  name: "list_comments",
  title: "List a page's comments",
  description:
    "The comments on a page and on the blocks in it, oldest first; a reply names the comment it answers. Continue with `cursor` set to the answer's `next_cursor`.",
  scope: "read",
  input: z.strictObject({
    page_id: PageIdParams.shape.pageId,
    limit: PaginationBody.shape.limit,
    cursor: PaginationBody.shape.cursor,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, input) {
    const page = await listPageComments(ctx, input.page_id, {}, pageWindow(input));
    const lines = page.items.map(commentLine);
    if (page.nextCursor) lines.push(`More comments: call again with cursor "${page.nextCursor}".`);
    return {
      text: lines.length > 0 ? lines.join("\n") : "No comments.",
      structured: { comments: page.items, has_more: page.hasMore, next_cursor: page.nextCursor },
    };
  },
});
