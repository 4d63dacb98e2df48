import type { AiProvider } from "../../domain/ai-providers";
import type { RequestContext } from "../../lib/context";
import { wellFormedJson } from "../../lib/lone-surrogates";
import { callThirdParty, OutboundError, readTextUpTo } from "../../lib/outbound";
import { retryAfterSeconds } from "./failures";
import { ADAPTERS } from "./providers";
import { record, text } from "./providers/shared";
import type { ProviderHttpRequest, ProviderTarget } from "./types";

// One non-streaming call that asks a provider for a JSON object of a given JSON schema, and
// returns the object it produced. Each wire format has its own way of asking:
// - OpenAI's chat completions (OpenAI, Mistral, Groq, compatible servers): `response_format`
//   `json_schema` in strict mode; the answer is the message's content, a JSON string.
// - Anthropic: one tool whose `input_schema` is the schema, and `tool_choice` forcing it; the
//   answer is that `tool_use` block's `input`, already an object.
// - Gemini: `generateContent` with `responseMimeType: application/json` and `responseJsonSchema`
//   (standard JSON Schema; `responseSchema` takes only Google's OpenAPI subset); the answer is
//   the candidate's text parts, a JSON string.
// URLs and credentials come from the streaming adapters (providers/), so both paths call the same
// place with the same key. Failures are StructuredOutputErrors whose messages say what happened,
// never the URL, the key or the provider's body.

/** How long the whole call may take (answer read included), unless the caller says otherwise. */
export const STRUCTURED_OUTPUT_TIMEOUT_MS = 8_000;
/**
 * The cap on every family's answer: the call spends the server's key, on a model a user may
 * choose. Generous for a reasoning model's thinking plus a short JSON object.
 */
const MAX_OUTPUT_TOKENS = 4096;

/** Anthropic requires `max_tokens`; a structured answer of a short line needs far less. */
const ANTHROPIC_MAX_TOKENS = 1024;
/** Largest answer read; anything longer is not the small object asked for. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** What OpenAI and Anthropic accept as a schema or tool name. */
const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export type StructuredOutputFailure =
  /** No whole answer within the timeout. */
  | "timeout"
  /** The client went away (ctx.signal) before the answer. */
  | "aborted"
  /** The connection failed (DNS, TLS, refused, reset), before or while the answer was read. */
  | "network"
  /** The provider answered 429. */
  | "rate_limited"
  /** Any other non-2xx answer, a redirect included (never followed). `providerStatus` has it. */
  | "provider_error"
  /** The model declined (a refusal, a safety block). */
  | "refused"
  /** A 2xx answer without a JSON object where the format puts it: not JSON, empty, or missing. */
  | "invalid_json"
  /** A JSON object that its reader refused (wrong shape, impossible values): see model parsers. */
  | "invalid_answer";

/** A failed structured-output call: safe to log and to report; never a key, URL or provider body. */
export class StructuredOutputError extends Error {
  constructor(
    readonly provider: AiProvider,
    readonly reason: StructuredOutputFailure,
    message: string,
    /** The provider's HTTP status, when it answered with a failure. */
    readonly providerStatus?: number,
    /** From the provider's Retry-After, when it sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "StructuredOutputError";
  }
}

/** A JSON Schema object (draft 2020-12 keywords the providers share: see model parsers' schemas). */
export type JsonSchema = Record<string, unknown>;

export interface StructuredOutputRequest {
  model: string;
  system: string;
  prompt: string;
  /** Names the schema (OpenAI) or the tool (Anthropic): letters, digits, `_` and `-`, at most 64. */
  schemaName: string;
  /** An object schema; for OpenAI's strict mode every property required and `additionalProperties: false`. */
  schema: JsonSchema;
}

export interface StructuredOutputOptions {
  timeoutMs?: number;
}

const labelOf = (provider: AiProvider) => ADAPTERS[provider].label;

/** The streaming adapter's URL and headers for this model, asking for JSON instead of events. */
function adapterRequest(target: ProviderTarget, request: StructuredOutputRequest): ProviderHttpRequest {
  const base = ADAPTERS[target.provider].request(
    { provider: target.provider, model: request.model, messages: [{ role: "user", content: request.prompt }] },
    target,
  );
  return { ...base, headers: { ...base.headers, Accept: "application/json" } };
}

/** The adapter's `:streamGenerateContent?alt=sse` address as the one-answer `:generateContent`. */
function geminiGenerateContentUrl(streamUrl: string): string {
  const url = new URL(streamUrl);
  url.pathname = url.pathname.replace(/:streamGenerateContent$/, ":generateContent");
  url.searchParams.delete("alt");
  if (!url.pathname.endsWith(":generateContent")) throw new Error("Unexpected Gemini streaming URL");
  return url.href;
}

function buildRequest(target: ProviderTarget, request: StructuredOutputRequest): ProviderHttpRequest {
  const base = adapterRequest(target, request);
  const { model, system, prompt, schemaName, schema } = request;
  if (target.provider === "anthropic") {
    return {
      ...base,
      body: {
        model,
        max_tokens: ANTHROPIC_MAX_TOKENS,
        system,
        messages: [{ role: "user", content: prompt }],
        tools: [{ name: schemaName, description: "Record the structured answer.", input_schema: schema }],
        tool_choice: { type: "tool", name: schemaName },
      },
    };
  }
  if (target.provider === "gemini") {
    return {
      ...base,
      url: geminiGenerateContentUrl(base.url),
      body: {
        contents: [{ role: "user", parts: [{ text: prompt }] }],
        systemInstruction: { parts: [{ text: system }] },
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: schema,
          maxOutputTokens: MAX_OUTPUT_TOKENS,
        },
      },
    };
  }
  return {
    ...base,
    body: {
      model,
      messages: [
        { role: "system", content: system },
        { role: "user", content: prompt },
      ],
      response_format: { type: "json_schema", json_schema: { name: schemaName, schema, strict: true } },
      // OpenAI and Groq name the cap max_completion_tokens (max_tokens is deprecated there).
      [target.provider === "openai" || target.provider === "groq" ? "max_completion_tokens" : "max_tokens"]:
        MAX_OUTPUT_TOKENS,
    },
  };
}

const parseObject = (json: string): Record<string, unknown> | undefined => {
  try {
    return record(JSON.parse(json));
  } catch {
    return undefined;
  }
};

/** A JSON object in text, tolerating a Markdown code fence some compatible servers add around it. */
function objectInText(raw: string): Record<string, unknown> | undefined {
  const trimmed = raw.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(trimmed);
  return parseObject(fenced?.[1] ?? trimmed);
}

/** What the model produced, read from the provider's whole answer: an object, or why there is none. */
type Extracted = { value: Record<string, unknown> } | { failure: "refused" | "invalid_json" };

function extractOpenAiChat(body: Record<string, unknown>): Extracted {
  const choice = record(Array.isArray(body.choices) ? body.choices[0] : undefined);
  const message = record(choice?.message);
  const refusal = text(message?.refusal);
  if ((refusal && refusal.trim() !== "") || choice?.finish_reason === "content_filter") return { failure: "refused" };
  const content = message?.content;
  // A string, or (Mistral) an array of typed chunks whose text ones carry the answer.
  const answer =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((part) => record(part))
            .filter((part) => part !== undefined && (part.type === undefined || part.type === "text"))
            .map((part) => text(part?.text) ?? "")
            .join("")
        : "";
  const value = objectInText(answer);
  return value ? { value } : { failure: "invalid_json" };
}

function extractAnthropic(body: Record<string, unknown>, toolName: string): Extracted {
  if (body.stop_reason === "refusal") return { failure: "refused" };
  const blocks = Array.isArray(body.content) ? body.content.map((block) => record(block)) : [];
  const call = blocks.find((block) => block?.type === "tool_use" && block.name === toolName);
  const value = record(call?.input);
  return value ? { value } : { failure: "invalid_json" };
}

const GEMINI_BLOCKS = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE",
]);

function extractGemini(body: Record<string, unknown>): Extracted {
  if (text(record(body.promptFeedback)?.blockReason)) return { failure: "refused" };
  const candidate = record(Array.isArray(body.candidates) ? body.candidates[0] : undefined);
  const finish = text(candidate?.finishReason);
  if (finish && GEMINI_BLOCKS.has(finish)) return { failure: "refused" };
  const parts = record(candidate?.content)?.parts;
  // Thought summaries (`thought: true`) are the model's reasoning, not its answer.
  const answer = Array.isArray(parts)
    ? parts
        .map((part) => record(part))
        .filter((part) => part !== undefined && part.thought !== true)
        .map((part) => text(part?.text) ?? "")
        .join("")
    : "";
  const value = objectInText(answer);
  return value ? { value } : { failure: "invalid_json" };
}

/**
 * The model's object, its lone surrogates written U+FFFD (a request's body refuses them; a model's
 * answer is kept): what it names is stored (a task's title), where a lone surrogate would make every
 * answer holding it unreadable to strict JSON parsers.
 */
function extract(provider: AiProvider, body: Record<string, unknown>, toolName: string): Extracted {
  const extracted =
    provider === "anthropic"
      ? extractAnthropic(body, toolName)
      : provider === "gemini"
        ? extractGemini(body)
        : extractOpenAiChat(body);
  return "value" in extracted ? { value: wellFormedJson(extracted.value) as Record<string, unknown> } : extracted;
}

/**
 * Asks `target`'s provider for one JSON object of `request.schema` and returns it (not yet
 * validated against the schema: the caller does that). Never streams, never follows a redirect,
 * stops when the client goes away (`ctx.signal`) or after `timeoutMs` (default 8 s), and fails
 * with a StructuredOutputError only (or the 401 of `ctx.confirmCaller`, before anything is sent).
 */
export async function requestStructuredOutput(
  ctx: Pick<RequestContext, "signal" | "confirmCaller" | "now">,
  target: ProviderTarget,
  request: StructuredOutputRequest,
  options: StructuredOutputOptions = {},
): Promise<unknown> {
  if (!SCHEMA_NAME.test(request.schemaName)) throw new TypeError("schemaName must match [A-Za-z0-9_-]{1,64}");
  const { provider } = target;
  const label = labelOf(provider);
  const timeoutMs = options.timeoutMs ?? STRUCTURED_OUTPUT_TIMEOUT_MS;
  const fail = (reason: StructuredOutputFailure, message: string, status?: number, retryAfter?: number) =>
    new StructuredOutputError(provider, reason, message, status, retryAfter);
  // Our own timer decides (it also bounds reading the answer); the helper's is the backstop.
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const stopped = () =>
    timeout.aborted
      ? fail("timeout", `${label} did not answer within ${Math.ceil(timeoutMs / 1000)} s`)
      : fail("aborted", `The call to ${label} was cancelled: the client went away`);

  const http = buildRequest(target, request);
  let response: Response;
  try {
    response = await callThirdParty({ signal, confirmCaller: ctx.confirmCaller }, provider, http.url, {
      method: "POST",
      headers: http.headers,
      body: JSON.stringify(http.body),
      // A provider never redirects an API call; following one would carry the key and the text elsewhere.
      redirect: "manual",
      timeoutMs: timeoutMs + 1000,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (signal.aborted) throw stopped();
    if (error.failure === "timeout") throw fail("timeout", `${label} did not answer in time`);
    throw fail("network", `${label} could not be reached`);
  }

  if (!response.ok) {
    const retryAfter = retryAfterSeconds(response.headers, ctx.now());
    // The body may quote the request or the key: discarded unread.
    await response.body?.cancel().catch(() => undefined);
    if (response.status === 429) {
      const hint = retryAfter === undefined ? "retry later" : `retry after ${retryAfter} s`;
      throw fail("rate_limited", `${label} rate-limited this key; ${hint}`, 429, retryAfter);
    }
    const what = response.status >= 300 && response.status < 400 ? "a redirect (not followed)" : "a failure";
    throw fail(
      "provider_error",
      `${label} answered with ${what}: HTTP ${response.status}`,
      response.status,
      retryAfter,
    );
  }

  let raw: string | null;
  try {
    raw = await readTextUpTo(response, signal, MAX_ANSWER_BYTES);
  } catch {
    if (signal.aborted) throw stopped();
    throw fail("network", `The connection to ${label} broke off while it answered`);
  }
  const body = raw === null ? undefined : parseObject(raw);
  if (!body) throw fail("invalid_json", `${label} answered with something other than a JSON response`);
  const extracted = extract(provider, body, request.schemaName);
  if ("failure" in extracted) {
    throw extracted.failure === "refused"
      ? fail("refused", `The ${label} model declined to answer`)
      : fail("invalid_json", `The ${label} model's answer held no JSON object of the requested schema`);
  }
  return extracted.value;
}
