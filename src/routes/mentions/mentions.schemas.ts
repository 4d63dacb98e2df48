import { z } from "@hono/zod-openapi";
import { isDateMention, MENTION_TARGET_TYPES } from "../../domain/mentions";
import { JSON_DEPTH_MESSAGE, withinJsonDepth } from "../../lib/json-depth";
import { PaginationQuery } from "../../lib/pagination";
import { MENTION_ID_DESCRIPTION } from "../../openapi/path-params";
import { MentionRecordSchema } from "../../schemas/mentions";

const id = (name: string, description: string, example: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name, in: "path" }, description, example });

export const MentionParams = z.object({ id: id("id", MENTION_ID_DESCRIPTION, "8c1d0b7e2f4a49c6a1e3d5f7b9c0e2a4") });
export const BlockParams = z.object({
  blockId: id(
    "blockId",
    "The id of a block the caller can see (otherwise a 404)",
    "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
  ),
});
export const PageParams = z.object({
  pageId: id(
    "pageId",
    "The id of a page or database row the caller can see (otherwise a 404)",
    "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d",
  ),
});
export const TargetPageParams = z.object({
  targetPageId: id(
    "targetPageId",
    "The id of the page whose backlinks these are: a page the caller can see (otherwise a 404)",
    "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d",
  ),
});

export const ListQuery = PaginationQuery;

const targetId = z.string().trim().min(1).max(200).openapi({
  description: "The page's, block's or user's id; for a date, `2026-11-23` or an ISO-8601 instant",
  example: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d",
});

const dateTargetValid = (value: { target_type?: string; target_id?: string }) =>
  value.target_type !== "date" || value.target_id === undefined || isDateMention(value.target_id);
const dateIssue = {
  message: "A date mention's target_id is an ISO-8601 date or date-time that exists on the calendar",
  path: ["target_id"],
};

export const CreateMentionBody = z
  .strictObject({
    block_id: z.string().min(1).max(200).openapi({ example: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b" }),
    target_type: z.enum(MENTION_TARGET_TYPES),
    target_id: targetId,
  })
  .refine(dateTargetValid, dateIssue)
  .openapi("CreateMentionRequest", {
    example: {
      block_id: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
      target_type: "page",
      target_id: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d",
    },
  });

export const UpdateMentionBody = z
  .strictObject({
    target_type: z.enum(MENTION_TARGET_TYPES).optional(),
    target_id: targetId.optional(),
  })
  .refine((value) => value.target_type !== undefined || value.target_id !== undefined, {
    message: "Give target_type, target_id or both",
  })
  .refine(dateTargetValid, dateIssue)
  .openapi("UpdateMentionRequest", { example: { target_type: "date", target_id: "2026-12-01" } });

export const SyncMentionsBody = z
  .strictObject({
    block_id: z.string().min(1).max(200).openapi({ example: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b" }),
    content: z
      .unknown()
      .refine((value) => value !== undefined, "content, when given, is the block's new content")
      .refine((value) => withinJsonDepth(value), JSON_DEPTH_MESSAGE)
      .optional()
      .openapi({
        description:
          "New content for the block, stored (validated as any content write: a page's body is an array of content items) and then read for mentions",
      }),
  })
  .openapi("SyncMentionsRequest", {
    example: {
      block_id: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
      content: [
        {
          type: "paragraph",
          children: [
            { text: "See " },
            { text: "@Roadmap", mention: { type: "page", id: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d" } },
          ],
        },
      ],
    },
  });

export const SyncMentionsResponse = z
  .object({ block_id: z.string(), mentions: z.array(MentionRecordSchema) })
  .openapi("SyncMentionsResponse", { example: { block_id: "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b", mentions: [] } });

export const BacklinkCountResponse = z
  .object({ count: z.number().int().openapi({ example: 3 }) })
  .openapi("BacklinkCount");
