import { fileTypeFromBuffer, supportedMimeTypes } from "file-type";
import { hasControlCharacter } from "./unsafe-characters";

// The content type a file is stored and served with, and how it is served. The bytes decide when
// the declared type disagrees: binary formats by their magic numbers (the `file-type` package,
// which runs on Workers as it is: Uint8Array in, no Node APIs), markup a browser would run (HTML,
// SVG, XML) by its first tags, since no magic number marks it.

/** How much of a file is read to tell its type (what `file-type` needs for the formats it knows). */
export const SNIFF_BYTES = 4100;

/** A media type's essence (`type/subtype`, lower case), or undefined when `value` is not one. */
export function essence(value: string | undefined | null): string | undefined {
  const type = value?.split(";")[0]?.trim().toLowerCase();
  return type && /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type) ? type : undefined;
}

/**
 * Types a browser displays without running anything: served inline. An explicit list, never a
 * pattern over a whole top-level type: a browser renders `video/x+xml` or `audio/foo+xml` as XML
 * (XHTML scripts included), whatever the `video/` or `audio/` says. Everything else (HTML, SVG,
 * XML, scripts, PDF, unknown binaries, unknown audio and video subtypes) goes out as an
 * attachment. PDFs too: a sandboxing CSP, which every media response carries, keeps browsers from
 * showing them inline anyway.
 */
const INLINE_TYPES: ReadonlySet<string> = new Set([
  ...["png", "jpeg", "gif", "webp", "avif", "bmp", "apng", "tiff", "heic", "heif", "x-icon", "vnd.microsoft.icon"].map(
    (subtype) => `image/${subtype}`,
  ),
  ...[
    "mpeg",
    "mp3",
    "mp4",
    "x-m4a",
    "aac",
    "ogg",
    "opus",
    "wav",
    "wave",
    "x-wav",
    "vnd.wave",
    "webm",
    "flac",
    "x-flac",
    "aiff",
    "x-aiff",
    "3gpp",
    "3gpp2",
    "amr",
  ].map((subtype) => `audio/${subtype}`),
  ...["mp4", "x-m4v", "webm", "ogg", "quicktime", "mpeg", "3gpp", "3gpp2", "matroska", "x-matroska"].map(
    (subtype) => `video/${subtype}`,
  ),
  "text/plain",
]);

/** Words that mark a type a browser may run, whatever list it would otherwise be on. */
const RUNNABLE = /xml|html|svg|script/;

export const servedInline = (contentType: string): boolean =>
  INLINE_TYPES.has(contentType) && !RUNNABLE.test(contentType);

/** Containers `file-type` names when it cannot tell which format inside them it is. */
const GENERIC_CONTAINERS = new Set(["application/zip", "application/x-cfb", "application/xml", "application/gzip"]);

/**
 * The type to store for a file whose first bytes are `head`, declared by the client as `declared`:
 * 1. markup (HTML, SVG, XML) is that markup's type, unless the client declared another type that
 *    is also served as an attachment (say `application/xhtml+xml`);
 * 2. a format with magic numbers is that format (a more specific declared type is kept when the
 *    bytes only say "zip" or "xml");
 * 3. a declared format with magic numbers the bytes lack was wrong, and is dropped; any other
 *    declared type is kept (CSV, JSON, markdown: text has no signature);
 * 4. otherwise `text/plain` for UTF-8 text, else `application/octet-stream`.
 */
export async function storedContentType(head: Uint8Array, declaredType: string | undefined): Promise<string> {
  let declared = essence(declaredType);
  if (declared === "application/octet-stream") declared = undefined;

  const markup = markupType(head);
  if (markup) return declared && !servedInline(declared) ? declared : markup;

  const detected = (await fileTypeFromBuffer(head))?.mime;
  if (detected) {
    return declared && GENERIC_CONTAINERS.has(detected) && !supportedMimeTypes.has(declared as never)
      ? declared
      : detected;
  }
  if (declared && !supportedMimeTypes.has(declared as never)) return declared;
  return looksLikeText(head) ? "text/plain" : "application/octet-stream";
}

/** Tags that make a browser read a document as HTML (the WHATWG sniffing table's, and a few more). */
const HTML_START =
  /^<(!doctype html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--|meta|link|form|img|svg:svg|object|embed)[\s>/]/i;

function markupType(head: Uint8Array): string | undefined {
  if (!looksLikeText(head)) return undefined;
  const text = new TextDecoder()
    .decode(head)
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (!text.startsWith("<")) return undefined;
  if (/<svg[\s>/]/i.test(text)) return "image/svg+xml";
  if (HTML_START.test(text)) return "text/html";
  if (/^<\?xml[\s?]/i.test(text)) return "application/xml";
  return undefined;
}

/** UTF-8 without NULs or control characters other than tab, line breaks, form feed and escape. */
function looksLikeText(head: Uint8Array): boolean {
  let text: string;
  try {
    // `stream`: a character cut at the end of the sample is not an error.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(head, { stream: true });
  } catch {
    return false;
  }
  return !hasControlCharacter(text, "\t\n\f\r\u001b");
}
