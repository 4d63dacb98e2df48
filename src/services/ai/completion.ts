import { type EventSourceMessage, EventSourceParserStream, ParseError } from "eventsource-parser/stream";
import type { RequestContext } from "../../lib/context";
import { callThirdParty, OutboundError } from "../../lib/outbound";
import {
  brokeOff,
  CLIENT_CLOSED_STATUS,
  providerFailure,
  retryAfterSeconds,
  timedOut,
  unreachable,
  unreadable,
} from "./failures";
import { ADAPTERS } from "./providers";
import { usageOf } from "./providers/shared";
import type { AiErrorData, AiEvent, CompletionRequest, ProviderTarget, StreamState, Usage } from "./types";

// One completion: the provider called with streaming through the outbound helper, its SSE
// stream decoded (a streaming TextDecoder, so a character split between chunks comes out
// whole) and parsed (eventsource-parser, so an event split between chunks does too), each
// event read by the provider's adapter and passed on as our own events. Every failure, before
// or after the provider's first byte, ends the events with one `error`; success with one `done`.

/** The provider may stay silent this long (no byte at all) before the call is abandoned. */
export const IDLE_TIMEOUT_MS = 120_000;
/** One answer may take this long in all. */
export const TOTAL_TIMEOUT_MS = 600_000;
/** Largest single SSE event the parser buffers (a provider that never ends a line is cut off). */
const MAX_EVENT_CHARACTERS = 1024 * 1024;
/** Of a failure answer, at most this much is read, and only by adapters that classify by it (Gemini). */
const MAX_FAILURE_BODY_BYTES = 8 * 1024;

export interface CompletionOptions {
  /** Aborts the call: the SSE writer was closed (the client went away). `ctx.signal` is followed too. */
  signal?: AbortSignal;
  idleTimeoutMs?: number;
  totalTimeoutMs?: number;
}

/** How a completion ended: what the audit record and the log line keep. */
export interface CompletionOutcome {
  /** `ok`, or the status of the error event (499: the client went away). */
  status: "ok" | number;
  /** The provider's HTTP status, when it answered. */
  responseStatus: number | null;
  finishReason: string | null;
  usage: Usage;
  latencyMs: number;
  error?: AiErrorData;
}

type StopReason = "idle" | "total" | "client";

/** Reads at most `limit` bytes of a failure answer as text, then lets the rest go. */
async function readPrefix(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/**
 * Runs one completion, handing each event to `emit` (awaited: a slow reader slows the provider
 * down, never fills memory). Resolves with how it ended; rejects only when the caller's own
 * credential was refused before the call (the 401 of `ctx.confirmCaller`).
 */
export async function runCompletion(
  ctx: Pick<RequestContext, "signal" | "confirmCaller" | "now" | "requestId">,
  call: CompletionRequest,
  target: ProviderTarget,
  emit: (event: AiEvent) => Promise<void>,
  options: CompletionOptions = {},
): Promise<CompletionOutcome> {
  const adapter = ADAPTERS[call.provider];
  const idleMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const totalMs = options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
  const started = Date.now();
  const state: StreamState = { finishReason: null, usage: usageOf(null, null), complete: false };
  let responseStatus: number | null = null;

  // One signal stops everything: the client leaving (the SSE writer or the request), silence, or the total time.
  const stop = new AbortController();
  let stoppedBy: StopReason | null = null;
  const halt = (why: StopReason) => {
    if (stoppedBy !== null) return;
    stoppedBy = why;
    stop.abort();
  };
  const clientGone = () => halt("client");
  const sources = [options.signal, ctx.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  for (const signal of sources) {
    if (signal.aborted) clientGone();
    else signal.addEventListener("abort", clientGone, { once: true });
  }
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const armIdle = () => {
    clearTimeout(idleTimer);
    if (finished) return;
    idleTimer = setTimeout(() => halt("idle"), idleMs);
  };
  armIdle();
  const totalTimer = setTimeout(() => halt("total"), totalMs);

  const outcome = (error?: AiErrorData): CompletionOutcome => ({
    status: error ? error.status : "ok",
    responseStatus,
    finishReason: error ? null : state.finishReason,
    usage: state.usage,
    latencyMs: Date.now() - started,
    ...(error ? { error } : {}),
  });
  /** Passes an event on; the provider's silence is not counted while the client reads. */
  const send = async (event: AiEvent) => {
    clearTimeout(idleTimer);
    await emit(event);
    armIdle();
  };
  const fail = async (error: AiErrorData): Promise<CompletionOutcome> => {
    // Nobody reads a stream whose client has gone; the outcome still records it.
    if (stoppedBy !== "client") await emit({ event: "error", data: error });
    return outcome(error);
  };
  const stopped = (reason: StopReason): AiErrorData =>
    reason === "client"
      ? {
          status: CLIENT_CLOSED_STATUS,
          message: "The client went away before the answer was complete",
          timestamp: ctx.now().toISOString(),
        }
      : timedOut(Math.ceil((reason === "idle" ? idleMs : totalMs) / 1000), reason === "total", ctx.now());

  try {
    let response: Response;
    try {
      const request = adapter.request(call, target);
      response = await callThirdParty(
        { signal: stop.signal, confirmCaller: ctx.confirmCaller },
        call.provider,
        request.url,
        {
          method: "POST",
          headers: request.headers,
          body: JSON.stringify(request.body),
          // A provider never redirects an API call; following one would send the key (x-api-key,
          // x-goog-api-key, or any header to a compatible server) and the prompt elsewhere. A 3xx is a failure.
          redirect: "manual",
          // Our own timers (silence, total) decide first; this one is the helper's backstop.
          timeoutMs: totalMs + 1000,
        },
      );
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (stoppedBy !== null) return await fail(stopped(stoppedBy));
      if (error.failure === "timeout") return await fail(stopped("total"));
      return await fail(unreachable(ctx.now()));
    }
    responseStatus = response.status;
    armIdle();

    if (!response.ok) {
      const retryAfter = retryAfterSeconds(response.headers, ctx.now());
      let keyRejected = false;
      if (adapter.keyRejectedIn) {
        const prefix = await readPrefix(response, MAX_FAILURE_BODY_BYTES).catch(() => "");
        keyRejected = adapter.keyRejectedIn(response.status, prefix);
      } else {
        await response.body?.cancel().catch(() => undefined);
      }
      return await fail(
        providerFailure(target, { responseStatus: response.status, retryAfter, keyRejected }, ctx.now()),
      );
    }
    if (!response.body) return await fail(brokeOff(ctx.now()));

    await send({ event: "start", data: { provider: call.provider, model: call.model, request_id: ctx.requestId } });

    // Any byte from the provider, an SSE comment included, shows it is alive.
    const alive = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        armIdle();
        controller.enqueue(chunk);
      },
    });
    const reader = response.body
      .pipeThrough(alive)
      .pipeThrough(new TextDecoderStream())
      // Lines that are not SSE are skipped; an event past the buffer limit ends the stream.
      .pipeThrough(new EventSourceParserStream({ maxBufferSize: MAX_EVENT_CHARACTERS }))
      .getReader();
    const release = () => void reader.cancel().catch(() => undefined);
    stop.signal.addEventListener("abort", release, { once: true });
    try {
      for (;;) {
        let next: ReadableStreamReadResult<EventSourceMessage>;
        try {
          next = await reader.read();
        } catch (error) {
          if (stoppedBy !== null) return await fail(stopped(stoppedBy));
          // A parse failure (an event past the buffer limit) or the connection dropping.
          return await fail(error instanceof ParseError ? unreadable(ctx.now()) : brokeOff(ctx.now()));
        }
        if (next.done) break;
        const { text, failure } = adapter.read(next.value, state);
        if (failure) {
          release();
          return await fail(
            providerFailure(target, { responseStatus: failure.responseStatus, inStream: true }, ctx.now()),
          );
        }
        if (text) await send({ event: "delta", data: { text } });
        if (stoppedBy !== null) break;
        if (state.complete) {
          release();
          break;
        }
      }
    } finally {
      stop.signal.removeEventListener("abort", release);
    }
    if (stoppedBy !== null) return await fail(stopped(stoppedBy));
    // The end marker, or (Gemini, and servers that omit [DONE]) a finish reason before the end.
    if (!state.complete && state.finishReason === null) return await fail(brokeOff(ctx.now()));
    await send({ event: "done", data: { finish_reason: state.finishReason, usage: state.usage } });
    return outcome();
  } finally {
    finished = true;
    clearTimeout(idleTimer);
    clearTimeout(totalTimer);
    for (const signal of sources) signal.removeEventListener("abort", clientGone);
  }
}
