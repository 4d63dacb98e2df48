import { AI_PROVIDERS, type AiProvider } from "../../src/domain/ai-providers";
import type { ThirdParty } from "./third-party";
import { untilAborted } from "./third-party";

// The five AI providers and an OpenAI-compatible server, faked at the fetch boundary: each
// answers in its own wire format (OpenAI's chat-completion chunks and `[DONE]`, Anthropic's named
// events, Gemini's CRLF-separated GenerateContentResponses), so the service's adapters and parser
// are what the tests exercise.

export type { AiProvider };
export { AI_PROVIDERS };

/** The compatible server's base URL in the tests' configuration (wrangler.toml [vars]). */
export const COMPATIBLE_BASE_URL = "http://127.0.0.1:11434/v1";

/** Where each provider is called (Gemini's path carries the model). */
export const PROVIDER_ENDPOINTS: Record<AiProvider, (model: string) => string> = {
  openai: () => "https://api.openai.com/v1/chat/completions",
  anthropic: () => "https://api.anthropic.com/v1/messages",
  gemini: (model) =>
    `https://generativelanguage.googleapis.com/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
  mistral: () => "https://api.mistral.ai/v1/chat/completions",
  groq: () => "https://api.groq.com/openai/v1/chat/completions",
  "openai-compatible": () => `${COMPATIBLE_BASE_URL}/chat/completions`,
};

/** A model name each provider would accept. */
export const MODELS: Record<AiProvider, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  gemini: "gemini-2.5-flash",
  mistral: "mistral-small-latest",
  groq: "llama-3.3-70b-versatile",
  "openai-compatible": "llama3.2:3b",
};

/** Which provider a request is for, from its URL. */
export function providerOf(request: Request): AiProvider | undefined {
  const url = new URL(request.url);
  if (url.host === "api.openai.com") return "openai";
  if (url.host === "api.anthropic.com") return "anthropic";
  if (url.host === "generativelanguage.googleapis.com") return "gemini";
  if (url.host === "api.mistral.ai") return "mistral";
  if (url.host === "api.groq.com") return "groq";
  if (request.url.startsWith(COMPATIBLE_BASE_URL)) return "openai-compatible";
  return undefined;
}

export interface Answer {
  texts: string[];
  /** In our words: the fake says it in the provider's. */
  finish?: "stop" | "length";
  usage?: { input: number; output: number };
}

export const DEFAULT_ANSWER: Answer = {
  texts: ["Héllo", ", wörld ", "👋 日本"],
  finish: "stop",
  usage: { input: 5, output: 7 },
};

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

function openaiLike(provider: AiProvider, answer: Answer): string {
  const finish = answer.finish ?? "stop";
  const usage = answer.usage && {
    prompt_tokens: answer.usage.input,
    completion_tokens: answer.usage.output,
    total_tokens: answer.usage.input + answer.usage.output,
  };
  const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
    sse({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: 1_795_000_000,
      model: "fake",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    });
  const parts = [
    chunk({ role: "assistant", content: "" }, null),
    ...answer.texts.map((text) => chunk({ content: text }, null)),
  ];
  if (provider === "mistral") {
    // Mistral: usage on the last chunk, unasked.
    parts.push(chunk({ content: "" }, finish, usage ? { usage } : {}));
  } else if (provider === "groq") {
    // Groq: usage in `x_groq` on the last chunk.
    parts.push(chunk({}, finish, usage ? { x_groq: { id: "req_fake", usage } } : {}));
  } else {
    // OpenAI and compatible servers: a usage chunk with no choices (stream_options.include_usage).
    parts.push(chunk({}, finish));
    if (usage) parts.push(sse({ id: "chatcmpl-fake", object: "chat.completion.chunk", choices: [], usage }));
  }
  parts.push("data: [DONE]\n\n");
  return parts.join("");
}

function anthropic(answer: Answer): string {
  return [
    sse(
      {
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          content: [],
          model: "claude-fake",
          stop_reason: null,
          usage: { input_tokens: answer.usage?.input ?? 0, output_tokens: 1 },
        },
      },
      "message_start",
    ),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
    sse({ type: "ping" }, "ping"),
    ...answer.texts.map((text) =>
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta"),
    ),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse(
      {
        type: "message_delta",
        delta: { stop_reason: answer.finish === "length" ? "max_tokens" : "end_turn", stop_sequence: null },
        usage: { output_tokens: answer.usage?.output ?? 0 },
      },
      "message_delta",
    ),
    sse({ type: "message_stop" }, "message_stop"),
  ].join("");
}

function gemini(answer: Answer): string {
  // Gemini separates events with CRLF.
  const event = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;
  return answer.texts
    .map((text, i) => {
      const last = i === answer.texts.length - 1;
      return event({
        candidates: [
          {
            content: { parts: [{ text }], role: "model" },
            index: 0,
            ...(last ? { finishReason: answer.finish === "length" ? "MAX_TOKENS" : "STOP" } : {}),
          },
        ],
        usageMetadata: {
          promptTokenCount: answer.usage?.input ?? 0,
          ...(last
            ? {
                candidatesTokenCount: answer.usage?.output ?? 0,
                totalTokenCount: (answer.usage?.input ?? 0) + (answer.usage?.output ?? 0),
              }
            : { totalTokenCount: answer.usage?.input ?? 0 }),
        },
        modelVersion: "gemini-fake",
      });
    })
    .join("");
}

/** The provider's own SSE text for `answer`. */
export function providerSse(provider: AiProvider, answer: Answer = DEFAULT_ANSWER): string {
  if (provider === "anthropic") return anthropic(answer);
  if (provider === "gemini") return gemini(answer);
  return openaiLike(provider, answer);
}

/** The SSE text of a failure the provider reports after its stream began. */
export function inStreamFailure(provider: AiProvider, kind: "overloaded" | "rate_limit"): string {
  if (provider === "anthropic") {
    const type = kind === "overloaded" ? "overloaded_error" : "rate_limit_error";
    return sse({ type: "error", error: { type, message: "Overloaded; key sk-should-never-show" } }, "error");
  }
  if (provider === "gemini") {
    const code = kind === "overloaded" ? 503 : 429;
    return `data: ${JSON.stringify({ error: { code, message: "quota", status: "UNAVAILABLE" } })}\r\n\r\n`;
  }
  const type = kind === "overloaded" ? "server_error" : "rate_limit_exceeded";
  return sse({ error: { message: "busy", type, code: type } });
}

/** How a fake body is cut into chunks. */
export type Split = "whole" | "every-byte" | number;

function chunksOf(bytes: Uint8Array, split: Split): Uint8Array[] {
  if (split === "whole") return [bytes];
  const size = split === "every-byte" ? 1 : split;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return chunks;
}

export interface StreamOptions {
  split?: Split;
  /** After the last chunk, stay open until the request is aborted (a provider that goes silent). */
  hang?: boolean;
  /** Aborting this errors the body, as a real fetch's body does. */
  signal?: AbortSignal;
  status?: number;
  headers?: Record<string, string>;
}

/** A streamed response of `text`, in the chunks `split` makes. */
export function streamedResponse(text: string, options: StreamOptions = {}): Response {
  const chunks = chunksOf(new TextEncoder().encode(text), options.split ?? "whole");
  const { signal } = options;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener("abort", () => {
        try {
          controller.error(signal.reason);
        } catch {
          // Already closed.
        }
      });
    },
    async pull(controller) {
      const chunk = chunks[next++];
      if (chunk) controller.enqueue(chunk);
      else if (options.hang && signal) await untilAborted(signal);
      else controller.close();
    },
  });
  return new Response(body, {
    status: options.status ?? 200,
    headers: { "Content-Type": "text/event-stream", ...options.headers },
  });
}

/** A provider that answers every AI request with `answer`, in its own format; other hosts get a 404. */
export function aiProviders(answer: Answer = DEFAULT_ANSWER, options: Omit<StreamOptions, "signal"> = {}): ThirdParty {
  return (request) => {
    const provider = providerOf(request);
    if (!provider) return new Response("not an AI provider", { status: 404 });
    return streamedResponse(providerSse(provider, answer), { ...options, signal: request.signal });
  };
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Our stream as a client reads it: its events (data parsed) and its comment lines. */
export function parseSse(text: string): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim()) continue;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments.push(line);
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return { events, comments };
}
