import type { AiErrorData, ProviderTarget } from "./types";

// What the caller reads when a completion fails: a status and an actionable sentence, built
// from what happened (the provider's status, its Retry-After, our timeouts), never from the
// provider's body, the URL or the key.

/** Status of the error event when the client went away (nobody reads it; the audit keeps it). */
export const CLIENT_CLOSED_STATUS = 499;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or `retry-after-ms`. */
export function retryAfterSeconds(headers: Headers, now: Date): number | undefined {
  const milliseconds = Number(headers.get("retry-after-ms"));
  const value = headers.get("retry-after")?.trim();
  if (value) {
    if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Math.ceil(Number(value)));
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
  }
  if (headers.has("retry-after-ms") && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return Math.ceil(milliseconds / 1000);
  }
  return undefined;
}

const retryHint = (seconds: number | undefined) => (seconds === undefined ? "retry later" : `retry after ${seconds} s`);

interface FailureInput {
  /** The provider's status, or the status its in-stream error type stands for; null if unknown. */
  responseStatus: number | null;
  retryAfter?: number;
  /** The answer said the key is not valid although its status did not (Gemini's 400 API_KEY_INVALID). */
  keyRejected?: boolean;
  /** The failure came inside a stream the provider had begun (its HTTP status was 2xx). */
  inStream?: boolean;
}

/** The error event for a provider that answered with a failure, before or during its stream. */
export function providerFailure(target: ProviderTarget, input: FailureInput, now: Date): AiErrorData {
  const { responseStatus, retryAfter, keyRejected } = input;
  const withStatus = (status: number, message: string): AiErrorData => ({
    status,
    message,
    timestamp: now.toISOString(),
    ...(responseStatus !== null ? { responseStatus } : {}),
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
  });
  const http = responseStatus !== null ? ` (HTTP ${responseStatus})` : "";
  if (keyRejected || responseStatus === 401 || responseStatus === 403) {
    if (target.source === "caller") {
      return withStatus(
        responseStatus === 403 ? 403 : 401,
        `The provider rejected the API key${http}: check the \`apiKey\` you sent, and that it may use this model`,
      );
    }
    if (target.source === "server") {
      // Not the caller's doing: the server's configuration is wrong.
      return withStatus(
        502,
        `The provider rejected the API key${http}: this server's ${target.setting} needs fixing by its operator, or send your own \`apiKey\``,
      );
    }
    return withStatus(
      401,
      `The provider asked for an API key${http}: send \`apiKey\`, or configure ${target.setting} on this server`,
    );
  }
  if (responseStatus === 429) {
    return withStatus(429, `The provider rate-limited this key; ${retryHint(retryAfter)}`);
  }
  if (responseStatus === 529 || responseStatus === 503) {
    return withStatus(503, `The provider is overloaded or unavailable${http}; ${retryHint(retryAfter)}`);
  }
  if (responseStatus === 408 || responseStatus === 504) {
    return withStatus(504, `The provider timed out${http}; retry, or ask for a shorter answer`);
  }
  if (responseStatus === 404) {
    return withStatus(404, `The provider does not know this model${http}: check \`model\``);
  }
  if (responseStatus === 413) {
    return withStatus(413, `The request is too large for the provider${http}: shorten the messages`);
  }
  if (responseStatus === 402) {
    return withStatus(402, `The provider refused for billing reasons${http}: check the account's credit`);
  }
  if (responseStatus !== null && responseStatus >= 400 && responseStatus < 500) {
    return withStatus(
      responseStatus,
      `The provider refused the request${http}: check \`model\`, \`temperature\`, \`max_tokens\` and the messages`,
    );
  }
  if (input.inStream) {
    return withStatus(502, `The provider failed while answering${http}; retry`);
  }
  return withStatus(502, `The provider failed${http}; ${retryHint(retryAfter)}`);
}

export const unreachable = (now: Date): AiErrorData => ({
  status: 502,
  message: "The provider could not be reached; retry later",
  timestamp: now.toISOString(),
});

export const timedOut = (seconds: number, whole: boolean, now: Date): AiErrorData => ({
  status: 504,
  message: whole
    ? `The answer took longer than ${seconds} s and was cut off; ask for a shorter answer`
    : `The provider sent nothing for ${seconds} s; retry later`,
  timestamp: now.toISOString(),
});

export const brokeOff = (now: Date): AiErrorData => ({
  status: 502,
  message: "The provider's stream ended before the answer was complete; retry",
  timestamp: now.toISOString(),
});

export const unreadable = (now: Date): AiErrorData => ({
  status: 502,
  message: "The provider's stream could not be read; retry",
  timestamp: now.toISOString(),
});
