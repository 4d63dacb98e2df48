import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { AiProvider } from "../../../src/domain/ai-providers";
import { createContext } from "../../../src/lib/context";
import { callerTarget } from "../../../src/services/ai/config";
import {
  type JsonSchema,
  requestStructuredOutput,
  STRUCTURED_OUTPUT_TIMEOUT_MS,
  StructuredOutputError,
  type StructuredOutputRequest,
} from "../../../src/services/ai/structured-output";
import type { ProviderTarget } from "../../../src/services/ai/types";
import { AI_PROVIDERS, COMPATIBLE_BASE_URL, MODELS, streamedResponse } from "../../helpers/fake-ai-provider";
import {
  bodyOf,
  type ModelReply,
  STRUCTURED_ENDPOINTS,
  structuredAnswer,
  structuredProviders,
} from "../../helpers/fake-structured-provider";
import { type FakedThirdParties, fakeThirdParties, type ThirdParty, untilAborted } from "../../helpers/third-party";

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

const KEY = "sk-structured-test-key-5f1c";
/** A provider body that must never be read back to anyone. */
const SECRET_BODY = `{"error":{"message":"bad key ${KEY} at https://internal.example/v1?key=${KEY}"}}`;
const SCHEMA: JsonSchema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: ["integer", "null"] } },
  required: ["city", "population"],
  additionalProperties: false,
};
const SCHEMA_NAME = "city_facts";
const SYSTEM = "Answer with the city's facts.";
const PROMPT = "The capital of France";
const ANSWER = { city: "Paris", population: 2_100_000 };

const targetFor = (provider: AiProvider): ProviderTarget => ({
  ...callerTarget(provider, KEY),
  baseUrl: provider === "openai-compatible" ? COMPATIBLE_BASE_URL : null,
});
const requestFor = (provider: AiProvider): StructuredOutputRequest => ({
  model: MODELS[provider],
  system: SYSTEM,
  prompt: PROMPT,
  schemaName: SCHEMA_NAME,
  schema: SCHEMA,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ask(provider: AiProvider, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const ctx = createContext({ env, ...(options.signal ? { signal: options.signal } : {}) });
  return requestStructuredOutput(ctx, targetFor(provider), requestFor(provider), {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** The call's failure: always a StructuredOutputError, never quoting the key, a URL or the provider's body. */
async function failureOf(pending: Promise<unknown>): Promise<StructuredOutputError> {
  const error = await pending.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StructuredOutputError);
  const failure = error as StructuredOutputError;
  expect(failure.message).not.toContain(KEY);
  expect(failure.message).not.toMatch(/https?:\/\//);
  expect(failure.message).not.toContain("internal.example");
  expect(JSON.stringify(failure)).not.toContain(KEY);
  return failure;
}

const answering = (reply: ModelReply): ThirdParty => structuredProviders(reply, SCHEMA_NAME);
/** Every provider answering with this exact body (the fake ignores which one was called). */
const withBody =
  (body: unknown): ThirdParty =>
  () =>
    new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });

describe("requestStructuredOutput: the request each wire format gets", () => {
  it("OpenAI: chat completions, Bearer key, the schema as a strict json_schema response_format, not streamed", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    await ask("openai");
    expect(faked.requests).toHaveLength(1);
    const [request] = faked.requests as [Request];
    expect(request.method).toBe("POST");
    expect(request.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(request.redirect).toBe("manual");
    expect(request.headers.get("Authorization")).toBe(`Bearer ${KEY}`);
    expect(request.headers.get("Content-Type")).toBe("application/json");
    expect(request.headers.get("Accept")).toBe("application/json");
    expect(await bodyOf(request)).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: PROMPT },
      ],
      response_format: { type: "json_schema", json_schema: { name: SCHEMA_NAME, schema: SCHEMA, strict: true } },
      // The answer is capped: the call spends the server's key.
      max_completion_tokens: 4096,
    });
  });

  it("Anthropic: Messages API, x-api-key and anthropic-version, one tool with the schema, forced by tool_choice", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    await ask("anthropic");
    const [request] = faked.requests as [Request];
    expect(request.url).toBe("https://api.anthropic.com/v1/messages");
    expect(request.redirect).toBe("manual");
    expect(request.headers.get("x-api-key")).toBe(KEY);
    expect(request.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(request.headers.get("Authorization")).toBeNull();
    expect(await bodyOf(request)).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: SYSTEM,
      messages: [{ role: "user", content: PROMPT }],
      tools: [{ name: SCHEMA_NAME, description: expect.any(String), input_schema: SCHEMA }],
      tool_choice: { type: "tool", name: SCHEMA_NAME },
    });
  });

  it("Gemini: generateContent (not the stream), the key in x-goog-api-key only, responseJsonSchema with JSON MIME type", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    await ask("gemini");
    const [request] = faked.requests as [Request];
    expect(request.url).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    );
    expect(request.url).not.toContain(KEY);
    expect(request.redirect).toBe("manual");
    expect(request.headers.get("x-goog-api-key")).toBe(KEY);
    expect(request.headers.get("Authorization")).toBeNull();
    expect(await bodyOf(request)).toEqual({
      contents: [{ role: "user", parts: [{ text: PROMPT }] }],
      systemInstruction: { parts: [{ text: SYSTEM }] },
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: SCHEMA, maxOutputTokens: 4096 },
    });
  });

  it.each(["mistral", "groq", "openai-compatible"] as const)(
    "%s: OpenAI's request at the provider's own chat-completions address",
    async (provider) => {
      faked = fakeThirdParties(answering({ json: ANSWER }));
      await ask(provider);
      const [request] = faked.requests as [Request];
      expect(request.url).toBe(STRUCTURED_ENDPOINTS[provider](MODELS[provider]));
      expect(request.headers.get("Authorization")).toBe(`Bearer ${KEY}`);
      expect(await bodyOf(request)).toMatchObject({
        model: MODELS[provider],
        response_format: { type: "json_schema", json_schema: { name: SCHEMA_NAME, schema: SCHEMA, strict: true } },
        // Mistral and compatible servers take max_tokens, Groq max_completion_tokens (as OpenAI).
        [provider === "groq" ? "max_completion_tokens" : "max_tokens"]: 4096,
      });
      expect(await bodyOf(request)).not.toHaveProperty("stream");
    },
  );

  it("a compatible server without a key gets no Authorization header", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    const target: ProviderTarget = { ...targetFor("openai-compatible"), apiKey: null, source: "none" };
    await requestStructuredOutput(createContext({ env }), target, requestFor("openai-compatible"));
    expect(faked.requests[0]?.headers.get("Authorization")).toBeNull();
  });

  it("a schema name a provider would refuse is a programming error, before any call", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    await expect(
      requestStructuredOutput(createContext({ env }), targetFor("openai"), {
        ...requestFor("openai"),
        schemaName: "city facts",
      }),
    ).rejects.toThrow(TypeError);
    expect(faked.requests).toHaveLength(0);
  });

  it("waits 8 s by default", () => {
    expect(STRUCTURED_OUTPUT_TIMEOUT_MS).toBe(8000);
  });
});

describe.each(AI_PROVIDERS)("requestStructuredOutput (%s): answers", (provider) => {
  it("returns the object the model produced", async () => {
    faked = fakeThirdParties(answering({ json: ANSWER }));
    expect(await ask(provider)).toEqual(ANSWER);
  });

  it("a lone surrogate the model wrote, in a value or a key, comes back as U+FFFD; pairs stay", async () => {
    faked = fakeThirdParties(answering({ json: { city: "Par\ud800is \u{1f600}", "k\udc00": ["\udbff"] } }));
    expect(await ask(provider)).toEqual({ city: "Par\ufffdis \u{1f600}", "k\ufffd": ["\ufffd"] });
  });

  it("text that is not JSON is invalid_json", async () => {
    faked = fakeThirdParties(answering({ text: "Paris, about 2.1 million {" }));
    const error = await failureOf(ask(provider));
    expect(error.reason).toBe("invalid_json");
    expect(error.provider).toBe(provider);
  });

  it("an empty answer is invalid_json", async () => {
    faked = fakeThirdParties(answering({ text: "" }));
    expect((await failureOf(ask(provider))).reason).toBe("invalid_json");
  });

  it("JSON that is not an object (an array) is invalid_json", async () => {
    faked = fakeThirdParties(answering({ json: ["Paris"] }));
    expect((await failureOf(ask(provider))).reason).toBe("invalid_json");
  });

  it("a 2xx body that is not the provider's JSON at all (an HTML page) is invalid_json", async () => {
    faked = fakeThirdParties(() => new Response("<html>captive portal</html>", { status: 200 }));
    expect((await failureOf(ask(provider))).reason).toBe("invalid_json");
  });

  it("a provider JSON body of the wrong shape (no choices, candidates or content) is invalid_json", async () => {
    faked = fakeThirdParties(withBody({ id: "x", object: "something.else" }));
    expect((await failureOf(ask(provider))).reason).toBe("invalid_json");
  });

  it("an answer over 1 MiB is not read to the end: invalid_json", async () => {
    const huge = { text: JSON.stringify({ city: "x".repeat(1024 * 1024) }) };
    faked = fakeThirdParties(answering(huge));
    expect((await failureOf(ask(provider))).reason).toBe("invalid_json");
  });

  it("a refusal is refused", async () => {
    faked = fakeThirdParties(answering({ refusal: true }));
    const error = await failureOf(ask(provider));
    expect(error.reason).toBe("refused");
    expect(error.message).toMatch(/declined/);
  });
});

describe.each(AI_PROVIDERS)("requestStructuredOutput (%s): failures", (provider) => {
  it("a provider that never answers is abandoned after timeoutMs: timeout, the upstream call aborted", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const started = Date.now();
    const error = await failureOf(ask(provider, { timeoutMs: 50 }));
    expect(error.reason).toBe("timeout");
    expect(error.message).toMatch(/did not answer within 1 s/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("an answer that starts but never ends is a timeout too", async () => {
    const half = JSON.stringify(structuredAnswer(provider, { json: ANSWER }, SCHEMA_NAME)).slice(0, 40);
    faked = fakeThirdParties((request) => streamedResponse(half, { hang: true, signal: request.signal }));
    const error = await failureOf(ask(provider, { timeoutMs: 60 }));
    expect(error.reason).toBe("timeout");
  });

  it("the client going away (ctx.signal) aborts the call: aborted", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const client = new AbortController();
    const pending = ask(provider, { signal: client.signal });
    await sleep(10);
    client.abort();
    const error = await failureOf(pending);
    expect(error.reason).toBe("aborted");
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("429 is rate_limited, with the provider's status and Retry-After", async () => {
    faked = fakeThirdParties(() => new Response(SECRET_BODY, { status: 429, headers: { "Retry-After": "20" } }));
    const error = await failureOf(ask(provider));
    expect(error).toMatchObject({ reason: "rate_limited", providerStatus: 429, retryAfterSeconds: 20 });
    expect(error.message).toMatch(/retry after 20 s/);
  });

  it.each([500, 503, 401, 400])(
    "HTTP %i is provider_error keeping the status; the body is never quoted",
    async (status) => {
      faked = fakeThirdParties(() => new Response(SECRET_BODY, { status }));
      const error = await failureOf(ask(provider));
      expect(error).toMatchObject({ reason: "provider_error", providerStatus: status });
      expect(error.message).toContain(`HTTP ${status}`);
      expect(error.message).not.toContain("bad key");
    },
  );

  it("a network failure is network; the fetch error's text (which may hold the URL) is not kept", async () => {
    faked = fakeThirdParties(() => {
      throw new TypeError(`connect ECONNREFUSED https://api.example/v1?key=${KEY}`);
    });
    const error = await failureOf(ask(provider));
    expect(error.reason).toBe("network");
    expect(error.message).toMatch(/could not be reached/);
  });

  it("a redirect is not followed: provider_error with the 3xx, one request only", async () => {
    faked = fakeThirdParties(
      () => new Response(null, { status: 302, headers: { Location: "https://collector.example/steal" } }),
    );
    const error = await failureOf(ask(provider));
    expect(error).toMatchObject({ reason: "provider_error", providerStatus: 302 });
    expect(error.message).toMatch(/redirect \(not followed\)/);
    expect(faked.requests).toHaveLength(1);
    expect(faked.requests[0]?.redirect).toBe("manual");
  });
});

describe("requestStructuredOutput: provider details", () => {
  it("Mistral's content as an array of typed chunks: the text chunks are the answer", async () => {
    faked = fakeThirdParties(
      withBody({
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: [
                { type: "thinking", thinking: [{ type: "text", text: "Let me think" }] },
                { type: "text", text: '{"city": "Pa' },
                { type: "text", text: 'ris", "population": null}' },
              ],
            },
            finish_reason: "stop",
          },
        ],
      }),
    );
    expect(await ask("mistral")).toEqual({ city: "Paris", population: null });
  });

  it("a compatible server's answer in a Markdown code fence is read", async () => {
    faked = fakeThirdParties(answering({ text: '```json\n{"city": "Paris", "population": 1}\n```' }));
    expect(await ask("openai-compatible")).toEqual({ city: "Paris", population: 1 });
  });

  it("Anthropic: the tool_use block is found among text blocks; a tool call to another name is not the answer", async () => {
    faked = fakeThirdParties(
      withBody({
        type: "message",
        content: [
          { type: "text", text: "Here it is." },
          { type: "tool_use", id: "t1", name: SCHEMA_NAME, input: ANSWER },
        ],
        stop_reason: "tool_use",
      }),
    );
    expect(await ask("anthropic")).toEqual(ANSWER);
    faked.restore();
    faked = fakeThirdParties(
      withBody({
        type: "message",
        content: [{ type: "tool_use", id: "t1", name: "other_tool", input: ANSWER }],
        stop_reason: "tool_use",
      }),
    );
    expect((await failureOf(ask("anthropic"))).reason).toBe("invalid_json");
  });

  it("Gemini: thought parts are skipped; a candidate stopped for SAFETY is refused", async () => {
    faked = fakeThirdParties(
      withBody({
        candidates: [
          {
            content: {
              role: "model",
              parts: [{ text: "thinking about cities", thought: true }, { text: JSON.stringify(ANSWER) }],
            },
            finishReason: "STOP",
          },
        ],
      }),
    );
    expect(await ask("gemini")).toEqual(ANSWER);
    faked.restore();
    faked = fakeThirdParties(
      withBody({ candidates: [{ content: { role: "model", parts: [] }, finishReason: "SAFETY" }] }),
    );
    expect((await failureOf(ask("gemini"))).reason).toBe("refused");
  });

  it("OpenAI: a content_filter finish is refused", async () => {
    faked = fakeThirdParties(
      withBody({
        choices: [{ index: 0, message: { role: "assistant", content: null }, finish_reason: "content_filter" }],
      }),
    );
    expect((await failureOf(ask("openai"))).reason).toBe("refused");
  });
});
