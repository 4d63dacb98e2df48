import { MENTION_TARGET_TYPES, type Mention, type MentionTargetType } from "../../domain/mentions";
import type { TextSpan } from "./schema";

// An inline mention is a text span that refers to a page, a block, a user or a date:
// `{text: "@Roadmap", mention: {type: "page", id: "<page id>"}}`. In markdown it is a
// link whose destination is `mention:<type>:<id>` (the id percent-encoded), so it
// round-trips through every markdown path; in HTML it is a span carrying the target.

const SCHEME = "mention:";

/** The markdown link destination of a mention. */
export const mentionHref = (mention: Mention): string => `${SCHEME}${mention.type}:${encodeURIComponent(mention.id)}`;

/** The mention a link destination stands for, or undefined for an ordinary link. */
export function mentionOfHref(href: string): Mention | undefined {
  if (!href.startsWith(SCHEME)) return undefined;
  const rest = href.slice(SCHEME.length);
  const colon = rest.indexOf(":");
  const type = rest.slice(0, colon) as MentionTargetType;
  if (colon < 0 || !MENTION_TARGET_TYPES.includes(type)) return undefined;
  try {
    const id = decodeURIComponent(rest.slice(colon + 1));
    return id === "" ? undefined : { type, id };
  } catch {
    return undefined;
  }
}

/** A span with its mention written as the link markdown carries it (for rendering). */
export const mentionAsLink = (span: TextSpan): TextSpan => {
  if (!span.mention) return span;
  const { mention, ...rest } = span;
  return { ...rest, link: mentionHref(mention) };
};

/** What a parsed link destination makes of a span: a mention or a link. */
export const linkOrMention = (href: string): Pick<TextSpan, "link" | "mention"> => {
  const mention = mentionOfHref(href);
  return mention ? { mention } : { link: href };
};

/**
 * A stored span in the one form mentions take: a link to a `mention:` destination
 * becomes that mention, and a span that mentions drops any link beside it, so stored
 * content, its markdown and the mentions kept from it all agree.
 */
export function mentionSpanForm(span: TextSpan): TextSpan {
  const mention = span.mention ?? (span.link ? mentionOfHref(span.link) : undefined);
  if (!mention) return span;
  const { link: _link, ...rest } = span;
  return { ...rest, mention };
}
