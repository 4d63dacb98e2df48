import { mentionOfHref } from "./mentions";
import { MEDIA_TYPES } from "./schema";

// The one rule of what a link may point to, for writes and exports alike: a body never stores a
// link an export would refuse to link, and the HTML export never links one that got in some
// other way (written before the rule, or straight to the database). A `mention:` destination a
// mention reads from (mentionOfHref) is a mention, not a link; any other `mention:` is refused.

/** Schemes a link may have; a URL without a scheme (relative, an anchor) is a link too. */
export const LINK_SCHEMES = ["http", "https", "mailto", "tel"] as const;

/**
 * The URL as it may be linked (trimmed), or undefined when its scheme could run code or is not
 * one of LINK_SCHEMES. A media item may also be inline `data:` of its own kind (`dataKind`:
 * image, video, audio), never `data:` of another, nor SVG, which is a document that runs
 * scripts when opened (`data:image/svg+xml`).
 */
export function safeUrl(url: string, dataKind?: string): string | undefined {
  // Browsers drop tabs, newlines and control characters inside URLs: `java\tscript:` must not pass.
  const squeezed = [...url].filter((ch) => ch > " " && ch !== "\u007f").join("");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(squeezed)?.[1]?.toLowerCase();
  if (scheme === undefined || (LINK_SCHEMES as readonly string[]).includes(scheme)) return url.trim();
  if (scheme !== "data" || !dataKind) return undefined;
  const mediaType = squeezed.slice("data:".length).split(/[;,]/, 1)[0]?.toLowerCase() ?? "";
  return mediaType.startsWith(`${dataKind}/`) && !mediaType.startsWith("image/svg") ? url.trim() : undefined;
}

const SCHEMES = `${LINK_SCHEMES.join(", ")} or without a scheme`;

/** One link a write may not store, reported in a 400's `details.issues`. */
export interface LinkIssue {
  path: string;
  code: "unsafe_link";
  message: string;
  /** The link refused (its first 200 characters). */
  url: string;
}

const issue = (path: string, url: string, message: string): LinkIssue => ({
  path,
  code: "unsafe_link",
  message,
  url: url.slice(0, 200),
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const MEDIA: ReadonlySet<string> = new Set(MEDIA_TYPES);

/** Keys whose string values are links to follow: never inline data. */
const LINK_KEYS = ["link", "href"] as const;
/** Keys whose string values are sources to load: under a media item, inline data of its kind too. */
const SOURCE_KEYS = ["url", "src"] as const;

/**
 * The kind of inline data a source under `record` may be: its own kind when it is an image, video
 * or audio item, none when an embed, else the kind of the media item it lies in (`inherited`).
 */
function dataKindUnder(record: Record<string, unknown>, inherited: string | undefined): string | undefined {
  const { type } = record;
  if (typeof type !== "string" || !MEDIA.has(type)) return inherited;
  return type === "embed" ? undefined : type;
}

/**
 * Every link under `value` that safeUrl refuses, with its path from `path`: the string under any
 * `link` or `href` key (a link), and under any `url` or `src` key (a source: a media item's, or one
 * inside it, may be inline data of the item's kind), wherever they are (page bodies, spans, toggle
 * content, an editor block's free-form content). `mediaType` is the type of the block the value
 * belongs to, when that block is itself a media item. Walked with a stack of its own: bodies are
 * deep and long.
 */
export function unsafeLinks(value: unknown, path: string, mediaType?: string): LinkIssue[] {
  const issues: LinkIssue[] = [];
  const pending: [unknown, string, string | undefined][] = [
    [value, path, dataKindUnder({ type: mediaType }, undefined)],
  ];
  while (pending.length > 0) {
    const [current, at, inherited] = pending.pop() as [unknown, string, string | undefined];
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        pending.push([current[index], `${at}[${index}]`, inherited]);
      }
      continue;
    }
    if (!isRecord(current)) continue;
    for (const key of LINK_KEYS) {
      const link = current[key];
      if (typeof link === "string" && mentionOfHref(link) === undefined && safeUrl(link) === undefined) {
        issues.push(issue(`${at}.${key}`, link, `must be a link (${SCHEMES}) or a mention (mention:<type>:<id>)`));
      }
    }
    const kind = dataKindUnder(current, inherited);
    for (const key of SOURCE_KEYS) {
      const source = current[key];
      if (typeof source === "string" && safeUrl(source, kind) === undefined) {
        const inline = kind ? `, or inline data:${kind}/… other than SVG` : "";
        issues.push(issue(`${at}.${key}`, source, `must be ${SCHEMES}${inline}`));
      }
    }
    const entries = Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index] as [string, unknown];
      if (typeof child === "object" && child !== null) pending.push([child, `${at}.${key}`, kind]);
    }
  }
  return issues;
}
