import type { Hook } from "@hono/zod-openapi";
import type { Context } from "hono";
import { badRequest, validationDetails } from "../lib/errors";
import { refuseLoneSurrogateIn } from "../lib/lone-surrogates";
import { refuseReservedKeyIn } from "../lib/reserved-keys";

const TARGET_NAMES: Record<string, string> = {
  json: "request body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
};

/** A validation failure becomes a 400 whose `details` list each issue and where it is. */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes of every shape
const refuseInvalid = (result: any): void => {
  if (!result.success) {
    const where = TARGET_NAMES[result.target] ?? result.target;
    throw badRequest(`Invalid ${where}`, validationDetails(result.error, where));
  }
};

/**
 * Every route's hook: a JSON body holding a lone surrogate (lib/lone-surrogates.ts), checked first so
 * no refusal echoes one (an unknown key's name); validation failures; and a JSON body holding the
 * key `__proto__` (lib/reserved-keys.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes of every shape
export const validationHook: Hook<any, any, any, any> = async (result, c: Context) => {
  // The body's text as the validator read it (Hono keeps the text, or the bytes it decodes again).
  const text = result.target === "json" ? await c.req.text() : undefined;
  if (text !== undefined) refuseLoneSurrogateIn(text);
  refuseInvalid(result);
  if (text !== undefined) refuseReservedKeyIn(text);
};

/**
 * The hook of a body a third party signed (a payment provider's webhook): refused by its schema
 * only. Its keys are the sender's, verified as sent; refusing one would refuse the event for good.
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes of every shape
export const signedBodyHook: Hook<any, any, any, any> = (result) => refuseInvalid(result);
