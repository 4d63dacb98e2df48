import { hostKind } from "../../lib/address-policy";
import { badRequest } from "../../lib/errors";
import { LONE_SURROGATE } from "../../lib/lone-surrogates";
import { SIGNED_URL_PATH } from "./signing";
import { hasControlCharacter } from "./unsafe-characters";

// Where a media object is, as callers name it: a path (`<user_id>/<name>`) or a URL of this
// service's storage. Everything here is checked on the text as written, before any policy and
// before any lookup: a path is refused, never repaired; a URL is this service's own only when its
// scheme and host are written exactly as one of its origins. Nothing here ever fetches a URL.

/** R2 keys are at most 1,024 bytes. */
export const MAX_PATH_BYTES = 1024;
/** Longest URL read; longer text is not one of ours. */
const MAX_URL_LENGTH = 8192;

/** Bucket names as object storages write them. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/**
 * A path as given (`<user_id>/<name>`, every segment non-empty), or a 400 naming what is wrong:
 * no `.` or `..` segments, no empty segments (so no leading, trailing or doubled `/`), no
 * backslashes, no percent-escapes (a path is sent decoded; `%2F` is never a separator), no control
 * characters, at most 1,024 bytes.
 */
export function checkedPath(raw: string, field = "path"): string {
  const refuse = (reason: string, message: string) => badRequest(message, { field, reason });
  if (raw.length === 0) throw refuse("empty", `${field} must not be empty`);
  if (LONE_SURROGATE.test(raw)) throw refuse("malformed_unicode", `${field} holds a lone UTF-16 surrogate`);
  if (new TextEncoder().encode(raw).length > MAX_PATH_BYTES) {
    throw refuse("too_long", `${field} must be at most ${MAX_PATH_BYTES} bytes`);
  }
  if (hasControlCharacter(raw)) throw refuse("control_character", `${field} must not hold control characters`);
  if (raw.includes("\\")) throw refuse("backslash", `${field} must not hold backslashes`);
  if (raw.includes("%")) {
    throw refuse("encoded_character", `${field} must not hold percent-escapes: send the path decoded`);
  }
  const segments = raw.split("/");
  if (segments.some((segment) => segment === "")) {
    throw refuse("empty_segment", `${field} must not have empty segments (a leading, trailing or doubled /)`);
  }
  if (segments.some((segment) => segment === "." || segment === "..")) {
    throw refuse("dot_segment", `${field} must not have . or .. segments`);
  }
  if (segments.length < 2) throw refuse("no_folder", `${field} must be <user_id>/<name>`);
  return raw;
}

/** The owner folder of a checked path: its first segment. */
export const folderOf = (path: string): string => path.slice(0, path.indexOf("/"));

/** Why a URL is not one of this service's storage URLs. */
export type ForeignReason =
  | "invalid_url"
  | "scheme"
  | "credentials"
  | "private_address"
  | "ip_address"
  | "external_host"
  | "not_a_media_url";

export type MediaUrl =
  | { own: true; form: "signed" | "storage"; bucket: string; path: string }
  | { own: false; reason: ForeignReason };

export const FOREIGN_REASON_MESSAGES: Record<ForeignReason, string> = {
  invalid_url: "not a valid absolute http(s) URL",
  scheme: "only http(s) URLs of this service's storage are read",
  credentials: "a URL with credentials (user@host) is never followed",
  private_address: "a loopback, private or link-local address is never fetched",
  ip_address: "an IP address is never fetched",
  external_host: "another host is never fetched: only this service's own storage is read",
  not_a_media_url: "this service's URL does not name a media object",
};

const STORAGE_PREFIX = "/storage/v1/object/";
const STORAGE_MODES = new Set(["public", "sign", "authenticated"]);

/**
 * Reads a URL: one of this service's storage URLs on one of `origins` (a signed link, expired or
 * not, or `/storage/v1/object/{public|sign|authenticated}/<bucket>/<path>`), with its bucket and
 * checked path; or another URL and why it is not ours. A path-only URL (`/storage/...`) is on the
 * first origin. A URL of ours whose path breaks the path rules is a 400, as a path would be.
 */
export function readMediaUrl(raw: string, origins: readonly string[]): MediaUrl {
  if (raw.length > MAX_URL_LENGTH || hasControlCharacter(raw) || /[\s\\]/.test(raw)) {
    return { own: false, reason: "invalid_url" };
  }
  let rest: string;
  if (raw.startsWith("/") && !raw.startsWith("//")) {
    rest = raw;
  } else {
    const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(raw);
    // Exact text: another case, an escape, credentials or a trailing dot make another origin.
    if (!match || !origins.includes(`${match[1]}://${match[2]}`)) return { own: false, reason: foreignReason(raw) };
    rest = match[3] ?? "";
  }
  const end = rest.search(/[?#]/);
  const pathname = end === -1 ? rest : rest.slice(0, end);
  const query = end === -1 || rest[end] === "#" ? "" : rest.slice(end + 1).split("#")[0];

  if (pathname === SIGNED_URL_PATH) {
    const params = new URLSearchParams(query);
    const bucket = params.get("bucket");
    const path = params.get("path");
    if (bucket === null || path === null) {
      throw badRequest("This signed media URL lacks its bucket or path", { field: "url", reason: "incomplete" });
    }
    return { own: true, form: "signed", bucket: checkedBucket(bucket), path: checkedPath(path, "url") };
  }
  if (pathname.startsWith(STORAGE_PREFIX)) {
    const [mode = "", bucket = "", ...segments] = pathname.slice(STORAGE_PREFIX.length).split("/");
    if (STORAGE_MODES.has(mode) && bucket !== "") {
      return {
        own: true,
        form: "storage",
        bucket: checkedBucket(bucket),
        path: checkedPath(segments.join("/"), "url"),
      };
    }
  }
  return { own: false, reason: "not_a_media_url" };
}

function checkedBucket(bucket: string): string {
  if (!BUCKET_NAME.test(bucket)) throw badRequest("Not a bucket name", { field: "bucket", reason: "invalid_bucket" });
  return bucket;
}

/** Why a URL on no origin of ours is not followed: for the 400's details, never for a decision. */
function foreignReason(raw: string): ForeignReason {
  let url: URL;
  try {
    // A protocol-relative URL (`//host/...`) would go to that host over the page's scheme.
    url = new URL(raw.startsWith("//") ? `http:${raw}` : raw);
  } catch {
    return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw) ? "scheme" : "invalid_url";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "scheme";
  if (url.username !== "" || url.password !== "") return "credentials";
  // The parser has already read decimal, hex and octal IPv4 forms as dotted quads (lib/address-policy.ts).
  const kind = hostKind(url.hostname);
  if (kind === "loopback" || kind === "private") return "private_address";
  return kind === "public_ip" ? "ip_address" : "external_host";
}
