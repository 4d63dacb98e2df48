import type { AiProvider } from "../../src/domain/ai-providers";
import { PROVIDER_ENDPOINTS, providerOf } from "./fake-ai-provider";
import type { ThirdParty } from "./third-party";

// The AI providers answering one structured-output request (not streamed), faked at the fetch
// boundary in each provider's own wire format: OpenAI's chat completion with the JSON in the
// message's content, Anthropic's message with a `tool_use` block, Gemini's GenerateContentResponse
// with the JSON in a text part. The service's request building and answer reading are what run.

/** Where a structured-output call goes: as the stream, but Gemini's one-answer `generateContent`. */
export const STRUCTURED_ENDPOINTS: Record<AiProvider, (model: string) => string> = {
  ...PROVIDER_ENDPOINTS,
  gemini: (model) =>
    `https://generativelanguage.googleapis.com/v1beta/models/${encodeURIComponent(model)}:generateContent`,
};

/** What the fake model does: produce this JSON value, produce this raw text, or decline. */
export type ModelReply = { json: unknown } | { text: string } | { refusal: true };

const json = (body: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(body), { ...init, headers: { "Content-Type": "application/json", ...init.headers } });

function openaiLike(reply: ModelReply): unknown {
  const refused = "refusal" in reply;
  const content = "json" in reply ? JSON.stringify(reply.json) : "text" in reply ? reply.text : null;
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_795_000_000,
    model: "fake",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: refused ? "I can't help with that." : null },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
  };
}

function anthropic(reply: ModelReply, toolName: string): unknown {
  const content =
    "json" in reply
      ? [{ type: "tool_use", id: "toolu_fake", name: toolName, input: reply.json }]
      : "text" in reply
        ? [{ type: "text", text: reply.text }]
        : [];
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "claude-fake",
    content,
    stop_reason: "refusal" in reply ? "refusal" : "json" in reply ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 40 },
  };
}

function gemini(reply: ModelReply): unknown {
  if ("refusal" in reply) {
    return {
      promptFeedback: { blockReason: "SAFETY" },
      usageMetadata: { promptTokenCount: 120, totalTokenCount: 120 },
    };
  }
  const text = "json" in reply ? JSON.stringify(reply.json) : reply.text;
  return {
    candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 40, totalTokenCount: 160 },
    modelVersion: "gemini-fake",
  };
}

/** The provider's whole answer carrying `reply`; Anthropic's tool is named `toolName`. */
export function structuredAnswer(provider: AiProvider, reply: ModelReply, toolName: string): unknown {
  if (provider === "anthropic") return anthropic(reply, toolName);
  if (provider === "gemini") return gemini(reply);
  return openaiLike(reply);
}

/** Every AI provider answering with `reply` in its own format; other hosts get a 404. */
export function structuredProviders(reply: ModelReply, toolName: string): ThirdParty {
  return (request) => {
    const provider = providerOf(request);
    if (!provider) return new Response("not an AI provider", { status: 404 });
    return json(structuredAnswer(provider, reply, toolName));
  };
}

/** The JSON body a request carried. */
export const bodyOf = async (request: Request): Promise<Record<string, unknown>> =>
  (await request.clone().json()) as Record<string, unknown>;

type Body = Record<string, unknown> & {
  messages?: { role: string; content: string }[];
  contents?: { parts: { text: string }[] }[];
  system?: string;
  systemInstruction?: { parts: { text: string }[] };
  tools?: { input_schema: unknown }[];
  response_format?: { json_schema: { schema: unknown } };
  generationConfig?: { responseJsonSchema: unknown };
};

/** Where each wire format carries the schema, the system text and the user's prompt. */
export function sentParts(provider: AiProvider, raw: Record<string, unknown>) {
  const body = raw as Body;
  if (provider === "anthropic") {
    return { schema: body.tools?.[0]?.input_schema, system: body.system, prompt: body.messages?.[0]?.content };
  }
  if (provider === "gemini") {
    return {
      schema: body.generationConfig?.responseJsonSchema,
      system: body.systemInstruction?.parts[0]?.text,
      prompt: body.contents?.[0]?.parts[0]?.text,
    };
  }
  return {
    schema: body.response_format?.json_schema.schema,
    system: body.messages?.[0]?.content,
    prompt: body.messages?.[1]?.content,
  };
}
