import type { EventSourceMessage } from "eventsource-parser";
import type { CompletionRequest, InStreamFailure, ProviderAdapter, ProviderTarget, StreamState } from "../types";
import { count, parseJson, record, splitSystem, statusOfErrorType, text, usageOf } from "./shared";

// Google's Gemini API: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` with the key in
// `x-goog-api-key` (never in the URL, where logs keep it). Each SSE event is a whole
// GenerateContentResponse: candidates' text parts, a `finishReason` on the last one, and the usage
// so far. There is no end marker: the stream ends when the answer does.

const FINISH_REASONS: Record<string, string> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  MALFORMED_FUNCTION_CALL: "tool_calls",
};

const finishReason = (reason: string) => FINISH_REASONS[reason] ?? reason.toLowerCase();

function read(message: EventSourceMessage, state: StreamState): { text?: string; failure?: InStreamFailure } {
  const chunk = parseJson(message.data);
  if (!chunk) return {};
  const error = record(chunk.error);
  if (error) return { failure: { responseStatus: count(error.code) ?? statusOfErrorType(text(error.status)) } };
  const usage = record(chunk.usageMetadata);
  if (usage) {
    const output = count(usage.candidatesTokenCount);
    const thoughts = count(usage.thoughtsTokenCount);
    state.usage = usageOf(
      count(usage.promptTokenCount),
      output === null && thoughts === null ? null : (output ?? 0) + (thoughts ?? 0),
      count(usage.totalTokenCount),
    );
  }
  const blocked = text(record(chunk.promptFeedback)?.blockReason);
  if (blocked) state.finishReason = "content_filter";
  const candidate = record(Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined);
  if (!candidate) return {};
  const reason = text(candidate.finishReason);
  if (reason) state.finishReason = finishReason(reason);
  const parts = record(candidate.content)?.parts;
  if (!Array.isArray(parts)) return {};
  // Thought summaries (`thought: true`) are the model's reasoning, not its answer.
  return {
    text: parts
      .map((part) => record(part))
      .filter((part) => part !== undefined && part.thought !== true)
      .map((part) => text(part?.text) ?? "")
      .join(""),
  };
}

/** "gemini-2.5-flash" or "models/gemini-2.5-flash", as one path segment. */
const modelSegment = (model: string) => encodeURIComponent(model.replace(/^models\//, ""));

export const gemini: ProviderAdapter = {
  label: "Gemini",
  request(call: CompletionRequest, target: ProviderTarget) {
    const { system, messages } = splitSystem(call);
    const generationConfig = {
      ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
      ...(call.maxTokens !== undefined ? { maxOutputTokens: call.maxTokens } : {}),
    };
    return {
      url: `https://generativelanguage.googleapis.com/v1beta/models/${modelSegment(call.model)}:streamGenerateContent?alt=sse`,
      headers: {
        "Content-Type": "application/json",
        Accept: "text/event-stream",
        "x-goog-api-key": target.apiKey ?? "",
      },
      body: {
        contents: messages.map((m) => ({
          role: m.role === "assistant" ? "model" : "user",
          parts: [{ text: m.content }],
        })),
        ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
        ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
      },
    };
  },
  read,
  // An unknown or malformed key is a 400 INVALID_ARGUMENT with the reason API_KEY_INVALID.
  keyRejectedIn: (status, body) => status === 400 && /API_KEY_INVALID|API key not valid/.test(body),
};
