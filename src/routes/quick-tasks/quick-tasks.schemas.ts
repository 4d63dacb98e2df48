import { z } from "@hono/zod-openapi";
import type { RateLimitSpec } from "../../openapi/define-route";

/** Parsing may spend the server's key of a model provider: each user's requests are counted. */
const MODEL_RATE_LIMIT: RateLimitSpec = { binding: "MODEL_CALL_LIMITER", per: "user", retryAfterSeconds: 60 };

/** Previews, counted on their own. */
export const PREVIEW_RATE_LIMIT = MODEL_RATE_LIMIT;

/** Creates: the route's counter, which the MCP tool capture_task counts on too. */
export const CREATE_RATE_LIMIT: RateLimitSpec & { counter: string } = {
  ...MODEL_RATE_LIMIT,
  counter: "post /api/v1/tasks/from-natural-language",
};

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
