/**
 * Transcription and the notes tool, configured for the fuzzing run and answered by fakes at the
 * fetch seam (the run's one `fakeThirdParties`, in contract.fuzz.test.ts), as every other test
 * fakes third parties: a request that gets through is answered as on a configured server, not
 * with a 503 for a capability the test environment leaves unset. The settings are written into
 * the environment the Worker reads (one object in this isolate) for the run, and put back after.
 */
import { env } from "cloudflare:test";

const TRANSCRIPTION_HOST = "transcription.fuzz.test";
const NOTES_HOST = "notes.fuzz.test";

const SETTINGS: Partial<Env> = {
  TRANSCRIPTION_BASE_URL: `https://${TRANSCRIPTION_HOST}/v1`,
  TRANSCRIPTION_API_KEY: "sk-fuzz-transcription",
  NOTES_WEBHOOK_URL: `https://${NOTES_HOST}/webhook`,
  NOTES_WEBHOOK_SECRET: "fuzz-notes-webhook-secret-0123456789abcdef",
};

/** Writes the settings into the environment; returns what puts the previous values back. */
export function configureThirdParties(): () => void {
  const settings = env as unknown as Record<string, unknown>;
  const previous = Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, settings[name]]));
  Object.assign(settings, SETTINGS);
  return () => {
    Object.assign(settings, previous);
  };
}

/** The fakes' answer to a request for one of them, or undefined for any other host. */
export function answerThirdParty(request: Request): Response | undefined {
  const host = new URL(request.url).hostname;
  if (host === TRANSCRIPTION_HOST) return Response.json({ text: "fuzz transcription" });
  if (host === NOTES_HOST) return new Response(null, { status: 204 });
  return undefined;
}
