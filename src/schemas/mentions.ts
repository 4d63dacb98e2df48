import { z } from "@hono/zod-openapi";
import { MENTION_TARGET_TYPES } from "../domain/mentions";

export const MentionRecordSchema = z
  .object({
    id: z.string().openapi({ example: "8c1d0b7e2f4a49c6a1e3d5f7b9c0e2a4" }),
    block_id: z.string().openapi({
      description: "The block whose content holds the mention",
      example: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
    }),
    page_id: z.string().nullable().openapi({
      description: "The page that block belongs to (the block itself when it is a page, database or row)",
      example: "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d",
    }),
    target_type: z.enum(MENTION_TARGET_TYPES).openapi({ example: "page" }),
    target_id: z.string().openapi({
      description: "The mentioned page's, block's or user's id, or the date",
      example: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d",
    }),
    kind: z.enum(["mention", "link"]).openapi({
      description:
        "`mention`: an inline mention; `link`: a link in the content whose last path segment is the target's id",
      example: "mention",
    }),
    origin: z.enum(["content", "api"]).openapi({
      description:
        "`content`: read from the block's content and kept in step with it (change the content to change it); `api`: made with POST /api/v1/mentions",
      example: "content",
    }),
    snippet: z
      .string()
      .openapi({ description: "The mention's text and some around it", example: "see @Roadmap for dates" }),
    created_by: z.string().nullable().openapi({ example: "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d" }),
    created_at: z.string().openapi({ example: "2026-11-23T09:30:00.000Z" }),
  })
  .openapi("Mention");

export type MentionRecord = z.infer<typeof MentionRecordSchema>;

export const BacklinkSchema = z
  .object({
    source_block_id: z.string().openapi({ example: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b" }),
    source_page_id: z.string().nullable().openapi({ example: "7d6c5b4a-3e2f-4a1b-9c8d-7e6f5a4b3c2d" }),
    source_page_title: z.string().openapi({ example: "Launch plan" }),
    snippet: z.string().openapi({ example: "see @Roadmap for dates" }),
    kind: z.enum(["mention", "link"]).openapi({ example: "mention" }),
    created_at: z.string().openapi({ example: "2026-11-23T09:30:00.000Z" }),
  })
  .openapi("Backlink");

export type Backlink = z.infer<typeof BacklinkSchema>;
