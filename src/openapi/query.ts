import { z } from "@hono/zod-openapi";

/**
 * A yes/no query parameter: `true` or `false` in the URL, a boolean to the handler. The contract
 * shows what a client sends (OpenAPI documents a transform by its input: the string enum).
 */
export const QueryBoolean = z.enum(["true", "false"]).transform((value) => value === "true");
