// What an inline mention is: shared by the content schema (services/content/), the stored mentions
// (services/mentions/) and the request schemas. How mentions are written in markdown and HTML is
// services/content/mentions.ts.

export const MENTION_TARGET_TYPES = ["page", "block", "user", "date"] as const;
export type MentionTargetType = (typeof MENTION_TARGET_TYPES)[number];

/** What an inline mention refers to. */
export interface Mention {
  type: MentionTargetType;
  /** The page's, block's or user's id; for a date, the date (`2026-11-23`) or instant. */
  id: string;
}

/** What a date mention's id may be: a calendar date (`2026-11-23`) or an ISO-8601 instant. */
export const DATE_MENTION = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
