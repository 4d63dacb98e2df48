import { z } from "@hono/zod-openapi";
import { PaginationQuery } from "../../lib/pagination";
import { SYNCED_BLOCK_STATUSES } from "../../schemas/synced-blocks";

const EXAMPLE_SOURCE = "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d";
const EXAMPLE_INSTANCE = "9b3d5f7a-1c2e-4a6b-8d0f-2e4a6c8e0b1d";

const blockId = z.string().min(1).max(128);

export const CreateSyncedBlockBody = z
  .strictObject({
    source_block_id: blockId.openapi({ description: "The block to follow", example: EXAMPLE_SOURCE }),
    instance_block_id: blockId.openapi({
      description: "The block that follows it (its content is replaced at each propagation)",
      example: EXAMPLE_INSTANCE,
    }),
  })
  .openapi("CreateSyncedBlockRequest", {
    example: { source_block_id: EXAMPLE_SOURCE, instance_block_id: EXAMPLE_INSTANCE },
  });

export const SourceParams = z.object({
  sourceBlockId: blockId.openapi({
    param: { name: "sourceBlockId", in: "path" },
    description: "The source block's id: a block the caller can see (otherwise a 404)",
    example: EXAMPLE_SOURCE,
  }),
});

export const InstanceParams = z.object({
  instanceBlockId: blockId.openapi({
    param: { name: "instanceBlockId", in: "path" },
    description: "The instance block's id: a block that follows a source, the caller seeing both (otherwise a 404)",
    example: EXAMPLE_INSTANCE,
  }),
});

export const ListInstancesQuery = PaginationQuery.extend({
  status: z
    .enum(SYNCED_BLOCK_STATUSES)
    .optional()
    .openapi({ description: "Only links in this status (default: both)", example: "synced" }),
}).strict();
