/**
 * How deep JSON values in a request may nest. SQLite's JSON functions (the FTS
 * triggers, merge patches) refuse values nested past 1000 levels, and no page
 * needs more than a few dozen; past this a write is a 400, not a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests no deeper than `limit` objects/arrays (checked without recursion). */
export function withinJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return false;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return true;
}

export const JSON_DEPTH_MESSAGE = `Nested deeper than ${MAX_JSON_DEPTH} levels`;
