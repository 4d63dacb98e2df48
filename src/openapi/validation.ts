import type { Hook } from "@hono/zod-openapi";
import { badRequest, validationDetails } from "../lib/errors";

const TARGET_NAMES: Record<string, string> = {
  json: "request body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
};

/** Every route's validation failure becomes a 400 whose `details` list each issue and where it is. */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes of every shape
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    const where = TARGET_NAMES[result.target] ?? result.target;
    throw badRequest(`Invalid ${where}`, validationDetails(result.error, where));
  }
};
