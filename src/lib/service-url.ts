import { isLoopbackHost } from "./address-policy";
import type { RequestContext } from "./context";
import { allowsLocalShortcuts } from "./environment";
import { ApiError } from "./errors";

// The address of a third party taken from configuration (the transcription endpoint, the notes
// tool's webhook, an OpenAI-compatible model server). What goes there (audio, notes, prompts, an
// API key, a signature) travels only over TLS: plain http is accepted only to this machine during
// local work (`npm run dev` talking to a local whisper server, Ollama, or a webhook receiver).

/**
 * A capability that is off on this server until the operator sets `setting`: 503 `unavailable`
 * (a server's state, not a failure of the third party, which was never called), naming the setting.
 */
export const notConfigured = (capability: string, setting: string, problem: string): ApiError =>
  new ApiError("unavailable", `${capability} is not configured on this server: ${problem}`, { setting });

/** A configuration setting that holds the address of a third party. */
export type ServiceUrlSetting = "TRANSCRIPTION_BASE_URL" | "NOTES_WEBHOOK_URL" | "OPENAI_COMPATIBLE_BASE_URL";

/**
 * The configured address as a URL, or a 503 `unavailable` naming the setting (the capability is
 * not configured): https (http only to a loopback host during local work), no credentials in it,
 * no fragment. Its value is never quoted back: a webhook URL may carry its own token.
 */
export function serviceUrl(
  ctx: Pick<RequestContext, "env" | "local">,
  setting: ServiceUrlSetting,
  value: string,
  capability: string,
): URL {
  const refuse = (problem: string) => notConfigured(capability, setting, problem);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse(`${setting} is not a URL`);
  }
  const local = allowsLocalShortcuts(ctx) && url.protocol === "http:" && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !local) {
    throw refuse(`${setting} must be an https URL (http only to this machine during local development)`);
  }
  if (url.username || url.password) throw refuse(`${setting} must not carry a user name or password`);
  url.hash = "";
  return url;
}
