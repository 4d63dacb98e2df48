import { z } from "@hono/zod-openapi";
import { digitGroups } from "../../lib/digit-groups";
import { LONE_SURROGATE } from "../../lib/lone-surrogates";
import { PaginationQuery } from "../../lib/pagination";
import { COMMENT_ID_DESCRIPTION } from "../../openapi/path-params";
import { QueryBoolean } from "../../openapi/query";
import { COMMENT_MAX_CHARACTERS } from "../../schemas/comments";

const EXAMPLE_BLOCK = "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d";
const EXAMPLE_PAGE = "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a";
const EXAMPLE_COMMENT = "c3a9e5d1-4b7f-4e2a-9c8d-1f2e3a4b5c6d";

const objectId = z.string().min(1).max(128);

/** Characters as people (and JSON Schema's maxLength) count them: code points, so an emoji is one. */
const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

const commentContent = z
  .string()
  .min(1, { message: "content must not be empty", abort: true })
  .refine((text) => codePoints(text) <= COMMENT_MAX_CHARACTERS, {
    message: `content must be at most ${COMMENT_MAX_CHARACTERS} characters`,
  })
  .refine((text) => /\S/.test(text), { message: "content must not be only whitespace" })
  .refine((text) => !LONE_SURROGATE.test(text), {
    message: "content must be well-formed Unicode (it holds a lone surrogate)",
  })
  .openapi({
    maxLength: COMMENT_MAX_CHARACTERS,
    description: `The text, 1 to ${digitGroups(COMMENT_MAX_CHARACTERS)} characters (code points), not only whitespace; stored as given`,
    example: "Can we ship this on Friday?",
  });

export const CreateCommentBody = z
  .strictObject({
    block_id: objectId.openapi({
      description: "The block or page to comment on: visible to the caller and active (not archived or trashed)",
      example: EXAMPLE_BLOCK,
    }),
    content: commentContent,
    parent_id: objectId.nullable().optional().openapi({
      description:
        "Makes this a reply to a top-level comment on the same block (one level of threads); null or absent: a new thread",
      example: null,
    }),
  })
  .openapi("CreateCommentRequest", {
    example: { block_id: EXAMPLE_BLOCK, content: "Can we ship this on Friday?" },
  });

export const UpdateCommentBody = z
  .strictObject({ content: commentContent })
  .openapi("UpdateCommentRequest", { example: { content: "Can we ship this on Monday instead?" } });

export const ResolveCommentBody = z.strictObject({}).openapi("ResolveCommentRequest", {
  description: "No fields: the body may be omitted, or sent as {}",
  example: {},
});

export const ListCommentsQuery = PaginationQuery.extend({
  resolved: QueryBoolean.optional().openapi({
    description: "Only resolved (`true`) or only open (`false`) comments; absent: both",
    example: "false",
  }),
}).strict();

export const CommentIdParams = z.object({
  id: objectId.openapi({
    param: { name: "id", in: "path" },
    description: COMMENT_ID_DESCRIPTION,
    example: EXAMPLE_COMMENT,
  }),
});

export const BlockIdParams = z.object({
  blockId: objectId.openapi({
    param: { name: "blockId", in: "path" },
    description:
      "The id of a block (or page) the caller can see and that is active, not archived or trashed: otherwise a 404",
    example: EXAMPLE_BLOCK,
  }),
});

export const PageIdParams = z.object({
  pageId: objectId.openapi({
    param: { name: "pageId", in: "path" },
    description:
      "The id of a page, database or row the caller can see and that is active, not archived or trashed: otherwise a 404",
    example: EXAMPLE_PAGE,
  }),
});
