import { invalidBodyAt, pathWhere } from "./json-paths";

// A lone UTF-16 surrogate is no character: JSON.stringify writes it back as a `\udXXX` escape that
// strict parsers (jq, serde_json) refuse, so one stored in a block's properties made every answer
// holding it unreadable to them (the block, its history, the change feed), for every user of a
// shared page; as UTF-8 (a D1 text column) it silently becomes U+FFFD. Refused wherever a request's
// JSON holds one, in a string or a key: well-formed text is all a body may carry.

/** A UTF-16 surrogate without its pair. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

/**
 * Whether JSON text could hold one: only through a `\uD800`-`\uDFFF` escape (any case; a well-formed
 * pair, an emoji written `\ud83d\ude00`, matches too and passes the walk). The text itself never
 * holds one: it is a request's bytes decoded as UTF-8, which writes what no character encodes as
 * U+FFFD. Most texts are never parsed again to look.
 */
export const mayHoldLoneSurrogate = (text: string): boolean => /\\ud[89a-f]/i.test(text);

/** `text` with each lone surrogate replaced by U+FFFD, so an error can name where one was and stay readable. */
export const wellFormed = (text: string): string => text.replace(LONE_SURROGATES, "\uFFFD");

/**
 * `value` (parsed JSON) with every lone surrogate in its strings and keys written U+FFFD: for JSON a
 * third party wrote (a model's answer), whose text we keep rather than refuse.
 */
export function wellFormedJson(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedJson);
  if (typeof value !== "object" || value === null) return value;
  // Object.fromEntries defines each key as its own (a `__proto__` the model wrote stays a key), as JSON.parse does.
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [wellFormed(key), wellFormedJson(child)]));
}

/** Where `value` holds a lone surrogate (one place, if several), as a dotted path; "" for a string at the root. */
export function loneSurrogatePath(value: unknown): string | undefined {
  const isLone = (item: unknown) => typeof item === "string" && LONE_SURROGATE.test(item);
  if (isLone(value)) return "";
  return pathWhere(value, (key, child) => isLone(key) || isLone(child));
}

/**
 * Refuses JSON `text` holding a lone surrogate (400, shaped as a body's validation failures are,
 * its path under `under` when given, a surrogate in it written U+FFFD): `value` is the text already
 * parsed, or it is parsed here, and only when the text could hold one.
 */
export function refuseLoneSurrogateIn(text: string, value?: unknown, under?: string): void {
  if (!mayHoldLoneSurrogate(text)) return;
  const path = loneSurrogatePath(value === undefined ? JSON.parse(text) : value);
  if (path === undefined) return;
  throw invalidBodyAt(
    wellFormed(path),
    "A string or key holds a lone UTF-16 surrogate (not a character): send well-formed Unicode",
    under,
  );
}
