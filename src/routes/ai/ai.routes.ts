import type { NamedProvider } from "../../domain/ai-providers";
import { defineRoute, ERROR_RESPONSES, errorResponse, rateLimitedResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { AiEventStream, AiPromptRequest, AiPromptResponse, AiStreamParams, AiStreamRequest } from "../../schemas/ai";
import { IDLE_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from "../../services/ai/completion";
import {
  CONCURRENCY_RETRY_AFTER_SECONDS,
  DEFAULT_MAX_CONCURRENT_STREAMS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  STREAM_RATE_PERIOD_SECONDS,
} from "../../services/ai/limits";
import { HEARTBEAT_MS } from "../../services/ai/stream";

const tags = ["AI"];

const STREAM_DESCRIPTION = [
  "Streams a completion from the provider named in the path as server-sent events (`text/event-stream`).",
  "",
  "**Body**: `model`, and exactly one of `messages` (`[{role, content}]`, roles `system`, `user`, `assistant`) and `prompt` (one user message); optional `system`, `temperature`, `max_tokens`, `apiKey`.",
  "",
  "**Credentials**: the caller's `apiKey` when given, else the server's configured key for that provider (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, MISTRAL_API_KEY, GROQ_API_KEY; OPENAI_COMPATIBLE_API_KEY, optional, for `openai-compatible`). With neither: a 400 before any stream. `openai-compatible` calls the server at OPENAI_COMPATIBLE_BASE_URL (a local Ollama, vLLM or llama.cpp server); when that is not set, a 503 `unavailable`. The key is never logged, stored or echoed.",
  "",
  `**Limits when the server pays** (its own key, or the \`openai-compatible\` server, which is the operator's machine whatever \`apiKey\` you send it; a call to a named provider on your own \`apiKey\` is exempt): \`max_tokens\` is at most the server's ceiling (AI_MAX_OUTPUT_TOKENS, ${DEFAULT_MAX_OUTPUT_TOKENS} by default) and is that ceiling when absent; a larger one is a 400 with \`details: {field: "max_tokens", maximum}\`. Each user may start 20 such streams a minute (the AI_STREAM_LIMITER binding) and run AI_MAX_CONCURRENT_STREAMS (${DEFAULT_MAX_CONCURRENT_STREAMS} by default) at once; beyond either, a 429 \`rate_limited\` with \`Retry-After\` (${STREAM_RATE_PERIOD_SECONDS} s past the rate, ${CONCURRENCY_RETRY_AFTER_SECONDS} s past the streams at once) and \`details.limit\` \`rate\` or \`concurrency\`, before any call to the provider.`,
  "",
  "**Errors: one rule.** Everything this service can check itself is an HTTP error before the stream: 400 (body, no key, `max_tokens` above the ceiling), 401, 403 (read-only key), 404 (unknown provider), 413, 415, 429 (the limits above), 503 (`openai-compatible` not configured). Everything the provider does is inside a 200 stream: once the request is accepted the answer is `200 text/event-stream`, and a provider failure, whether before its first byte or in the middle of the answer, is an `error` event. A stream ends with exactly one `done` or one `error`.",
  "",
  "**Events** (each `data` is JSON):",
  "- `start` `{provider, model, request_id}`: the provider accepted the request (answered 2xx). A failure before that gives an `error` without a `start`.",
  "- `delta` `{text}`: the next piece of the answer, in order; whole characters (a chunk split inside an event or a UTF-8 character is joined first).",
  "- `done` `{finish_reason, usage: {input_tokens, output_tokens, total_tokens}}`: the answer is complete. `finish_reason`: `stop`, `length`, `content_filter`, `tool_calls`, or the provider's own word (lower case); token counts are null where the provider gave none.",
  `- \`error\` \`{status, message, timestamp, responseStatus?, retryAfterSeconds?}\`: the completion failed; content already received is not a complete answer (keep what was saved; do not treat it as done). \`status\`: 429 the provider rate-limited the key (\`message\` says when to retry, from the provider's Retry-After: \`retryAfterSeconds\`); 401/403 the provider rejected the caller's \`apiKey\`; 400/404/413/422 the provider refused the request (check \`model\` and the parameters); 502 the provider failed, could not be reached, broke off the stream, or rejected the server's own key (an operator's matter); 503 overloaded; 504 the provider sent nothing for ${IDLE_TIMEOUT_MS / 1000} s, or the answer took over ${TOTAL_TIMEOUT_MS / 1000} s. \`responseStatus\` is the provider's HTTP status when it answered. Never the provider's body, URL or any key.`,
  "",
  `While the provider is silent, a comment line \`: ping\` is sent every ${HEARTBEAT_MS / 1000} s to keep proxies from closing the connection. A client that disconnects aborts the call to the provider.`,
  "",
  'Each call writes one internal `provider_audit_log` record for the caller (provider, model, status, latency, token usage, finish reason; the prompt only when AI_AUDIT_PROMPTS is "true"; never a key): it appears in no listing, search, page, child list or export, and cannot be created, converted to or changed through the API.',
].join("\n");

export const stream = defineRoute({
  operationId: "streamAiCompletion",
  method: "post",
  path: "/api/v1/ai/{provider}/stream",
  tags,
  access: "user",
  summary: "Stream a completion from an AI provider (SSE)",
  description: STREAM_DESCRIPTION,
  request: { params: AiStreamParams, body: jsonBody(AiStreamRequest) },
  responses: {
    200: {
      description:
        "The stream of events: `start`, `delta`..., then `done` or `error` (a provider failure is an `error` event inside this 200)",
      content: { "text/event-stream": { schema: AiEventStream } },
    },
    404: ERROR_RESPONSES[404],
    429: rateLimitedResponse(
      "The server pays for this call and the caller is past their rate or their streams at once (`code` rate_limited; `details.limit` is `rate` or `concurrency`)",
    ),
    503: errorResponse(
      "`openai-compatible` is not configured on this server (`code` unavailable; `details.setting` names OPENAI_COMPATIBLE_BASE_URL)",
    ),
  },
});

const LABELS: Record<NamedProvider, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  gemini: "Google Gemini",
  mistral: "Mistral",
  groq: "Groq",
};

const OPERATION_IDS: Record<NamedProvider, string> = {
  openai: "promptOpenAi",
  anthropic: "promptAnthropic",
  gemini: "promptGemini",
  mistral: "promptMistral",
  groq: "promptGroq",
};

/** Open routes that cost the caller money: counted per client address (OPEN_ROUTE_LIMITER, 30 a minute). */
const OPEN_RATE_LIMIT = { binding: "OPEN_ROUTE_LIMITER", per: "client", retryAfterSeconds: 60 } as const;

const legacy = <const P extends NamedProvider>(provider: P) =>
  defineRoute({
    operationId: OPERATION_IDS[provider],
    method: "post",
    path: `/api/ai/${provider}`,
    tags,
    access: "open",
    rateLimit: OPEN_RATE_LIMIT,
    summary: `Prompt ${LABELS[provider]} with your own key (legacy)`,
    description: `The legacy, unauthenticated path: sends \`prompt\` to ${LABELS[provider]}'s \`model\` with the caller's own \`apiKey\` (required; the server's keys are never used here) and answers the whole text as \`{response}\`. The key is sent to ${LABELS[provider]} only: never logged, stored or echoed, in answers or errors. Any failure of the provider (rejected key, rate limit, error, unreachable, timeout) is a 500 \`upstream_failed\` whose \`error\` says what to do (e.g. "The provider rate-limited this key; retry after 20 s") and whose \`details\` carry \`provider_status\` and \`retry_after_seconds\` when known. A missing or invalid field is a 400. Counted per client address: past 30 requests a minute, a 429 with \`Retry-After\`. No audit record is written (there is no user to own it); each call is one log line without key or prompt. For streaming, several messages and server-side keys, use \`POST /api/v1/ai/${provider}/stream\`.`,
    request: { body: jsonBody(AiPromptRequest) },
    responses: {
      200: jsonContent(AiPromptResponse, "The model's answer"),
      500: errorResponse(
        "The provider failed, refused or could not be reached (`code` upstream_failed; `details.provider_status`, `details.retry_after_seconds` when known), or an unexpected failure (`code` internal)",
      ),
    },
  });

export const promptOpenAi = legacy("openai");
export const promptAnthropic = legacy("anthropic");
export const promptGemini = legacy("gemini");
export const promptMistral = legacy("mistral");
export const promptGroq = legacy("groq");
