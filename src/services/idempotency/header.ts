import { badRequest } from "../../lib/errors";

// The `Idempotency-Key` request header as draft-ietf-httpapi-idempotency-key-header defines it: an
// Item Structured Header (RFC 8941) whose value MUST be a String, `Idempotency-Key: "8e03978e-..."`.
// This service takes 1 to 255 characters (an sf-string holds only printable ASCII, space to `~`).
// Most clients send the key unquoted (`Idempotency-Key: 8e03978e-...`, as Stripe's API takes it),
// which is no sf-string (a UUID is not even a token); such a value, 1 to 255 visible ASCII
// characters with no quote, comma, semicolon or backslash, is read as the same key as its quoted
// form. Anything else that is not one sf-string item (two header lines joined by a comma, a control
// character, an unterminated quote) is a 400 before anything is read or written.

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const IDEMPOTENCY_KEY_EXAMPLE = '"8e03978e-40d5-43e8-bc93-6894a57f9324"';

const refused = (problem: string) =>
  badRequest(`${IDEMPOTENCY_KEY_HEADER} ${problem}`, {
    header: IDEMPOTENCY_KEY_HEADER,
    expected: `an RFC 8941 string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, in double quotes`,
    example: IDEMPOTENCY_KEY_EXAMPLE,
  });

/** An sf-string starting at `input[start]` (a DQUOTE): its value and the index after its closing quote. */
function parseString(input: string, start: number): { value: string; end: number } {
  let value = "";
  for (let i = start + 1; i < input.length; i += 1) {
    const char = input[i] as string;
    if (char === "\\") {
      const next = input[i + 1];
      if (next !== '"' && next !== "\\") throw refused('has a backslash that escapes neither `"` nor `\\`');
      value += next;
      i += 1;
    } else if (char === '"') {
      return { value, end: i + 1 };
    } else {
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) throw refused("may hold only printable ASCII characters");
      value += char;
    }
  }
  throw refused("has no closing double quote");
}

/** RFC 8941 bare items other than a String, as parameter values: integer or decimal, token, byte sequence, boolean. */
const BARE_ITEM = /^(?:-?\d{1,15}(?:\.\d{1,3})?|[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*|:[A-Za-z0-9+/=]*:|\?[01])/;
const PARAMETER_KEY = /^[a-z*][a-z0-9_\-.*]*/;

/** Parameters after the item (RFC 8941 section 3.1.2): parsed to be skipped, as nothing here defines any. */
function skipParameters(input: string, start: number): number {
  let i = start;
  while (input[i] === ";") {
    i += 1;
    while (input[i] === " ") i += 1;
    const key = PARAMETER_KEY.exec(input.slice(i))?.[0];
    if (!key) throw refused("has a malformed parameter");
    i += key.length;
    if (input[i] !== "=") continue;
    i += 1;
    if (input[i] === '"') {
      i = parseString(input, i).end;
      continue;
    }
    const item = BARE_ITEM.exec(input.slice(i))?.[0];
    if (!item) throw refused("has a malformed parameter value");
    i += item.length;
  }
  return i;
}

/** Visible ASCII but the characters that would make it a list, parameters or an sf-string. */
const UNQUOTED_KEY = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/;

/** The key sent without quotes, as most clients send it: the same key as its quoted form. */
function unquotedKey(input: string): string {
  if (input.length === 0) throw refused("must not be empty");
  if (!UNQUOTED_KEY.test(input)) {
    throw refused('must be a string in double quotes (RFC 8941), e.g. Idempotency-Key: "order-42"');
  }
  if (input.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw refused(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return input;
}

/**
 * The key of an `Idempotency-Key` field value (RFC 8941 section 4.2: leading and trailing spaces
 * discarded, one Item whose bare item is a String, parameters ignored), or a 400 naming the problem.
 */
export function parseIdempotencyKey(field: string): string {
  const input = field.replace(/^ +| +$/g, "");
  if (input[0] !== '"') return unquotedKey(input);
  const { value, end } = parseString(input, 0);
  if (skipParameters(input, end) !== input.length) {
    throw refused("must be one string: send the header once, with one value");
  }
  if (value.length === 0) throw refused("must not be empty");
  if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw refused(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return value;
}
