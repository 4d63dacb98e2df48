import { z } from "zod";
import { sessionSecret } from "../auth/sessions";
import { base64UrlLength, decodeBase64Url, encodeBase64Url } from "./base64url";
import type { UserContext } from "./context";
import { badRequest } from "./errors";

// The one cursor codec, for every listing (lib/pagination.ts) and for row queries
// (services/databases/row-query/cursors.ts). A cursor says where a walk continues: after some order-key
// values, after a row named by its seq, or at an offset. It is signed with a key of the server's
// (HMAC-SHA256) over the caller's user id, the listing's name, its filters and the position, so
// a client can read a cursor but not make or alter one, and a cursor continues only the walk of
// the user it was given to, in the listing and with the filters it was given for. Whatever a
// cursor names was therefore in a page that caller was shown; the services still read through
// the caller's visibility and the listing's own conditions.

/** A value of an order key, as D1 returns it and as a cursor carries it. */
export type KeyValue = string | number | null;

/**
 * Where a walk continues: after these order-key values, after the keys the row `row` (a seq) has
 * when the next page is asked for (a row query whose sort value is too long to carry), or at an
 * offset (a row query the index cannot serve).
 */
export type CursorPosition = { keys: KeyValue[] } | { row: number } | { offset: number };

/** What a cursor is bound to, besides its caller. */
export interface CursorScope {
  /** The listing's stable name (`comments.block`, `databases.query`). */
  listing: string;
  /** Every parameter that shapes the listing but the window (scope ids, filters, sort). */
  filters: unknown;
}

/** What signs and checks cursors: the caller, and the server's secret. */
export type CursorContext = Pick<UserContext, "actor" | "env" | "local">;

/**
 * Bytes of the signature a cursor carries: the first 128 bits of the HMAC-SHA256. A forger has one
 * chance in 2^128 per request to be accepted (nothing to attack offline: the tag is of a secret
 * key), as much margin as a full tag gives in practice, for 22 characters instead of 43.
 */
export const CURSOR_TAG_BYTES = 16;

/** Domain separation and a version: a change of format makes every older cursor fail, never misread. */
const SIGNED_FORMAT = "workspace-api cursor v1";
/** HKDF `info` of the cursor key: no other use of the session secret makes the same key. */
const KEY_LABEL = "workspace-api cursor signing key v1";

const encoder = new TextEncoder();

/** The derived key of the last secret used (a Worker has one secret; deriving costs more than signing). */
let cachedKey: { secret: string; key: Promise<CryptoKey> } | undefined;

/**
 * The cursor-signing key: HKDF-SHA256 of SESSION_SECRET with its own label, so a new deployment
 * sets no further secret, and what signs cursors signs nothing else (nor is the secret itself).
 */
function signingKey(ctx: CursorContext): Promise<CryptoKey> {
  const secret = sessionSecret(ctx);
  if (cachedKey?.secret !== secret) {
    const key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(KEY_LABEL) },
          base,
          { name: "HMAC", hash: "SHA-256", length: 256 },
          false,
          ["sign"],
        ),
      );
    cachedKey = { secret, key };
    // A failed derivation is not remembered: the next request tries again.
    key.catch(() => {
      if (cachedKey?.key === key) cachedKey = undefined;
    });
  }
  return cachedKey.key;
}

/** JSON with object keys sorted and undefined left out, so equal filters read alike. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  ) ?? "null";

/**
 * A short hash (FNV-1a, 32 bits, base 36) of a listing's filters, carried in the cursor so that a
 * refusal can say "other filters". It is not what binds the cursor to them: the signature covers
 * the filters themselves.
 */
export function hashFilters(filters: unknown): string {
  const text = canonicalJson(filters);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

/** The readable part of a cursor: `l` the listing, `f` its filters' hash, and one of `k`, `r`, `o`. */
const PayloadSchema = z
  .strictObject({
    l: z.string(),
    f: z.string(),
    k: z
      .array(z.union([z.string(), z.number(), z.null()]))
      .max(16)
      .optional(),
    r: z.number().int().optional(),
    o: z.number().int().min(0).optional(),
  })
  .refine((payload) => [payload.k, payload.r, payload.o].filter((part) => part !== undefined).length === 1);
type Payload = z.infer<typeof PayloadSchema>;

function payloadBytes(scope: CursorScope, position: CursorPosition): Uint8Array {
  const payload: Payload = { l: scope.listing, f: hashFilters(scope.filters) };
  if ("keys" in position) payload.k = position.keys;
  else if ("row" in position) payload.r = position.row;
  else payload.o = position.offset;
  return encoder.encode(JSON.stringify(payload));
}

/**
 * The signature of `payload` for this caller and scope: over a JSON array of the format, the user,
 * the listing and its filters (JSON has no raw newline, so the line ends it unambiguously), then
 * the payload's bytes as they travel.
 */
async function tagOf(ctx: CursorContext, scope: CursorScope, payload: Uint8Array): Promise<Uint8Array> {
  const binding = encoder.encode(
    `${JSON.stringify([SIGNED_FORMAT, ctx.actor.userId, scope.listing, canonicalJson(scope.filters)])}\n`,
  );
  const message = new Uint8Array(binding.length + payload.length);
  message.set(binding);
  message.set(payload, binding.length);
  const mac = await crypto.subtle.sign("HMAC", await signingKey(ctx), message);
  return new Uint8Array(mac, 0, CURSOR_TAG_BYTES);
}

/** Characters of the cursor `sealCursor` would give (the payload and the tag, base64url): for a size check before signing. */
export const cursorLength = (scope: CursorScope, position: CursorPosition): number =>
  base64UrlLength(payloadBytes(scope, position).length + CURSOR_TAG_BYTES);

/**
 * A cursor for `position`, for this caller in this listing with these filters: base64url (no
 * padding) of the payload's JSON (`{"l": listing, "f": filters hash, "k": [values]}`, or `"r": seq`,
 * or `"o": offset`) followed by its 16-byte tag.
 */
export async function sealCursor(ctx: CursorContext, scope: CursorScope, position: CursorPosition): Promise<string> {
  const payload = payloadBytes(scope, position);
  const tag = await tagOf(ctx, scope, payload);
  const bytes = new Uint8Array(payload.length + CURSOR_TAG_BYTES);
  bytes.set(payload);
  bytes.set(tag, payload.length);
  return encodeBase64Url(bytes);
}

/** Compares in time that does not depend on where the first difference is. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/** The 400 of a cursor that is refused, naming the parameter. */
export const cursorRefused = (why: string, remedy = "pass back the X-Next-Cursor of the same listing and filters") =>
  badRequest(`cursor ${why}: ${remedy}`, { parameter: "cursor" });

const readPayload = (bytes: Uint8Array): Payload | null => {
  try {
    const parsed = PayloadSchema.safeParse(
      JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

/**
 * The position a cursor continues from, once its signature is found to be this caller's, for this
 * listing and these filters; checked before any query runs. A 400 `validation_failed` with
 * `details: {parameter: "cursor"}` otherwise: not a cursor, of another listing, of other filters,
 * given to another user, altered, or signed with a key this server no longer has.
 */
export async function openCursor(ctx: CursorContext, scope: CursorScope, cursor: string): Promise<CursorPosition> {
  const bytes = decodeBase64Url(cursor);
  // One spelling per cursor (no padding, the standard alphabet or stray bits).
  if (!bytes || bytes.length <= CURSOR_TAG_BYTES || encodeBase64Url(bytes) !== cursor) {
    throw cursorRefused("is not a cursor this service gave");
  }
  const payload = bytes.subarray(0, bytes.length - CURSOR_TAG_BYTES);
  const tag = bytes.subarray(bytes.length - CURSOR_TAG_BYTES);
  const read = readPayload(payload);
  if (!read) throw cursorRefused("is not a cursor this service gave");
  if (!sameBytes(tag, await tagOf(ctx, scope, payload))) {
    // The payload is read unverified here only to word the refusal.
    if (read.l !== scope.listing) throw cursorRefused("belongs to another listing");
    if (read.f !== hashFilters(scope.filters)) throw cursorRefused("belongs to other filters");
    throw cursorRefused("was not given to this caller, or was altered");
  }
  if (read.k) return { keys: read.k };
  if (read.r !== undefined) return { row: read.r };
  return { offset: read.o as number };
}
