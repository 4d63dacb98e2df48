import type { RequestContext } from "../../lib/context";
import { boundedSetting } from "../../lib/environment";
import { notConfigured, serviceUrl } from "../../lib/service-url";
import { MULTIPART_ALLOWANCE_BYTES } from "../media/config";

// What transcription is configured with: which transcriber (the Workers AI binding when one is
// bound, else an OpenAI-compatible endpoint), the largest audio file, and how long a transcription
// may take.

/** Largest audio file when TRANSCRIPTION_MAX_BYTES is not set: 25 MiB, what OpenAI's endpoint takes. */
export const DEFAULT_MAX_AUDIO_BYTES = 25 * 1024 * 1024;
const MIN_MAX_AUDIO_BYTES = 1024;
/** The most TRANSCRIPTION_MAX_BYTES may say: the body is held in a Worker's 128 MB of memory. */
export const MAX_MAX_AUDIO_BYTES = 100 * 1024 * 1024;

/** The model asked for at an OpenAI-compatible endpoint when TRANSCRIPTION_MODEL is not set. */
export const DEFAULT_TRANSCRIPTION_MODEL = "whisper-1";
/**
 * The Whisper model of Workers AI: large-v3-turbo is multilingual, more accurate than `@cf/openai/whisper`
 * (base) and cheaper per audio minute, and takes the audio as base64 rather than an array of numbers.
 */
export const WORKERS_AI_WHISPER_MODEL = "@cf/openai/whisper-large-v3-turbo";

export const DEFAULT_TRANSCRIPTION_TIMEOUT_SECONDS = 120;
const MAX_TRANSCRIPTION_TIMEOUT_SECONDS = 900;

/** The Workers AI binding, as far as transcription uses it. */
export interface WorkersAiBinding {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

/**
 * The bindings transcription reads beyond the generated `Env`: `AI` is optional because
 * wrangler.toml binds none (under `wrangler dev` an AI binding needs a Cloudflare account and a
 * network); a deployment adds `[env.production.ai] binding = "AI"` to use it.
 */
export interface TranscriptionBindings {
  AI?: WorkersAiBinding;
}

export type Transcriber =
  | { kind: "workers-ai"; ai: WorkersAiBinding; model: string; timeoutMs: number }
  | { kind: "openai-compatible"; endpoint: URL; apiKey: string | undefined; model: string; timeoutMs: number };

/** The largest audio file a transcription takes (TRANSCRIPTION_MAX_BYTES, 1 KiB to 100 MiB; default 25 MiB). */
export const maxAudioBytes = (env: Pick<Env, "TRANSCRIPTION_MAX_BYTES">): number =>
  boundedSetting(env.TRANSCRIPTION_MAX_BYTES, DEFAULT_MAX_AUDIO_BYTES, MIN_MAX_AUDIO_BYTES, MAX_MAX_AUDIO_BYTES);

/** The largest request body of the route: the biggest audio file plus room for the multipart framing. */
export const transcriptionBodyLimit = (env: Pick<Env, "TRANSCRIPTION_MAX_BYTES">): number =>
  maxAudioBytes(env) + MULTIPART_ALLOWANCE_BYTES;

/** How long one transcription may take (TRANSCRIPTION_TIMEOUT_SECONDS, 1 to 900; default 120), in ms. */
export const transcriptionTimeoutMs = (env: Pick<Env, "TRANSCRIPTION_TIMEOUT_SECONDS">): number =>
  boundedSetting(
    env.TRANSCRIPTION_TIMEOUT_SECONDS,
    DEFAULT_TRANSCRIPTION_TIMEOUT_SECONDS,
    1,
    MAX_TRANSCRIPTION_TIMEOUT_SECONDS,
  ) * 1000;

/**
 * Who transcribes: Workers AI when the `AI` binding is there, else the OpenAI-compatible endpoint
 * at TRANSCRIPTION_BASE_URL; with neither, a 503 `unavailable` naming TRANSCRIPTION_BASE_URL.
 */
export function configuredTranscriber(ctx: Pick<RequestContext, "env" | "local">): Transcriber {
  const env = ctx.env as Env & TranscriptionBindings;
  const timeoutMs = transcriptionTimeoutMs(env);
  if (typeof env.AI?.run === "function") {
    return { kind: "workers-ai", ai: env.AI, model: WORKERS_AI_WHISPER_MODEL, timeoutMs };
  }
  const base = env.TRANSCRIPTION_BASE_URL?.trim();
  if (!base) {
    throw notConfigured(
      "Transcription",
      "TRANSCRIPTION_BASE_URL",
      "bind Workers AI as AI, or set TRANSCRIPTION_BASE_URL",
    );
  }
  const endpoint = serviceUrl(ctx, "TRANSCRIPTION_BASE_URL", base, "Transcription");
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/audio/transcriptions`;
  return {
    kind: "openai-compatible",
    endpoint,
    apiKey: env.TRANSCRIPTION_API_KEY?.trim() || undefined,
    model: env.TRANSCRIPTION_MODEL?.trim() || DEFAULT_TRANSCRIPTION_MODEL,
    timeoutMs,
  };
}
