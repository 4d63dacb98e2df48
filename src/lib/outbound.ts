import type { RequestContext } from "./context";

// The one way this service calls a third party (AI providers, Stripe, the
// identity provider, push services, the notes tool). Every call has a timeout,
// is aborted when the client goes away, and fails with an OutboundError whose
// message names the service and what happened: never the URL (it may carry a
// key), the credentials, or the third party's body. The seam tests fake is the
// global `fetch`, read at call time, so a test replaces the third party and
// nothing of this service.

/** How long a third party may take before the call is abandoned, unless the caller says otherwise. */
export const DEFAULT_OUTBOUND_TIMEOUT_MS = 15_000;

export type OutboundFailure =
  /** No answer within the timeout. */
  | "timeout"
  /** The client went away (or the work was cancelled) before the answer. */
  | "aborted"
  /** The connection failed: DNS, TLS, refused, reset. */
  | "network"
  /** The third party answered with a status the caller does not accept. */
  | "status";

/** A failed third-party call, safe to log and to turn into an error response. */
export class OutboundError extends Error {
  constructor(
    /** The third party, as the caller named it ("openai", "stripe", ...). */
    readonly service: string,
    readonly failure: OutboundFailure,
    /** The third party's HTTP status, for `status` failures. */
    readonly status?: number,
  ) {
    super(
      failure === "status"
        ? `${service} answered with HTTP ${status}`
        : failure === "timeout"
          ? `${service} did not answer in time`
          : failure === "aborted"
            ? `The call to ${service} was cancelled`
            : `${service} could not be reached`,
    );
    this.name = "OutboundError";
  }
}

export interface OutboundOptions extends Omit<RequestInit, "signal"> {
  /**
   * Abandon the call after this long (default 15 s). It covers the whole call,
   * reading the body included: a caller that streams a long answer (AI) gives
   * a timeout that long.
   */
  timeoutMs?: number;
  /**
   * Which statuses count as an answer; others fail with `status` (the body is
   * discarded unread). Default: any status is returned to the caller.
   */
  accept?: (status: number) => boolean;
}

/**
 * Calls a third party for the work of `ctx`: aborted when the client goes
 * away (`ctx.signal`) or after the timeout. Returns the response (its body
 * unread, to stream or parse); fails with OutboundError only (or the 401 of
 * `ctx.confirmCaller`, before anything is sent).
 */
export async function callThirdParty(
  ctx: Pick<RequestContext, "signal" | "confirmCaller">,
  service: string,
  url: string | URL,
  options: OutboundOptions = {},
): Promise<Response> {
  const { timeoutMs = DEFAULT_OUTBOUND_TIMEOUT_MS, accept, ...init } = options;
  // A third party is never called for a caller whose key was revoked a moment ago.
  await ctx.confirmCaller();
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let response: Response;
  try {
    response = await globalThis.fetch(url, { ...init, signal });
  } catch {
    // The error itself may quote the URL: only what happened is kept.
    throw new OutboundError(service, timeout.aborted ? "timeout" : signal.aborted ? "aborted" : "network");
  }
  if (accept && !accept(response.status)) {
    await response.body?.cancel().catch(() => undefined);
    throw new OutboundError(service, "status", response.status);
  }
  return response;
}

/**
 * A third party's answer as text, or null when it is longer than `limit` bytes: the read stops
 * there (the rest is never buffered) and when `signal` aborts (rejecting with its reason).
 */
export async function readTextUpTo(response: Response, signal: AbortSignal, limit: number): Promise<string | null> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let answer = "";
  let read = 0;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      read += value.byteLength;
      if (read > limit) {
        stop();
        return null;
      }
      answer += decoder.decode(value, { stream: true });
    }
    return answer + decoder.decode();
  } finally {
    signal.removeEventListener("abort", stop);
  }
}
