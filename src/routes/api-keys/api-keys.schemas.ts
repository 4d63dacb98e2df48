import { z } from "@hono/zod-openapi";
import { API_KEY_SCOPES } from "../../auth/scopes";
import { PaginationQuery } from "../../lib/pagination";
import { API_KEY_ID_DESCRIPTION } from "../../openapi/path-params";

const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .openapi({ description: "A label for the key", example: "Nightly export agent" });

export const CreateApiKeyBody = z
  .strictObject({
    name,
    scopes: z
      .array(z.enum(API_KEY_SCOPES))
      .min(1)
      .max(API_KEY_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope at most once")
      .optional()
      .openapi({ description: 'Default both: `read` and `write`. `["read"]` makes a read-only key' }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: "In the future; omitted: the key never expires", example: "2027-01-01T00:00:00Z" }),
  })
  .openapi("CreateApiKeyRequest", {
    example: { name: "Reporting agent", scopes: ["read"], expires_at: "2027-01-01T00:00:00Z" },
  });

export const RenameApiKeyBody = z
  .strictObject({ name })
  .openapi("RenameApiKeyRequest", { example: { name: "CI exports" } });

export const ApiKeyParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: "id", in: "path" },
      description: API_KEY_ID_DESCRIPTION,
      example: "0b8f2c1e-3d4a-4f5b-9c6d-7e8f9a0b1c2d",
    }),
});

export const ListApiKeysQuery = PaginationQuery;
