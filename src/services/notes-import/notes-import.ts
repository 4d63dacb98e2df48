import type { UserContext } from "../../lib/context";
import { callThirdParty } from "../../lib/outbound";
import type { NotesImportInput, NotesImportResult } from "../../schemas/notes-import";
import { configuredWebhook } from "./config";
import { SIGNATURE_HEADER, signNotesRequest, TIMESTAMP_HEADER } from "./signature";

// Pushing a transcription to the notes tool: one signed JSON POST to its webhook. A 2xx is
// accepted; anything else (an error status, a redirect, a timeout, no connection) is a 500
// `upstream_failed` naming the notes tool and what happened, never its URL or answer. Not retried:
// a note the tool took but whose answer was lost would be imported twice.

/** How the webhook is named in errors and logs. */
export const NOTES_SERVICE = "notes tool";

/** What the webhook receives (JSON), documented for whoever writes the receiving side. */
export interface NotesWebhookPayload {
  /** Unique per note sent, for the receiver's logs. */
  id: string;
  type: "transcription";
  title: string;
  transcriptionText: string;
  /** The id of the user who sent it: the tool files each user's notes apart, and the signature vouches for it. */
  user_id: string;
  /** When it was sent, ISO-8601 UTC. */
  created_at: string;
}

/** The title as sent: the caller's, trimmed, or one naming the moment when there is none. */
export function noteTitle(title: string | null | undefined, now: Date): string {
  const given = title?.trim();
  return given || `Transcription ${now.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export async function importNotes(ctx: UserContext, input: NotesImportInput): Promise<NotesImportResult> {
  const webhook = configuredWebhook(ctx);
  const now = ctx.now();
  const payload: NotesWebhookPayload = {
    id: crypto.randomUUID(),
    type: "transcription",
    title: noteTitle(input.title, now),
    transcriptionText: input.transcriptionText,
    user_id: ctx.actor.userId,
    created_at: now.toISOString(),
  };
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(now.getTime() / 1000);
  const response = await callThirdParty(ctx, NOTES_SERVICE, webhook.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: await signNotesRequest(webhook.secret, timestamp, body),
    },
    body,
    // The signed note goes to the configured address or nowhere.
    redirect: "manual",
    timeoutMs: webhook.timeoutMs,
    accept: (status) => status >= 200 && status < 300,
  });
  // The tool's answer says nothing the caller needs.
  await response.body?.cancel().catch(() => undefined);
  return { success: true, message: "Sent to the notes tool" };
}
