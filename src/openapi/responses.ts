import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ErrorSchema } from "../lib/errors";

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

/** Error responses every authenticated route can give; spread into each route's `responses`. */
export const authenticatedErrors = {
  400: errorResponse("Invalid request: `details` names each problem"),
  401: errorResponse("Missing or invalid credential"),
  404: errorResponse("Not found, or not visible to the caller"),
  500: errorResponse("Unexpected failure"),
} as const;

export const forbiddenResponse = { 403: errorResponse("Refused (for example an internal block type)") } as const;
export const conflictResponse = { 409: errorResponse("Conflicts with an existing object") } as const;

/** Either credential works on /api/v1: an API key or an app-session JWT, both as `Authorization: Bearer`. */
export const bearerSecurity: Record<string, string[]>[] = [{ apiKeyAuth: [] }, { bearerAuth: [] }];

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { "application/json": { schema } },
});

export const SuccessSchema = z.object({ success: z.boolean(), message: z.string() }).openapi("Success");

/** Headers of every paginated listing. */
export const paginationHeaders = {
  "X-Total-Count": {
    schema: { type: "integer" as const },
    description: "Number of matches; omitted when above 10,000",
  },
  "X-Pagination-Limit": { schema: { type: "integer" as const }, description: "Effective page size" },
  "X-Pagination-Offset": { schema: { type: "integer" as const }, description: "Offset of this page" },
  "X-Has-More": {
    schema: { type: "string" as const, enum: ["true", "false"] },
    description: "More pages follow",
  },
};

/** Sets the headers of `paginationHeaders` on a listing response. */
export function setPaginationHeaders(
  c: Context,
  page: { total: number | null; hasMore: boolean },
  window: { limit: number; offset: number },
): void {
  if (page.total !== null) c.header("X-Total-Count", String(page.total));
  c.header("X-Pagination-Limit", String(window.limit));
  c.header("X-Pagination-Offset", String(window.offset));
  c.header("X-Has-More", String(page.hasMore));
}
