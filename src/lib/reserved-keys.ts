import { invalidBodyAt, pathWhere } from "./json-paths";

// `__proto__` cannot be a key of a JavaScript object without becoming its prototype. The body
// schemas' records and loose objects skip it (a 200 with that member gone; strict objects report it), fields of any JSON keep it
// (stored, and a trap for whatever JavaScript reads it back as an object): one rule for both, the
// key is refused wherever a body holds it, as a database property may not be named so.

/** The one object key a request's JSON may not use. */
export const RESERVED_KEY = "__proto__";

/**
 * Whether JSON text could hold the key: spelled out, or with one of its letters behind a `\u`
 * escape (`_`, `p`, `r`, `o`, `t`), so most texts are never parsed again to look.
 */
export const mayHoldReservedKey = (text: string): boolean => /__proto__|\\u00(?:5f|6f|7[024])/i.test(text);

/**
 * Where `value` holds the key `__proto__` (one place, if several), as a dotted path like validation
 * issues give (`properties.__proto__`, `content.rich_text.0.__proto__`).
 */
export const reservedKeyPath = (value: unknown): string | undefined =>
  pathWhere(value, (key, _child, inArray) => key === RESERVED_KEY && !inArray);

/**
 * Refuses JSON `text` that holds the key (400, shaped as a body's validation failures are, its path
 * under `under` when given): `value` is the text already parsed, or it is parsed here, and only
 * when the text could hold the key.
 */
export function refuseReservedKeyIn(text: string, value?: unknown, under?: string): void {
  if (!mayHoldReservedKey(text)) return;
  const path = reservedKeyPath(value === undefined ? JSON.parse(text) : value);
  if (path !== undefined) throw invalidBodyAt(path, `The key ${RESERVED_KEY} is reserved`, under);
}
