import { z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error body of the API: `{error, details?}`. */
export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: "Block not found" }),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Error");

export type ErrorBody = z.infer<typeof ErrorSchema>;

/**
 * Thrown anywhere in a request; `onError` turns it into the error envelope.
 * Handlers never build error responses by hand.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }

  get body(): ErrorBody {
    return this.details ? { error: this.message, details: this.details } : { error: this.message };
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new ApiError(400, message, details);
export const unauthorized = (message = "Missing or invalid credentials") => new ApiError(401, message);
export const forbidden = (message: string, details?: Record<string, unknown>) => new ApiError(403, message, details);
export const notFound = (message = "Not found", details?: Record<string, unknown>) =>
  new ApiError(404, message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new ApiError(409, message, details);

/** Zod issues as `details` for a 400: where each problem is and what it is. */
export function validationDetails(error: z.ZodError, source?: string): Record<string, unknown> {
  return {
    ...(source ? { source } : {}),
    issues: error.issues.map((issue) => ({
      path: issue.path.map(String).join("."),
      message: issue.message,
      code: issue.code,
    })),
  };
}
