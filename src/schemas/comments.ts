import { z } from "@hono/zod-openapi";

// The Comment resource: the one zod source of its TypeScript type, its OpenAPI
// component, and the type tests use.

const EXAMPLE_USER = "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d";
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";

/** A comment's text is 1 to 10,000 characters (Unicode code points, as JSON Schema counts them). */
export const COMMENT_MAX_CHARACTERS = 10_000;

export const CommentSchema = z
  .object({
    id: z.string().openapi({ example: "c3a9e5d1-4b7f-4e2a-9c8d-1f2e3a4b5c6d" }),
    block_id: z
      .string()
      .openapi({ description: "The block or page commented on", example: "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d" }),
    page_id: z.string().nullable().openapi({
      description:
        "The page the block belongs to, derived when read: the block itself when it is page-like (page, database, database_row), else its nearest page-like ancestor. Null when the block is under no page, or that page is not visible to the caller",
      example: "5d2e8f1a-3c4b-4d6e-8f9a-0b1c2d3e4f5a",
    }),
    parent_id: z.string().nullable().openapi({
      description: "For a reply: the comment it answers (a top-level comment on the same block); null otherwise",
      example: null,
    }),
    content: z.string().openapi({ description: "The comment's text, 1 to 10,000 characters", example: "Ship it?" }),
    created_by: z.string().openapi({ description: "The author's user id", example: EXAMPLE_USER }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    updated_at: z.string().openapi({
      format: "date-time",
      description: "Last change: an edit, a resolve or an unresolve",
      example: EXAMPLE_TIME,
    }),
    resolved: z.boolean().openapi({ example: false }),
    resolved_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "When it was resolved; null while open", example: null }),
    resolved_by: z
      .string()
      .nullable()
      .openapi({ description: "Who resolved it (its author); null while open", example: null }),
  })
  .openapi("Comment");

export type Comment = z.infer<typeof CommentSchema>;

export const DeleteCommentResponseSchema = z
  .object({
    success: z.boolean(),
    message: z.string(),
    deleted_count: z.number().int().openapi({ description: "The comment and its replies" }),
  })
  .openapi("DeleteCommentResponse", { example: { success: true, message: "Comment deleted", deleted_count: 3 } });

export type DeleteCommentResponse = z.infer<typeof DeleteCommentResponseSchema>;
