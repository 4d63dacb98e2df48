import type { EventSourceMessage } from "eventsource-parser";
import type { CompletionRequest, InStreamFailure, ProviderAdapter, ProviderTarget, StreamState } from "../types";
import { count, parseJson, record, statusOfErrorType, text, usageOf } from "./shared";

// OpenAI's chat completions, which Mistral, Groq and every OpenAI-compatible server (Ollama,
// vLLM, llama.cpp's server) speak too: `POST {base}/chat/completions` with `stream: true`,
// `Authorization: Bearer <key>`, answered with `data: {chunk}` events and a final `data: [DONE]`.

interface Dialect {
  label: string;
  /** Where the call goes: a fixed URL, or (the compatible server) from its configured base. */
  url: (target: ProviderTarget) => string;
  /** OpenAI and Groq name it `max_completion_tokens` (`max_tokens` is deprecated there). */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Asks for a final usage chunk (`stream_options.include_usage`): Mistral sends usage unasked and refuses unknown fields. */
  includeUsage: boolean;
}

const FINISH_REASONS: Record<string, string> = {
  stop: "stop",
  length: "length",
  model_length: "length",
  content_filter: "content_filter",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
};

/** `delta.content` is a string, or (Mistral's reasoning models) an array of typed chunks: the text ones count. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      const chunk = record(part);
      return chunk && (chunk.type === undefined || chunk.type === "text") ? (text(chunk.text) ?? "") : "";
    })
    .join("");
}

function read(message: EventSourceMessage, state: StreamState): { text?: string; failure?: InStreamFailure } {
  const data = message.data.trim();
  if (data === "[DONE]") {
    state.complete = true;
    return {};
  }
  const chunk = parseJson(data);
  if (!chunk) return {};
  const error = record(chunk.error);
  if (error) {
    return { failure: { responseStatus: statusOfErrorType(text(error.type) ?? text(error.code)) } };
  }
  const usage = record(chunk.usage) ?? record(record(chunk.x_groq)?.usage);
  if (usage) {
    state.usage = usageOf(count(usage.prompt_tokens), count(usage.completion_tokens), count(usage.total_tokens));
  }
  const choice = record(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
  if (!choice) return {};
  const finish = text(choice.finish_reason);
  if (finish === "error") return { failure: { responseStatus: null } };
  if (finish) state.finishReason = FINISH_REASONS[finish] ?? finish;
  return { text: contentText(record(choice.delta)?.content) };
}

function adapter(dialect: Dialect): ProviderAdapter {
  return {
    label: dialect.label,
    request(call: CompletionRequest, target: ProviderTarget) {
      const messages = [...(call.system ? [{ role: "system", content: call.system }] : []), ...call.messages];
      return {
        url: dialect.url(target),
        headers: {
          "Content-Type": "application/json",
          Accept: "text/event-stream",
          ...(target.apiKey ? { Authorization: `Bearer ${target.apiKey}` } : {}),
        },
        body: {
          model: call.model,
          messages,
          stream: true,
          ...(dialect.includeUsage ? { stream_options: { include_usage: true } } : {}),
          ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
          ...(call.maxTokens !== undefined ? { [dialect.maxTokensField]: call.maxTokens } : {}),
        },
      };
    },
    read,
  };
}

export const openai = adapter({
  label: "OpenAI",
  url: () => "https://api.openai.com/v1/chat/completions",
  maxTokensField: "max_completion_tokens",
  includeUsage: true,
});

export const mistral = adapter({
  label: "Mistral",
  url: () => "https://api.mistral.ai/v1/chat/completions",
  maxTokensField: "max_tokens",
  includeUsage: false,
});

export const groq = adapter({
  label: "Groq",
  url: () => "https://api.groq.com/openai/v1/chat/completions",
  maxTokensField: "max_completion_tokens",
  includeUsage: true,
});

export const openaiCompatible = adapter({
  label: "OpenAI-compatible server",
  url: (target) => `${target.baseUrl ?? ""}/chat/completions`,
  maxTokensField: "max_tokens",
  includeUsage: true,
});
