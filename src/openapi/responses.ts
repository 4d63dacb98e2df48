import { z } from "@hono/zod-openapi";

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { "application/json": { schema } },
});

/**
 * The body of an action that takes no fields (propagate, trash, rotate a secret...): no body or `{}`,
 * declared as an optional JSON body so that the contract keeps a request schema on every POST and the
 * request is held to what every body is: strict (an unknown field is a 400), at most 1 MiB (413), JSON
 * (another Content-Type is a 415).
 */
export const EmptyBody = z.strictObject({}).openapi("EmptyRequest", {
  description: "No fields: send `{}` or no body",
  example: {},
});

export const SuccessSchema = z
  .object({
    success: z.boolean().openapi({ example: true }),
    message: z.string().openapi({ example: "Done" }),
  })
  .openapi("Success");
