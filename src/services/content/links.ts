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
 * image, video, audio), never `data:` of another.
 */
export function safeUrl(url: string, dataKind?: string): string | undefined {
  // Browsers drop tabs, newlines and control characters inside URLs: `java\tscript:` must not pass.
  const squeezed = [...url].filter((ch) => ch > " " && ch !== "\u007f").join("");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(squeezed)?.[1]?.toLowerCase();
  if (scheme === undefined || (LINK_SCHEMES as readonly string[]).includes(scheme)) return url.trim();
  if (scheme === "data" && dataKind && squeezed.toLowerCase().startsWith(`data:${dataKind}/`)) return url.trim();
  return undefined;
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

/**
 * Every link under `value` that safeUrl refuses, with its path from `path`: the `link` of a
 * text span and the `url` of a media item, wherever they are (page bodies, toggle content, an
 * editor block's free-form content). Walked with a stack of its own: bodies are deep and long.
 */
export function unsafeLinks(value: unknown, path: string): LinkIssue[] {
  const issues: LinkIssue[] = [];
  const pending: [unknown, string][] = [[value, path]];
  while (pending.length > 0) {
    const [current, at] = pending.pop() as [unknown, string];
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) pending.push([current[index], `${at}[${index}]`]);
      continue;
    }
    if (!isRecord(current)) continue;
    const { link } = current;
    if (typeof link === "string" && mentionOfHref(link) === undefined && safeUrl(link) === undefined) {
      issues.push(issue(`${at}.link`, link, `a link is ${SCHEMES}, or a mention (mention:<type>:<id>)`));
    }
    const type = current.type;
    if (typeof type === "string" && MEDIA.has(type) && typeof current.url === "string") {
      const kind = type === "embed" ? undefined : type;
      if (safeUrl(current.url, kind) === undefined) {
        const inline = kind ? `, or inline data:${kind}/…` : "";
        issues.push(issue(`${at}.url`, current.url, `a ${type} url is ${SCHEMES}${inline}`));
      }
    }
    const entries = Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index] as [string, unknown];
      if (typeof child === "object" && child !== null) pending.push([child, `${at}.${key}`]);
    }
  }
  return issues;
}
