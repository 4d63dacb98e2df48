import { type SQL, sql } from "drizzle-orm";
import { decodeBase64Url, encodeBase64Url, encodeBase64UrlText } from "./base64url";
import { ApiError, badRequest } from "./errors";

// Validators and preconditions (RFC 9110 §8.8.3 ETag, §13.1.1 If-Match, §13.1.2 If-None-Match).
//
// A resource's entity tag names the version of the row it is read from: `"<kind>.<base64url of
// JSON [id, ...version parts]>"`, strong, opaque to clients. Because the tag carries the version it
// names, a write can check it inside its own statement (`WHERE ... AND <version> = <named>`), never
// in a read before it: of two writers holding one tag, exactly one matches. Reads compare the tag
// of the row they read, so neither costs a round trip.

/** The version of one resource a tag names: what kind of resource, which one, and its version columns. */
export interface Validator {
  kind: string;
  id: string;
  parts: readonly (string | number | null)[];
}

/** The strong entity tag of a validator, quoted as the `ETag` field carries it. */
export function entityTag(validator: Validator): string {
  return `"${validator.kind}.${encodeBase64UrlText(JSON.stringify([validator.id, ...validator.parts]))}"`;
}

/** A tag of a request field: its opaque part (quotes included) and whether it was marked weak (`W/`). */
export interface RequestedTag {
  weak: boolean;
  opaque: string;
}

/** `*` (any current representation), or the listed tags. */
export type TagCondition = "*" | RequestedTag[];

/** The preconditions of a request: `If-Match` and `If-None-Match`, each absent or parsed. */
export interface Preconditions {
  ifMatch?: TagCondition;
  ifNoneMatch?: TagCondition;
}

/** Most tags one field may list: enough for any client, few enough to keep a write's condition small. */
export const MAX_LISTED_TAGS = 32;

/** entity-tag = [ W/ ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3). */
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/** Parses `If-Match` / `If-None-Match`: `*` or a comma-separated list of entity tags (RFC 9110 §13.1.1, §13.1.2). */
export function parseTagCondition(header: string, field: string): TagCondition {
  const value = header.trim();
  if (value === "*") return "*";
  // Empty list elements are allowed and ignored (RFC 9110 §5.6.1).
  const elements = value
    .split(",")
    .map((element) => element.trim())
    .filter((element) => element !== "");
  const tags: RequestedTag[] = [];
  for (const element of elements) {
    const match = ENTITY_TAG.exec(element);
    if (!match?.[2]) {
      throw badRequest(`${field} must be * or a list of quoted entity tags`, { header: field, value: element });
    }
    tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  if (tags.length === 0) {
    throw badRequest(`${field} must be * or a list of quoted entity tags`, { header: field, value: header });
  }
  if (tags.length > MAX_LISTED_TAGS) {
    throw badRequest(`${field} lists more than ${MAX_LISTED_TAGS} entity tags`, {
      header: field,
      max_tags: MAX_LISTED_TAGS,
    });
  }
  return tags;
}

/** The preconditions a request carries (absent fields: none). A malformed field is a 400. */
export function readPreconditions(headers: { get(name: string): string | null | undefined }): Preconditions {
  const ifMatch = headers.get("If-Match");
  const ifNoneMatch = headers.get("If-None-Match");
  return {
    ...(ifMatch ? { ifMatch: parseTagCondition(ifMatch, "If-Match") } : {}),
    ...(ifNoneMatch ? { ifNoneMatch: parseTagCondition(ifNoneMatch, "If-None-Match") } : {}),
  };
}

export const hasPreconditions = (preconditions: Preconditions | undefined): preconditions is Preconditions =>
  preconditions?.ifMatch !== undefined || preconditions?.ifNoneMatch !== undefined;

/** Strong comparison (If-Match): both strong and alike. Weak comparison (If-None-Match): alike, either weak or not. */
const matches = (condition: TagCondition, current: string, weakComparison: boolean): boolean =>
  condition === "*" || condition.some((tag) => (weakComparison || !tag.weak) && tag.opaque === current);

/**
 * What a read answers given the tag of what it read (RFC 9110 §13.2.2, in its order): a failed
 * `If-Match` is a 412, a matching `If-None-Match` a 304 (GET and HEAD), else the representation.
 */
export function evaluateRead(preconditions: Preconditions, current: string): "representation" | "not_modified" {
  if (preconditions.ifMatch !== undefined && !matches(preconditions.ifMatch, current, false)) {
    throw preconditionFailed(current);
  }
  if (preconditions.ifNoneMatch !== undefined && matches(preconditions.ifNoneMatch, current, true)) {
    return "not_modified";
  }
  return "representation";
}

/**
 * For a write that reads, validates, then writes guarded on the version it read (`... AND version =
 * <read>`): the preconditions against that version, a 412 when they fail (RFC 9110 §13.1.1; a
 * matching If-None-Match on a write is a 412 too, §13.1.2). The guard makes the check the write's
 * own: a write never lands on a version other than the one checked here.
 */
export function assertPreconditions(preconditions: Preconditions, current: Validator): void {
  const tag = entityTag(current);
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch !== undefined && !matches(ifMatch, tag, false)) throw preconditionFailed(tag);
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, tag, true)) throw preconditionFailed(tag);
}

/** The refusal of a write or read whose precondition did not hold: 412, the current tag in `details.etag` and `ETag`. */
export const preconditionFailed = (current: string | null) =>
  current === null
    ? new ApiError("precondition_failed", "The precondition did not hold: the resource has no current representation")
    : new ApiError(
        "precondition_failed",
        "The precondition did not hold: the resource changed since the tag you sent (see details.etag)",
        { etag: current },
        { ETag: current },
      );

const isVersionPart = (part: unknown): boolean =>
  part === null || typeof part === "string" || (typeof part === "number" && Number.isFinite(part));

/** The version parts a requested tag names for a resource of `kind` and `id`; undefined when it names another. */
function namedParts(tag: RequestedTag, kind: string, id: string): unknown[] | undefined {
  const inner = tag.opaque.slice(1, -1);
  const dot = inner.indexOf(".");
  if (dot < 0 || inner.slice(0, dot) !== kind) return undefined;
  const bytes = decodeBase64Url(inner.slice(dot + 1));
  if (bytes === null) return undefined;
  try {
    const decoded: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    if (!Array.isArray(decoded) || decoded[0] !== id) return undefined;
    const parts = decoded.slice(1);
    // A tag this service wrote names only strings, numbers and nulls; anything else (an array
    // nested a thousand deep, an object) names no version, and never reaches SQL.
    if (!parts.every(isVersionPart)) return undefined;
    // Strong comparison is of the tags' characters (RFC 9110 §8.8.3.2): only the very tag this
    // service wrote for these parts names them, not another spelling of them (`12.0`, spaces).
    return entityTag({ kind, id, parts: parts as Validator["parts"] }) === tag.opaque ? parts : undefined;
  } catch {
    return undefined;
  }
}

/** How a resource's version reads in SQL: its kind and id, and the columns of its validator's parts, in order. */
export interface Versioned {
  kind: string;
  id: string;
  columns: readonly SQL[];
}

/** What a write expects of the resource it changes: the request's preconditions, against its version columns. */
export interface Expected {
  preconditions: Preconditions;
  versioned: Versioned;
}

/** The current version parts of a resource, as one JSON array (for explaining a refused write). */
export const versionPartsSql = (versioned: Versioned): SQL =>
  sql`json_array(${sql.join([...versioned.columns], sql`, `)})`;

/** The current tag of a resource from `versionPartsSql`'s answer; null when it has none (it does not exist). */
export function tagOfParts(versioned: Versioned, parts: string | null | undefined): string | null {
  if (parts === null || parts === undefined) return null;
  return entityTag({ kind: versioned.kind, id: versioned.id, parts: JSON.parse(parts) as Validator["parts"] });
}

/** The condition a write adds for what it expects; undefined when it expects nothing. */
export const expectedSql = (expected: Expected | undefined): SQL | undefined =>
  expected && preconditionSql(expected.preconditions, expected.versioned);

/**
 * A condition for the write statement itself (RFC 9110 §13.1.1, §13.1.2 on a state-changing
 * method): it holds when the row's version `columns` (in the order of the validator's parts) are
 * one that an `If-Match` tag names, and none an `If-None-Match` tag names. `If-Match: *` asks only
 * that the resource exist, which the write requires anyway; `If-None-Match: *` never holds for a
 * resource that exists. The tags travel as one JSON parameter, however many are listed. Undefined
 * when the request has no preconditions.
 */
export function preconditionSql(preconditions: Preconditions | undefined, validator: Versioned): SQL | undefined {
  if (!hasPreconditions(preconditions)) return undefined;
  const named = (condition: RequestedTag[], weakComparison: boolean): SQL => {
    const rows = condition
      .filter((tag) => weakComparison || !tag.weak)
      .map((tag) => namedParts(tag, validator.kind, validator.id))
      .filter((parts): parts is unknown[] => parts !== undefined && parts.length === validator.columns.length);
    if (rows.length === 0) return sql`0`;
    // Of the same type too: SQLite would take the text '5' for the integer 5 of a column.
    const same = validator.columns.map((column, index) => {
      const part = `$[${index}]`;
      return sql`(t.value ->> ${part}) IS ${column} AND json_type(t.value, ${part}) = typeof(${column})`;
    });
    return sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify(rows)}) AS t WHERE ${sql.join(same, sql` AND `)})`;
  };
  const conditions: SQL[] = [];
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch !== undefined && ifMatch !== "*") conditions.push(named(ifMatch, false));
  if (ifNoneMatch === "*") conditions.push(sql`0`);
  else if (ifNoneMatch !== undefined) conditions.push(sql`NOT ${named(ifNoneMatch, true)}`);
  return conditions.length === 0 ? undefined : sql`(${sql.join(conditions, sql` AND `)})`;
}

/**
 * A new `updated_at` for a row whose validator is its `updated_at` (ISO-8601 text, milliseconds):
 * the write's time, or one millisecond after the stored one when that is not earlier, so two writes
 * within one millisecond still leave different validators.
 */
export const advancedTimestamp = (column: SQL, now: string): SQL =>
  sql`max(${now}, strftime('%Y-%m-%dT%H:%M:%fZ', ${column}, '+0.001 seconds'))`;

/** A short digest (FNV-1a, 32 bits, hex) of what a representation derives from beyond its row (configuration). */
export function derivedDigest(value: unknown): string {
  let hash = 0x811c9dc5;
  for (const char of JSON.stringify(value)) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * A validator part for a read-only representation assembled from several rows (no one version
 * column names it): the first 128 bits of the SHA-256 of its JSON, base64url. Equal digests, equal
 * bytes, so the tag made from it is strong (RFC 9110 §8.8.1).
 */
export async function representationDigest(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(value)));
  return encodeBase64Url(new Uint8Array(digest).slice(0, 16));
}

// What a service presents carries the validator of the row it came from, so a handler can answer
// its ETag without the service's signature changing: the presented object is the key, never sent.
const validators = new WeakMap<object, Validator>();

/** Records the validator of a presented object (a block, a view, a reminder...); returns the object. */
export function withValidator<T extends object>(value: T, validator: Validator): T {
  validators.set(value, validator);
  return value;
}

/** The validator recorded for a presented object, if any. */
export const validatorOf = (value: object): Validator | undefined => validators.get(value);
