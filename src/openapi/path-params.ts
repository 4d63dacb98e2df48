/**
 * What each kind of id in a path names, and whose it must be. One text per kind, shared by every
 * route that takes it, so the contract says the same thing wherever the id appears. An object the
 * caller may not see is a 404, never a 403 that confirms it exists (docs/decisions.md).
 */
export const BLOCK_ID_DESCRIPTION =
  "The block's id (a page, database or row is a block too): a block the caller can see (another user's private block is a 404)";
export const PAGE_ID_DESCRIPTION =
  "The page's id: a page, database or row the caller can see (another user's private one is a 404)";
export const DATABASE_ID_DESCRIPTION =
  "The database's id: a database block the caller can see (another user's private database is a 404)";
export const PROPERTY_ID_DESCRIPTION =
  "The property's id in the database's schema (its id, not its display name): an id the schema does not hold is a 404";
export const OPTION_ID_DESCRIPTION =
  "The option's id in the property (its id, not its name): an id the property does not hold is a 404";
export const VIEW_ID_DESCRIPTION =
  "The saved view's id: one the caller can see (their own or a shared view, of a database they can see; otherwise a 404)";
export const COMMENT_ID_DESCRIPTION =
  "The comment's id: a comment on a block the caller can see (a comment on another user's private block is a 404)";
export const MENTION_ID_DESCRIPTION =
  "The id of a mention recorded through the API: only its author may change it (403 when the caller can see it, 404 when not)";
export const MEDIA_ID_DESCRIPTION = "The media file's id: one of the caller's own (another user's is a 404)";
export const API_KEY_ID_DESCRIPTION =
  "The API key's id: one of the caller's own keys, not revoked (another user's or a revoked key is a 404)";
export const WEBHOOK_ID_DESCRIPTION =
  "The webhook's id: one of the caller's own webhooks (another user's, or an id that names none, is a 404)";
export const PUSH_SUBSCRIPTION_ID_DESCRIPTION =
  "The push subscription's id: one of the caller's own (another user's, or an id that names none, is a 404)";
export const REMINDER_ID_DESCRIPTION =
  "The reminder's id: one of the caller's own reminders (reminders are personal: another user's is a 404)";
export const NOTIFICATION_ID_DESCRIPTION =
  "The notification's id: one of the caller's own notifications (another user's is a 404)";
