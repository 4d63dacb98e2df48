import type { EventSourceMessage } from "eventsource-parser";
import type { CompletionRequest, InStreamFailure, ProviderAdapter, ProviderTarget, StreamState } from "../types";
import { count, parseJson, record, splitSystem, statusOfErrorType, text, usageOf } from "./shared";

// Anthropic's Messages API: `POST /v1/messages` with `stream: true`, the key in `x-api-key` and the
// API version in `anthropic-version`. Its stream is named SSE events: `message_start` (input
// tokens), `content_block_delta` (text), `message_delta` (stop reason, output tokens),
// `message_stop`, and `error` for a failure after the stream began (overloaded, rate-limited).

export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic requires `max_tokens`: this when the caller gives none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

function read(message: EventSourceMessage, state: StreamState): { text?: string; failure?: InStreamFailure } {
  const event = parseJson(message.data);
  if (!event) return {};
  switch (message.event ?? text(event.type)) {
    case "message_start": {
      const usage = record(record(event.message)?.usage);
      if (usage) state.usage = usageOf(count(usage.input_tokens), count(usage.output_tokens));
      return {};
    }
    case "content_block_delta": {
      const delta = record(event.delta);
      return delta?.type === "text_delta" ? { text: text(delta.text) ?? "" } : {};
    }
    case "message_delta": {
      const reason = text(record(event.delta)?.stop_reason);
      if (reason) state.finishReason = FINISH_REASONS[reason] ?? reason;
      const usage = record(event.usage);
      if (usage) {
        // Cumulative counts; input tokens are repeated here by newer API versions.
        const input = count(usage.input_tokens) ?? state.usage.input_tokens;
        state.usage = usageOf(input, count(usage.output_tokens) ?? state.usage.output_tokens);
      }
      return {};
    }
    case "message_stop":
      state.complete = true;
      return {};
    case "error":
      return { failure: { responseStatus: statusOfErrorType(text(record(event.error)?.type)) } };
    default:
      // ping, content_block_start, content_block_stop, and types added later.
      return {};
  }
}

export const anthropic: ProviderAdapter = {
  label: "Anthropic",
  request(call: CompletionRequest, target: ProviderTarget) {
    const { system, messages } = splitSystem(call);
    return {
      url: "https://api.anthropic.com/v1/messages",
      headers: {
        "Content-Type": "application/json",
        Accept: "text/event-stream",
        "x-api-key": target.apiKey ?? "",
        "anthropic-version": ANTHROPIC_VERSION,
      },
      body: {
        model: call.model,
        max_tokens: call.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        messages: messages.map(({ role, content }) => ({ role, content })),
        stream: true,
        ...(system ? { system } : {}),
        ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
      },
    };
  },
  read,
};
