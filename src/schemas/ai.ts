import { z } from "@hono/zod-openapi";
import { AI_PROVIDERS } from "../domain/ai-providers";

// Requests and answers of the AI routes: the streamed completion (`/api/v1/ai/{provider}/stream`)
// and the five legacy paths (`/api/ai/<provider>`).

/** Model names as providers spell them: `gpt-4o-mini`, `claude-sonnet-4-5`, `models/gemini-2.5-flash`, `llama3.2:3b`, `hf.co/org/model:Q4_K_M`. */
export const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;
/** A provider key: visible ASCII only (it goes into an HTTP header), at most 512 characters. */
const API_KEY_PATTERN = /^[\x21-\x7E]+$/;

const model = z
  .string()
  .min(1)
  .max(200)
  .regex(MODEL_PATTERN, { message: "model must be a model name (letters, digits and . _ : / @ + -)" })
  .openapi({
    description: "The provider's model name, as the provider spells it",
    example: "gpt-4o-mini",
  });

const apiKey = z
  .string()
  .min(1)
  .max(512)
  .regex(API_KEY_PATTERN, { message: "apiKey must be printable ASCII without spaces" })
  .openapi({
    description:
      "The caller's own key for the provider. Sent to that provider only: never logged, stored or echoed, in answers or errors",
    example: "sk-proj-your-own-key",
  });

const MAX_MESSAGES = 500;
const MAX_TEXT = 500_000;

export const ChatMessageSchema = z
  .strictObject({
    role: z.enum(["system", "user", "assistant"]).openapi({
      description:
        "`system` messages are folded into the provider's system instruction where it has one (Anthropic, Gemini)",
      example: "user",
    }),
    content: z.string().min(1).max(MAX_TEXT).openapi({ example: "Summarise this page in three bullet points." }),
  })
  .openapi("AiChatMessage");

export const AiStreamParams = z.object({
  provider: z.enum(AI_PROVIDERS).openapi({
    param: { name: "provider", in: "path" },
    description:
      "`openai`, `anthropic`, `gemini`, `mistral`, `groq`, or `openai-compatible` (the server at OPENAI_COMPATIBLE_BASE_URL: a local Ollama, vLLM or llama.cpp server). Another name is a 404",
    example: "openai",
  }),
});

export const AiStreamRequest = z
  .strictObject({
    messages: z
      .array(ChatMessageSchema)
      .min(1)
      .max(MAX_MESSAGES)
      .optional()
      .openapi({ description: "The conversation, oldest first. Exactly one of `messages` and `prompt`" }),
    prompt: z.string().min(1).max(MAX_TEXT).optional().openapi({
      description: "A single user message. Exactly one of `messages` and `prompt`",
      example: "Write a haiku about spreadsheets.",
    }),
    model,
    system: z.string().min(1).max(MAX_TEXT).optional().openapi({
      description: "System instruction, before any `system` messages",
      example: "Answer in plain English, briefly.",
    }),
    temperature: z.number().min(0).max(2).optional().openapi({
      description: "Sampling temperature, 0 to 2 (Anthropic takes 0 to 1: above is its 400)",
      example: 0.7,
    }),
    max_tokens: z.number().int().min(1).max(1_000_000).optional().openapi({
      description:
        "Longest answer in tokens. On your own `apiKey`: as you ask (Anthropic needs one: 4096 when absent). When the server pays (its key, or the openai-compatible server, whatever `apiKey` you send it): at most AI_MAX_OUTPUT_TOKENS (4096 by default; above it a 400), and that ceiling when absent",
      example: 512,
    }),
    apiKey: apiKey.optional().openapi({
      description:
        "The caller's own key for the provider; absent, the server's configured key (e.g. OPENAI_API_KEY) is used, and with neither the call is a 400. Never logged, stored or echoed",
    }),
  })
  .superRefine((body, ctx) => {
    if ((body.messages === undefined) === (body.prompt === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [body.messages === undefined ? "prompt" : "messages"],
        message: "send exactly one of `messages` and `prompt`",
      });
    }
    // System messages become the system instruction (Anthropic, Gemini): something must be left to answer.
    if (body.messages && !body.messages.some((message) => message.role !== "system")) {
      ctx.addIssue({
        code: "custom",
        path: ["messages"],
        message: "messages needs at least one user or assistant message besides system ones",
      });
    }
  })
  .openapi("AiStreamRequest", {
    example: {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Summarise this page in three bullet points." }],
      temperature: 0.7,
      max_tokens: 512,
    },
  });

export type AiStreamRequest = z.infer<typeof AiStreamRequest>;

export const AiPromptRequest = z
  .strictObject({
    prompt: z.string().min(1).max(MAX_TEXT).openapi({ example: "Write a haiku about spreadsheets." }),
    model,
    apiKey: apiKey.openapi({
      description:
        "Your own key for this provider (required: these open paths never use the server's keys). Sent to the provider only: never logged, stored or echoed",
    }),
  })
  .openapi("AiPromptRequest", {
    example: { prompt: "Write a haiku about spreadsheets.", model: "gpt-4o-mini", apiKey: "sk-proj-your-own-key" },
  });

export type AiPromptRequest = z.infer<typeof AiPromptRequest>;

export const AiPromptResponse = z
  .object({ response: z.string().openapi({ description: "The model's whole answer" }) })
  .openapi("AiPromptResponse", {
    example: { response: "Rows align in calm grids\nformulas hum quietly\nthe totals agree" },
  });

// The stream's events (services/ai/types.ts, AiEvent): each an SSE event (WHATWG HTML, "Server-sent
// events") whose `event` field names it and whose `data` is one line of JSON.

const sseEvent = <const N extends string, T extends z.ZodType>(
  name: N,
  data: T,
  description: string,
  example: z.infer<T>,
) =>
  z.object({ event: z.literal(name), data }).openapi(`Ai${name[0]?.toUpperCase()}${name.slice(1)}Event`, {
    description,
    example: { event: name, data: example },
  });

const usage = z.object({
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  total_tokens: z.number().int().nullable(),
});

export const AiStartEvent = sseEvent(
  "start",
  z.object({ provider: z.enum(AI_PROVIDERS), model: z.string(), request_id: z.string() }),
  "The provider accepted the request (answered 2xx); always the first event, unless an `error` comes first",
  { provider: "openai", model: "gpt-4o-mini", request_id: "5b8f0f7e-3c1a-4a5e-9a51-0f3f0c1d2e3f" },
);
export const AiDeltaEvent = sseEvent(
  "delta",
  z.object({ text: z.string() }),
  "The next piece of the answer, in order, in whole characters",
  { text: "Rows align" },
);
export const AiDoneEvent = sseEvent(
  "done",
  z.object({
    finish_reason: z
      .string()
      .nullable()
      .openapi({ description: "`stop`, `length`, `content_filter`, `tool_calls`, or the provider's own word" }),
    usage,
  }),
  "The answer is complete: the last event",
  { finish_reason: "stop", usage: { input_tokens: 14, output_tokens: 6, total_tokens: 20 } },
);
export const AiErrorEvent = sseEvent(
  "error",
  z.object({
    status: z.number().int().openapi({ description: "What the failure means, as an HTTP status (see the operation)" }),
    message: z.string(),
    timestamp: z.string().openapi({ format: "date-time" }),
    responseStatus: z
      .number()
      .int()
      .optional()
      .openapi({ description: "The provider's HTTP status, when it answered" }),
    retryAfterSeconds: z
      .number()
      .optional()
      .openapi({ description: "From the provider's Retry-After, when it sent one" }),
  }),
  "The completion failed: the last event; what came before is not a complete answer",
  {
    status: 429,
    message: "The provider rate-limited this key: retry in 20 s",
    timestamp: "2026-11-23T09:30:00.000Z",
    responseStatus: 429,
    retryAfterSeconds: 20,
  },
);

/** One event of the stream, keyed on its `event` name. */
export const AiStreamEvent = z
  .discriminatedUnion("event", [AiStartEvent, AiDeltaEvent, AiDoneEvent, AiErrorEvent])
  .openapi("AiStreamEvent", {
    description:
      "One server-sent event of a completion stream: `event` is the SSE event name, `data` its JSON. A stream is `start`, `delta`..., then one `done` or one `error`",
  });

/**
 * The stream's content, for the contract: SSE text (OpenAPI 3.1 has no schema for a stream's
 * items; OpenAPI 3.2's `itemSchema` is the later form), whose events are `AiStreamEvent`s, by
 * JSON Schema 2020-12 `contentMediaType` and `contentSchema`.
 */
export const AiEventStream = z.string().openapi({
  description:
    "Server-sent events: `start`, `delta`..., then `done` or `error` (each an `AiStreamEvent`: the SSE `event` field and its JSON `data`); `: ping` comments while idle",
  // JSON Schema keywords that zod-to-openapi's metadata type does not list; it writes them as given.
  ...({
    contentMediaType: "text/event-stream",
    contentSchema: { type: "array", items: { $ref: "#/components/schemas/AiStreamEvent" } },
  } as object),
  example: [
    "event: start",
    'data: {"provider":"openai","model":"gpt-4o-mini","request_id":"5b8f0f7e-3c1a-4a5e-9a51-0f3f0c1d2e3f"}',
    "",
    "event: delta",
    'data: {"text":"Rows align"}',
    "",
    "event: delta",
    'data: {"text":" in calm grids"}',
    "",
    "event: done",
    'data: {"finish_reason":"stop","usage":{"input_tokens":14,"output_tokens":6,"total_tokens":20}}',
    "",
    "",
  ].join("\n"),
});
