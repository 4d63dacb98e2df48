import { z } from "@hono/zod-openapi";

// The SyncedBlock resource (a source block and an instance that follows it) and the
// answer of a propagation: the one zod source of their types and OpenAPI components.

const EXAMPLE_SOURCE = "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d";
const EXAMPLE_INSTANCE = "9b3d5f7a-1c2e-4a6b-8d0f-2e4a6c8e0b1d";
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";

export const SYNCED_BLOCK_STATUSES = ["synced", "unlinked"] as const;
export type SyncedBlockStatus = (typeof SYNCED_BLOCK_STATUSES)[number];

export const SyncedBlockSchema = z
  .object({
    id: z.string().openapi({ example: "c4e6a8b0-2d4f-4b6a-9c1e-3f5a7b9d1e3f" }),
    source_block_id: z.string().openapi({ description: "The block whose content is copied", example: EXAMPLE_SOURCE }),
    instance_block_id: z
      .string()
      .openapi({ description: "The block that follows the source", example: EXAMPLE_INSTANCE }),
    status: z.enum(SYNCED_BLOCK_STATUSES).openapi({
      description: "`synced`: propagations update the instance; `unlinked`: it keeps its content and stops following",
      example: "synced",
    }),
    last_synced_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "Last propagation to this instance; null: never", example: null }),
    created_by: z.string().nullable().openapi({ example: "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d" }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("SyncedBlock");
export type SyncedBlock = z.infer<typeof SyncedBlockSchema>;

export const PropagateResultSchema = z
  .object({
    source_block_id: z.string().openapi({ example: EXAMPLE_SOURCE }),
    updated: z.number().int().openapi({ description: "How many instances were updated", example: 2 }),
    instance_block_ids: z.array(z.string()).openapi({
      description: "The instances updated",
      example: [EXAMPLE_INSTANCE, "1a3c5e7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f"],
    }),
    skipped_instance_block_ids: z.array(z.string()).openapi({
      description: "Linked instances the caller can see that were not updated: they have become a database or a row",
      example: [],
    }),
    copied_blocks: z.number().int().openapi({
      description: "Blocks copied under the instances (the source's subtree, once per instance)",
      example: 6,
    }),
    last_synced_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("PropagateSyncedBlockResult");
export type PropagateResult = z.infer<typeof PropagateResultSchema>;
