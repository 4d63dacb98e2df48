import type { EventSourceMessage } from "eventsource-parser";
import type { AiProvider } from "../../domain/ai-providers";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** One request, in the one shape every adapter maps to its provider's API. */
export interface CompletionRequest {
  provider: AiProvider;
  model: string;
  /** In order; `system` messages are folded into the provider's system instruction where it has one. */
  messages: ChatMessage[];
  system?: string;
  temperature?: number;
  maxTokens?: number;
}

/** Whose key a call uses: the caller's `apiKey`, the server's secret, or none (a local model server). */
export type CredentialSource = "caller" | "server" | "none";

/** Where and with what a call goes: resolved before any stream starts (services/ai/config.ts). */
export interface ProviderTarget {
  provider: AiProvider;
  apiKey: string | null;
  source: CredentialSource;
  /** The secret the server's key came from, or would come from: named in messages about it. */
  setting: string;
  /** The OpenAI-compatible server's base URL (`.../v1`); null for the named providers. */
  baseUrl: string | null;
}

/** Token counts of one answer; null where the provider did not say. */
export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
}

/** The `data` of an SSE `error` event: never a provider's body, URL or key. */
export interface AiErrorData {
  /** What the failure means for the caller (429 rate-limited, 401 key rejected, 502 provider failed, 504 timeout...). */
  status: number;
  /** What to do about it, in a sentence. */
  message: string;
  timestamp: string;
  /** The provider's HTTP status (or the status its in-stream error stands for), when the provider answered. */
  responseStatus?: number;
  /** From the provider's Retry-After, when it sent one. */
  retryAfterSeconds?: number;
}

/** The normalised events of every stream, whatever the provider. */
export type AiEvent =
  | { event: "start"; data: { provider: AiProvider; model: string; request_id: string } }
  | { event: "delta"; data: { text: string } }
  | { event: "done"; data: { finish_reason: string | null; usage: Usage } }
  | { event: "error"; data: AiErrorData };

/** What an adapter has learnt from the provider's stream so far. */
export interface StreamState {
  finishReason: string | null;
  usage: Usage;
  /** The provider said the answer is over (`[DONE]`, `message_stop`): reading stops. */
  complete: boolean;
}

/** A failure the provider reported inside a stream it had begun with a 2xx. */
export interface InStreamFailure {
  /** The HTTP status the provider's error type stands for (e.g. 429 for a rate-limit error), if known. */
  responseStatus: number | null;
}

/** An HTTP request to a provider, before it is sent. */
export interface ProviderHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A small adapter: one request shape to a provider's HTTP API, and its stream to our events. */
export interface ProviderAdapter {
  /** For messages and logs ("OpenAI", "Anthropic", ...). */
  label: string;
  request(call: CompletionRequest, target: ProviderTarget): ProviderHttpRequest;
  /**
   * Reads one parsed SSE message of the provider's stream into `state`; returns the text it
   * carries (possibly empty) or the failure it reports. Unknown or unreadable messages are skipped.
   */
  read(message: EventSourceMessage, state: StreamState): { text?: string; failure?: InStreamFailure };
  /**
   * A failure answer (non-2xx) that means "the key is not valid" although its status does not say
   * so (Gemini answers 400 API_KEY_INVALID): read from at most a few KB of its body, never repeated.
   */
  keyRejectedIn?(status: number, body: string): boolean;
}
