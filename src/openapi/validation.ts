import type { Hook } from "@hono/zod-openapi";
import type { Context } from "hono";
import { badRequest, validationDetails } from "../lib/errors";

const TARGET_NAMES: Record<string, string> = {
  json: "request body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
};

/**
 * Every route's validation failure becomes a 400 whose `details` list each issue and where it is;
 * so does a JSON body naming the key `__proto__` (see `reservedKeyPath`).
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes of every shape
export const validationHook: Hook<any, any, any, any> = async (result, c: Context) => {
  if (!result.success) {
    const where = TARGET_NAMES[result.target] ?? result.target;
    throw badRequest(`Invalid ${where}`, validationDetails(result.error, where));
  }
  if (result.target === "json") await refuseReservedKey(c);
};

/** The one object key a body may not use. */
const RESERVED_KEY = "__proto__";

/**
 * `__proto__` cannot be a key of a JavaScript object without becoming its prototype, so the body's
 * schemas drop it (zod's records and objects skip it): a body naming it would be answered 200 with
 * that member gone. It is refused instead, at any depth, as a database property may not be named so.
 * The body's text is the one the validator read (Hono keeps it); it is parsed again only when it
 * could hold the key: spelled out, or behind a `\u` escape.
 */
async function refuseReservedKey(c: Context): Promise<void> {
  const text = await c.req.text();
  if (!text.includes(RESERVED_KEY) && !text.includes("\\u")) return;
  const path = reservedKeyPath(JSON.parse(text));
  if (path === undefined) return;
  throw badRequest(`Invalid ${TARGET_NAMES.json}`, {
    source: TARGET_NAMES.json,
    issues: [{ path, message: `The key ${RESERVED_KEY} is reserved`, code: "custom" }],
  });
}

/** A key and the keys leading to it: a path built only when it is reported, so a deep body costs no copies. */
interface KeyPath {
  key: string;
  parent: KeyPath | undefined;
}

/** Where `value` first holds the key `__proto__` (a dotted path, as validation issues give it), if anywhere; without recursion. */
export function reservedKeyPath(value: unknown): string | undefined {
  const pending: [unknown, KeyPath | undefined][] = [[value, undefined]];
  while (pending.length > 0) {
    const [current, at] = pending.pop() as [unknown, KeyPath | undefined];
    if (typeof current !== "object" || current === null) continue;
    const isArray = Array.isArray(current);
    for (const [key, child] of Object.entries(current)) {
      const here = { key, parent: at };
      if (key === RESERVED_KEY && !isArray) return dottedPath(here);
      pending.push([child, here]);
    }
  }
  return undefined;
}

/** The keys from the body's root to `at`, joined by dots (iteratively: the path may be long). */
function dottedPath(at: KeyPath): string {
  const keys: string[] = [];
  for (let node: KeyPath | undefined = at; node; node = node.parent) keys.push(node.key);
  return keys.reverse().join(".");
}
