import { type ApiError, badRequest } from "./errors";

// Rules a request's whole JSON holds to, wherever a body puts it (lib/reserved-keys.ts,
// lib/lone-surrogates.ts): the walk that finds where a rule is broken, and the 400 that says so.

/** A key and the keys leading to it: a path built only when it is reported, so a deep value costs no copies. */
interface KeyPath {
  key: string;
  parent: KeyPath | undefined;
}

/**
 * Where in `value` (parsed JSON) `found` first holds for a member (an object's key and value, or an
 * array's index and item; one place, if several), as a dotted path like validation issues give
 * (`properties.__proto__`, `content.rich_text.0.text`); without recursion.
 */
export function pathWhere(
  value: unknown,
  found: (key: string, child: unknown, inArray: boolean) => boolean,
): string | undefined {
  const pending: [unknown, KeyPath | undefined][] = [[value, undefined]];
  while (pending.length > 0) {
    const [current, at] = pending.pop() as [unknown, KeyPath | undefined];
    if (typeof current !== "object" || current === null) continue;
    const isArray = Array.isArray(current);
    for (const [key, child] of Object.entries(current)) {
      const here = { key, parent: at };
      if (found(key, child, isArray)) return dottedPath(here);
      pending.push([child, here]);
    }
  }
  return undefined;
}

/** The keys from the root to `at`, joined by dots (iteratively: the path may be long). */
function dottedPath(at: KeyPath): string {
  const keys: string[] = [];
  for (let node: KeyPath | undefined = at; node; node = node.parent) keys.push(node.key);
  return keys.reverse().join(".");
}

/** A 400 shaped as a body's validation failures, with the one issue at `path` (under `under` when given). */
export const invalidBodyAt = (path: string, message: string, under?: string): ApiError =>
  badRequest("Invalid request body", {
    source: "request body",
    issues: [{ path: under && path ? `${under}.${path}` : (under ?? path), message, code: "custom" }],
  });
