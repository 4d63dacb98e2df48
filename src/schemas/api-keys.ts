import { z } from "@hono/zod-openapi";
import { API_KEY_SCOPES } from "../auth/scopes";

/** An API key as listings show it: masked, never its hash or raw value. */
export const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: "0b8f2c1e-3d4a-4f5b-9c6d-7e8f9a0b1c2d" }),
    name: z.string().openapi({ example: "Nightly export agent" }),
    masked_key: z.string().openapi({ description: "The key's first and last characters", example: "sr_7Qm2…x9Kd" }),
    prefix: z.string().openapi({ example: "sr_7Qm2" }),
    last_four: z.string().openapi({ example: "x9Kd" }),
    scopes: z.array(z.enum(API_KEY_SCOPES)).openapi({
      description: "`read`: GET and HEAD (and POST queries that only read); `write`: every other change",
      example: ["read"],
    }),
    created_at: z.string().openapi({ example: "2026-11-23T09:30:00.000Z" }),
    last_used_at: z.string().nullable().openapi({
      description: "Updated at most once a minute",
      example: "2026-11-23T10:02:11.000Z",
    }),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: "Null: never expires", example: "2027-01-01T00:00:00.000Z" }),
    expired: z.boolean().openapi({ description: "Past `expires_at`: refused like a revoked key", example: false }),
  })
  .openapi("ApiKey");

export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({
    description: "The raw key, shown this once and never again: store it now",
    example: "sr_7Qm2hV0pLw4cT8nZb1rYe6uJk3sDf5gA9oXiN2qMx9Kd",
  }),
}).openapi("CreatedApiKey");

export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;
