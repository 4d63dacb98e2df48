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
import type {
  AiErrorData,
  AiEvent,
  CompletionRequest,
  ProviderAdapter,
  ProviderTarget,
  StreamState,
  Usage,
} from "./types";

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

/**
 * What stops a call: one signal for the client leaving (the SSE writer or the request), the
 * provider's silence, or the total time, whichever comes first (the first reason is kept).
 */
class CallWatch {
  readonly limits: { idleMs: number; totalMs: number };
  private readonly stop = new AbortController();
  private stoppedFor: StopReason | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private finished = false;
  private readonly clientSignals: AbortSignal[];
  private readonly clientGone = () => this.halt("client");

  constructor(clientSignals: (AbortSignal | undefined)[], limits: { idleMs: number; totalMs: number }) {
    this.limits = limits;
    this.clientSignals = clientSignals.filter((signal): signal is AbortSignal => signal !== undefined);
    for (const signal of this.clientSignals) {
      if (signal.aborted) this.clientGone();
      else signal.addEventListener("abort", this.clientGone, { once: true });
    }
    this.armIdle();
    this.totalTimer = setTimeout(() => this.halt("total"), limits.totalMs);
  }

  /** Aborts when the call is stopped. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Why the call was stopped; null while it goes on. */
  get stoppedBy(): StopReason | null {
    return this.stoppedFor;
  }

  private halt(why: StopReason): void {
    if (this.stoppedFor !== null) return;
    this.stoppedFor = why;
    this.stop.abort();
  }

  /** Starts counting the provider's silence again (it has just shown it is alive). */
  armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.finished) return;
    this.idleTimer = setTimeout(() => this.halt("idle"), this.limits.idleMs);
  }

  /** Stops counting silence, while the client reads an event. */
  pauseIdle(): void {
    clearTimeout(this.idleTimer);
  }

  /** The error event of a call stopped for `reason`. */
  failure(reason: StopReason, now: Date): AiErrorData {
    if (reason === "client") {
      return {
        status: CLIENT_CLOSED_STATUS,
        message: "The client went away before the answer was complete",
        timestamp: now.toISOString(),
      };
    }
    const seconds = Math.ceil((reason === "idle" ? this.limits.idleMs : this.limits.totalMs) / 1000);
    return timedOut(seconds, reason === "total", now);
  }

  /** The call is over: no timer fires and no client signal is followed any more. */
  end(): void {
    this.finished = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    for (const signal of this.clientSignals) signal.removeEventListener("abort", this.clientGone);
  }
}

type CompletionContext = Pick<RequestContext, "signal" | "confirmCaller" | "now" | "requestId">;

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
  ctx: CompletionContext,
  call: CompletionRequest,
  target: ProviderTarget,
  emit: (event: AiEvent) => Promise<void>,
  options: CompletionOptions = {},
): Promise<CompletionOutcome> {
  const adapter = ADAPTERS[call.provider];
  const started = Date.now();
  const state: StreamState = { finishReason: null, usage: usageOf(null, null), complete: false };
  let responseStatus: number | null = null;
  const watch = new CallWatch([options.signal, ctx.signal], {
    idleMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    totalMs: options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS,
  });

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
    watch.pauseIdle();
    await emit(event);
    watch.armIdle();
  };
  const fail = async (error: AiErrorData): Promise<CompletionOutcome> => {
    // Nobody reads a stream whose client has gone; the outcome still records it.
    if (watch.stoppedBy !== "client") await emit({ event: "error", data: error });
    return outcome(error);
  };

  try {
    const called = await callProvider(ctx, adapter, call, target, watch);
    if ("error" in called) return await fail(called.error);
    const { response } = called;
    responseStatus = response.status;
    watch.armIdle();
    if (!response.ok) return await fail(await failureAnswer(ctx, adapter, target, response));
    if (!response.body) return await fail(brokeOff(ctx.now()));
    await send({ event: "start", data: { provider: call.provider, model: call.model, request_id: ctx.requestId } });
    const broken = await relayStream(ctx, adapter, target, response.body, { state, watch, send });
    if (broken) return await fail(broken);
    await send({ event: "done", data: { finish_reason: state.finishReason, usage: state.usage } });
    return outcome();
  } finally {
    watch.end();
  }
}

/** The provider's answer, or the error event of a call that got none. */
async function callProvider(
  ctx: CompletionContext,
  adapter: ProviderAdapter,
  call: CompletionRequest,
  target: ProviderTarget,
  watch: CallWatch,
): Promise<{ response: Response } | { error: AiErrorData }> {
  try {
    const request = adapter.request(call, target);
    const response = await callThirdParty(
      { signal: watch.signal, confirmCaller: ctx.confirmCaller },
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
        timeoutMs: watch.limits.totalMs + 1000,
      },
    );
    return { response };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (watch.stoppedBy !== null) return { error: watch.failure(watch.stoppedBy, ctx.now()) };
    if (error.failure === "timeout") return { error: watch.failure("total", ctx.now()) };
    return { error: unreachable(ctx.now()) };
  }
}

/** The error event of a provider that answered with a failure status. */
async function failureAnswer(
  ctx: CompletionContext,
  adapter: ProviderAdapter,
  target: ProviderTarget,
  response: Response,
): Promise<AiErrorData> {
  const retryAfter = retryAfterSeconds(response.headers, ctx.now());
  let keyRejected = false;
  if (adapter.keyRejectedIn) {
    // Only an adapter that classifies failures by their body reads (a little of) it.
    const prefix = await readPrefix(response, MAX_FAILURE_BODY_BYTES).catch(() => "");
    keyRejected = adapter.keyRejectedIn(response.status, prefix);
  } else {
    await response.body?.cancel().catch(() => undefined);
  }
  return providerFailure(target, { responseStatus: response.status, retryAfter, keyRejected }, ctx.now());
}

/**
 * Reads the provider's stream to its end, passing its text on as `delta` events; returns the error
 * event that ends it early, or null when the answer is complete.
 */
async function relayStream(
  ctx: CompletionContext,
  adapter: ProviderAdapter,
  target: ProviderTarget,
  body: ReadableStream<Uint8Array>,
  run: { state: StreamState; watch: CallWatch; send: (event: AiEvent) => Promise<void> },
): Promise<AiErrorData | null> {
  const { state, watch, send } = run;
  // Any byte from the provider, an SSE comment included, shows it is alive.
  const alive = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      watch.armIdle();
      controller.enqueue(chunk);
    },
  });
  const reader = body
    .pipeThrough(alive)
    .pipeThrough(new TextDecoderStream())
    // Lines that are not SSE are skipped; an event past the buffer limit ends the stream.
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: MAX_EVENT_CHARACTERS }))
    .getReader();
  const release = () => void reader.cancel().catch(() => undefined);
  watch.signal.addEventListener("abort", release, { once: true });
  try {
    for (;;) {
      let next: ReadableStreamReadResult<EventSourceMessage>;
      try {
        next = await reader.read();
      } catch (error) {
        if (watch.stoppedBy !== null) return watch.failure(watch.stoppedBy, ctx.now());
        // A parse failure (an event past the buffer limit) or the connection dropping.
        return error instanceof ParseError ? unreadable(ctx.now()) : brokeOff(ctx.now());
      }
      if (next.done) break;
      const { text, failure } = adapter.read(next.value, state);
      if (failure) {
        release();
        return providerFailure(target, { responseStatus: failure.responseStatus, inStream: true }, ctx.now());
      }
      if (text) await send({ event: "delta", data: { text } });
      if (watch.stoppedBy !== null) break;
      if (state.complete) {
        release();
        break;
      }
    }
  } finally {
    watch.signal.removeEventListener("abort", release);
  }
  if (watch.stoppedBy !== null) return watch.failure(watch.stoppedBy, ctx.now());
  // The end marker, or (Gemini, and servers that omit [DONE]) a finish reason before the end.
  if (!state.complete && state.finishReason === null) return brokeOff(ctx.now());
  return null;
}
