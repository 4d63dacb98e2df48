import type { RequestContext } from "../../lib/context";
import { allowsLocalShortcuts, boundedSetting } from "../../lib/environment";
import { MIN_SECRET_LENGTH } from "../../lib/secrets";
import { notConfigured, serviceUrl } from "../../lib/service-url";

// Where notes go: the notes tool's webhook (NOTES_WEBHOOK_URL, a secret: such URLs often carry
// their own token), the key its requests are signed with (NOTES_WEBHOOK_SECRET), and how long it
// may take to accept one.

export const DEFAULT_NOTES_WEBHOOK_TIMEOUT_SECONDS = 10;
const MAX_NOTES_WEBHOOK_TIMEOUT_SECONDS = 60;

export interface NotesWebhook {
  url: URL;
  secret: string;
  timeoutMs: number;
}

/** How long the webhook may take (NOTES_WEBHOOK_TIMEOUT_SECONDS, 1 to 60; default 10), in ms. */
export function notesWebhookTimeoutMs(env: Pick<Env, "NOTES_WEBHOOK_TIMEOUT_SECONDS">): number {
  return (
    boundedSetting(
      env.NOTES_WEBHOOK_TIMEOUT_SECONDS,
      DEFAULT_NOTES_WEBHOOK_TIMEOUT_SECONDS,
      1,
      MAX_NOTES_WEBHOOK_TIMEOUT_SECONDS,
    ) * 1000
  );
}

/**
 * The configured webhook, or a 503 `unavailable` naming the setting to fix: no URL, a URL that is
 * not https (http only to this machine during local work), no signing secret, or (outside local
 * work) one shorter than 32 characters.
 */
export function configuredWebhook(ctx: Pick<RequestContext, "env" | "local">): NotesWebhook {
  const refuse = (setting: "NOTES_WEBHOOK_URL" | "NOTES_WEBHOOK_SECRET", problem: string) =>
    notConfigured("Notes import", setting, problem);
  const address = ctx.env.NOTES_WEBHOOK_URL?.trim();
  if (!address) throw refuse("NOTES_WEBHOOK_URL", "set NOTES_WEBHOOK_URL, the notes tool's webhook");
  const url = serviceUrl(ctx, "NOTES_WEBHOOK_URL", address, "Notes import");
  const secret = ctx.env.NOTES_WEBHOOK_SECRET ?? "";
  if (!secret) throw refuse("NOTES_WEBHOOK_SECRET", "set NOTES_WEBHOOK_SECRET, the key notes are signed with");
  if (secret.length < MIN_SECRET_LENGTH && !allowsLocalShortcuts(ctx)) {
    throw refuse(
      "NOTES_WEBHOOK_SECRET",
      `NOTES_WEBHOOK_SECRET must be a random string of at least ${MIN_SECRET_LENGTH} characters`,
    );
  }
  return { url, secret, timeoutMs: notesWebhookTimeoutMs(ctx.env) };
}
