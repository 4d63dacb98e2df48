import { z } from "@hono/zod-openapi";

/** `preview=1` as shortcut apps send it in the URL: `1` or `true` marks the request, `0` or `false` does not. */
export const PreviewQuery = z.object({
  preview: z
    .enum(["1", "0", "true", "false"])
    .transform((value) => value === "1" || value === "true")
    .optional()
    .openapi({
      description: "`1`: with the caller's quickTaskSkipPreview set, create at once (as the body's `preview`)",
      example: "1",
    }),
});
