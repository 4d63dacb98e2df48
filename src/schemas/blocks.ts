import { z } from "@hono/zod-openapi";

// The Block resource: the one zod source of its TypeScript type, its OpenAPI
// component, and the type tests and the benchmark use.

const EXAMPLE_ID = "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d";
const EXAMPLE_USER = "0b9d6c1e-7a52-4a8e-9f0d-2b1f5c3e4a6d";
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";

export const BlockSchema = z
  .object({
    id: z.string().openapi({ example: EXAMPLE_ID }),
    type: z
      .string()
      .openapi({ description: "Editor block type, or `page`, `database`, `database_row`", example: "page" }),
    parent_id: z.string().nullable().openapi({ description: "Parent block id; null at the top level", example: null }),
    database_id: z
      .string()
      .nullable()
      .openapi({ description: "For rows: the parent database block id", example: null }),
    teamspace_id: z.string().nullable().openapi({ example: null }),
    properties: z
      .record(z.string(), z.unknown())
      .openapi({ description: "Titles, icons, database values (by canonical id)", example: { title: "Launch plan" } }),
    content: z.unknown().openapi({
      description:
        "For `page`, `database` and `database_row` (the page-like types): the body, an array of editor items (ContentItem), or null for an empty one. Any other type (editor blocks): the JSON value it was written with, or null",
      // The body's items by reference (the schema writes validate them against); other types any JSON.
      anyOf: [
        { type: "array", items: { $ref: "#/components/schemas/ContentItem" } },
        { type: "null" },
        { type: ["object", "array", "string", "number", "boolean"], items: {} },
      ],
      example: [{ type: "paragraph", children: [{ text: "Ship on Friday." }] }],
    }),
    position: z.number().nullable().openapi({ description: "Order among siblings", example: 1 }),
    archived: z.boolean().openapi({ example: false }),
    in_trash: z.boolean().openapi({ example: false }),
    created_by: z
      .string()
      .nullable()
      .openapi({ description: "Owner user id; null marks a shared block", example: EXAMPLE_USER }),
    last_edited_by: z.string().nullable().openapi({ example: EXAMPLE_USER }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    updated_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("Block");

export type Block = z.infer<typeof BlockSchema>;
export type BlockTree = Block & { children: BlockTree[] };

export const BlockTreeSchema: z.ZodType<BlockTree> = BlockSchema.extend({
  get children() {
    return z.array(BlockTreeSchema);
  },
}).openapi("BlockTree", { description: "A block with its active visible descendants nested in `children`" });

/** A row's values keyed by display name: regenerated from the canonical ids on every read, never stored. */
export const PropertiesByNameSchema = z.record(z.string(), z.unknown()).openapi({
  description: "A row's values keyed by display name, regenerated from the canonical ids",
  example: { title: "Write docs", Status: { id: "opt_3b1d9a0c2e4f6a8b", name: "Todo", color: "default" } },
});
