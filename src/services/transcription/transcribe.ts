import type { RequestContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { callThirdParty, OutboundError, readTextUpTo } from "../../lib/outbound";
import { type AudioUpload, readAudioUpload } from "./audio";
import { configuredTranscriber, type Transcriber, type WorkersAiBinding } from "./config";

// Turning audio into text, with the Workers AI binding or an OpenAI-compatible endpoint. Every
// failure of either is a 500 `upstream_failed` whose message names the transcriber and what
// happened (a status, a timeout), never its URL, key or answer: the error handler answers
// OutboundErrors that way, and the other failures here are ApiErrors of the same code.

/** How the OpenAI-compatible endpoint is named in errors and logs (its URL may be a private host). */
export const ENDPOINT_SERVICE = "transcription service";
export const WORKERS_AI_SERVICE = "Workers AI";

/**
 * Largest answer read from the endpoint: the JSON of the longest transcript (25 MiB of audio is
 * about an hour of speech, well under 1 MB of text) with room to spare. A longer answer is not a
 * transcription, and is not buffered whole.
 */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Bytes per `String.fromCharCode` call while encoding base64: a multiple of 3, well under the argument limit. */
const BASE64_CHUNK = 3 * 8192;

/** The answer of POST /api/transcription/transcribe. */
export interface TranscriptionResult {
  transcriptionData: string;
}

/**
 * Transcribes the audio of a request: the upload is checked first (400, 413, 415: a caller's
 * mistake is reported whatever the server's configuration), then the configuration (500 naming
 * the setting when nothing can transcribe), then the transcriber is called.
 */
export async function transcribeRequest(ctx: RequestContext, request: Request): Promise<TranscriptionResult> {
  const audio = await readAudioUpload(ctx, request);
  const transcriber = configuredTranscriber(ctx);
  return { transcriptionData: await transcribe(ctx, transcriber, audio) };
}

/** The text of `audio`, without the leading and trailing white space Whisper models often add. */
export async function transcribe(ctx: RequestContext, transcriber: Transcriber, audio: AudioUpload): Promise<string> {
  const text =
    transcriber.kind === "workers-ai"
      ? await viaWorkersAi(ctx, transcriber, audio)
      : await viaEndpoint(ctx, transcriber, audio);
  return text.trim();
}

/**
 * POST {base}/audio/transcriptions, multipart: `file` (named `audio.<extension>` of the type the
 * bytes are, since OpenAI reads the format from the name), `model` and `response_format=json`;
 * `Authorization: Bearer <TRANSCRIPTION_API_KEY>` when a key is set. Redirects are not followed:
 * the key and the audio go to the configured address or nowhere.
 */
async function viaEndpoint(
  ctx: RequestContext,
  transcriber: Extract<Transcriber, { kind: "openai-compatible" }>,
  audio: AudioUpload,
): Promise<string> {
  const form = new FormData();
  form.append("file", new File([audio.file], `audio.${audio.extension}`, { type: audio.mediaType }));
  form.append("model", transcriber.model);
  form.append("response_format", "json");
  const started = Date.now();
  const response = await callThirdParty(ctx, ENDPOINT_SERVICE, transcriber.endpoint, {
    method: "POST",
    headers: transcriber.apiKey ? { Authorization: `Bearer ${transcriber.apiKey}` } : {},
    body: form,
    redirect: "manual",
    timeoutMs: transcriber.timeoutMs,
    accept: (status) => status >= 200 && status < 300,
  });
  let body: string | null;
  try {
    body = await readTextUpTo(response, ctx.signal, MAX_ANSWER_BYTES);
  } catch {
    // The answer broke off: the call's signal (timeout or client gone) or the connection.
    const failure =
      Date.now() - started >= transcriber.timeoutMs ? "timeout" : ctx.signal.aborted ? "aborted" : "network";
    throw new OutboundError(ENDPOINT_SERVICE, failure);
  }
  if (body === null) throw unreadable(ctx, ENDPOINT_SERVICE, response.status);
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    throw unreadable(ctx, ENDPOINT_SERVICE, response.status);
  }
  return textOf(ctx, ENDPOINT_SERVICE, answer, response.status);
}

/** `env.AI.run(model, {audio: <base64>})`, held to the same timeout and the client's abort. */
async function viaWorkersAi(
  ctx: RequestContext,
  transcriber: Extract<Transcriber, { kind: "workers-ai" }>,
  audio: AudioUpload,
): Promise<string> {
  // As the outbound helper does: nothing is sent for a caller refused a moment ago.
  await ctx.confirmCaller();
  const audioBase64 = toBase64(new Uint8Array(await audio.file.arrayBuffer()));
  const timeout = AbortSignal.timeout(transcriber.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let answer: unknown;
  try {
    answer = await untilAborted(runModel(transcriber.ai, transcriber.model, audioBase64), signal);
  } catch (error) {
    if (signal.aborted) throw new OutboundError(WORKERS_AI_SERVICE, timeout.aborted ? "timeout" : "aborted");
    logFailure(ctx, WORKERS_AI_SERVICE, {
      error: "run failed",
      name: error instanceof Error ? error.name : typeof error,
    });
    throw new ApiError("upstream_failed", `${WORKERS_AI_SERVICE} could not transcribe the audio`);
  }
  return textOf(ctx, WORKERS_AI_SERVICE, answer);
}

/** The binding's call, as a promise even when `run` throws before returning one. */
const runModel = async (ai: WorkersAiBinding, model: string, audioBase64: string) =>
  ai.run(model, { audio: audioBase64 });

/** `work`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The `text` of a transcriber's answer (`{text: string, ...}` from both kinds), or a 500. */
function textOf(ctx: RequestContext, service: string, answer: unknown, status?: number): string {
  if (typeof answer === "object" && answer !== null && typeof (answer as { text?: unknown }).text === "string") {
    return (answer as { text: string }).text;
  }
  throw unreadable(ctx, service, status);
}

function unreadable(ctx: RequestContext, service: string, status: number | undefined): ApiError {
  logFailure(ctx, service, { error: "the answer is not a transcription", ...(status ? { status } : {}) });
  return new ApiError("upstream_failed", `${service} answered with something that is not a transcription`);
}

/** One JSON line with the request id: what happened, never the answer, URL or key. */
function logFailure(ctx: RequestContext, service: string, fields: Record<string, unknown>) {
  log(ctx, "error", "transcription failed", { service, ...fields });
}

/** Base64 of any length: in chunks, since one `fromCharCode` call over megabytes overflows the stack. */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += BASE64_CHUNK) {
    parts.push(btoa(String.fromCharCode(...bytes.subarray(start, start + BASE64_CHUNK))));
  }
  return parts.join("");
}
