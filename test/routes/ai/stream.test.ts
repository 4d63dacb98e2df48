import { env, SELF } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix } from "../../helpers/auth-matrix";
import {
  AI_PROVIDERS,
  type AiProvider,
  aiProviders,
  DEFAULT_ANSWER,
  inStreamFailure,
  MODELS,
  PROVIDER_ENDPOINTS,
  providerSse,
  streamedResponse,
} from "../../helpers/fake-ai-provider";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";
import {
  auditRecords,
  captureConsole,
  deltaText,
  eventually,
  expectNowhere,
  names,
  newProviderKey,
  STREAM,
  streamAi,
} from "./helpers";

let faked: FakedThirdParties | undefined;
let consoleCapture: ReturnType<typeof captureConsole>;
beforeEach(() => {
  consoleCapture = captureConsole();
});
afterEach(() => {
  faked?.restore();
  faked = undefined;
  consoleCapture.restore();
});

const SYSTEM = "You are terse.";
const CONVERSATION = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Hi" },
  { role: "assistant", content: "Hello" },
  { role: "user", content: "Write a haiku" },
];

/** What each provider must receive for CONVERSATION with SYSTEM, temperature 0.3 and max_tokens 64. */
const EXPECTED_REQUESTS: Record<
  AiProvider,
  (key: string) => { headers: Record<string, string>; absent: string[]; body: unknown }
> = {
  openai: (key) => ({
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    absent: ["x-api-key", "x-goog-api-key"],
    body: {
      model: MODELS.openai,
      messages: [{ role: "system", content: SYSTEM }, ...CONVERSATION],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_completion_tokens: 64,
    },
  }),
  anthropic: (key) => ({
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    absent: ["authorization", "x-goog-api-key"],
    body: {
      model: MODELS.anthropic,
      max_tokens: 64,
      messages: CONVERSATION.slice(1),
      stream: true,
      system: `${SYSTEM}\n\nBe brief.`,
      temperature: 0.3,
    },
  }),
  gemini: (key) => ({
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    absent: ["authorization", "x-api-key"],
    body: {
      contents: [
        { role: "user", parts: [{ text: "Hi" }] },
        { role: "model", parts: [{ text: "Hello" }] },
        { role: "user", parts: [{ text: "Write a haiku" }] },
      ],
      systemInstruction: { parts: [{ text: `${SYSTEM}\n\nBe brief.` }] },
      generationConfig: { temperature: 0.3, maxOutputTokens: 64 },
    },
  }),
  mistral: (key) => ({
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    absent: ["x-api-key", "x-goog-api-key"],
    body: {
      model: MODELS.mistral,
      messages: [{ role: "system", content: SYSTEM }, ...CONVERSATION],
      stream: true,
      temperature: 0.3,
      max_tokens: 64,
    },
  }),
  groq: (key) => ({
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    absent: ["x-api-key", "x-goog-api-key"],
    body: {
      model: MODELS.groq,
      messages: [{ role: "system", content: SYSTEM }, ...CONVERSATION],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_completion_tokens: 64,
    },
  }),
  "openai-compatible": (key) => ({
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    absent: ["x-api-key", "x-goog-api-key"],
    body: {
      model: MODELS["openai-compatible"],
      messages: [{ role: "system", content: SYSTEM }, ...CONVERSATION],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_tokens: 64,
    },
  }),
};

const EXPECTED_USAGE = { input_tokens: 5, output_tokens: 7, total_tokens: 12 };

/** Checks a stream's text, the stored audit records and every console line for the key. */
async function expectKeyNowhere(key: string, user: TestUser, ...texts: unknown[]) {
  expectNowhere(
    key,
    ...texts,
    consoleCapture.lines,
    (await auditRecords(user.id)).map((row) => row.raw),
  );
}

describe.each(AI_PROVIDERS)("POST /api/v1/ai/%s/stream", (provider) => {
  const model = MODELS[provider];
  const prompt = (key: string) => ({ model, prompt: "Write a haiku", apiKey: key });

  it("maps the request to the provider's API: URL, auth header, body", async () => {
    // A body is read while the request it belongs to is being served.
    const bodies: unknown[] = [];
    const answer = aiProviders();
    faked = fakeThirdParties(async (request) => {
      bodies.push(await request.clone().json());
      return answer(request);
    });
    const user = await createUser();
    const key = newProviderKey();
    const res = await streamAi(user, provider, {
      model,
      system: SYSTEM,
      messages: CONVERSATION,
      temperature: 0.3,
      max_tokens: 64,
      apiKey: key,
    });
    expect(res.status).toBe(200);
    expect(faked.requests).toHaveLength(1);
    const [request] = faked.requests;
    if (!request) throw new Error("no request");
    const expected = EXPECTED_REQUESTS[provider](key);
    expect(request.method).toBe("POST");
    expect(request.url).toBe(PROVIDER_ENDPOINTS[provider](model));
    expect(request.url).not.toContain(key);
    for (const [name, value] of Object.entries(expected.headers)) expect(request.headers.get(name), name).toBe(value);
    for (const name of expected.absent) expect(request.headers.has(name), name).toBe(false);
    expect(bodies).toEqual([expected.body]);
  });

  it("passes a normal stream through as start, deltas and done", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const key = newProviderKey();
    const res = await streamAi(user, provider, prompt(key));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/event-stream");
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(res.events).toEqual([
      { event: "start", data: { provider, model, request_id: res.headers.get("X-Request-Id") } },
      ...DEFAULT_ANSWER.texts.map((text) => ({ event: "delta", data: { text } })),
      { event: "done", data: { finish_reason: "stop", usage: EXPECTED_USAGE } },
    ]);
    await expectKeyNowhere(key, user, res.text, [...res.headers]);
  });

  it("normalises the finish reason of an answer cut by the token limit to `length`", async () => {
    faked = fakeThirdParties(aiProviders({ ...DEFAULT_ANSWER, finish: "length" }));
    const res = await streamAi(await createUser(), provider, prompt(newProviderKey()));
    expect(res.events.at(-1)).toEqual({ event: "done", data: { finish_reason: "length", usage: EXPECTED_USAGE } });
  });

  it.each([
    ["every byte (inside events, lines and UTF-8 characters)", "every-byte" as const],
    ["3-byte chunks", 3],
    ["7-byte chunks", 7],
  ])("reads a stream split into %s whole", async (_name, split) => {
    faked = fakeThirdParties(aiProviders(DEFAULT_ANSWER, { split }));
    const res = await streamAi(await createUser(), provider, prompt(newProviderKey()));
    expect(names(res.events)).toEqual(["start", "delta", "delta", "delta", "done"]);
    expect(res.events.filter((e) => e.event === "delta").map((e) => e.data)).toEqual(
      DEFAULT_ANSWER.texts.map((text) => ({ text })),
    );
    expect(res.text).not.toContain("\uFFFD");
    expect(res.events.at(-1)?.data).toEqual({ finish_reason: "stop", usage: EXPECTED_USAGE });
  });

  it("401 from the provider: one error event saying the key was rejected, never the key or the provider's body", async () => {
    const user = await createUser();
    const key = newProviderKey();
    faked = fakeThirdParties(
      () =>
        new Response(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}` } }), {
          status: 401,
          headers: { "Content-Type": "application/json" },
        }),
    );
    const res = await streamAi(user, provider, prompt(key));
    expect(res.status).toBe(200);
    expect(res.events).toEqual([
      {
        event: "error",
        data: {
          status: 401,
          responseStatus: 401,
          message: expect.stringMatching(/^The provider rejected the API key/),
          timestamp: expect.any(String),
        },
      },
    ]);
    expect(res.text).not.toMatch(/Incorrect API key|api\.|https?:/);
    await expectKeyNowhere(key, user, res.text);
  });

  it("429 from the provider: an error event with status 429 and the Retry-After in the message, never a delta or done", async () => {
    const user = await createUser();
    const key = newProviderKey();
    faked = fakeThirdParties(
      () => new Response(`rate limited: ${key}`, { status: 429, headers: { "Retry-After": "20" } }),
    );
    const res = await streamAi(user, provider, prompt(key));
    expect(res.status).toBe(200);
    expect(res.events).toEqual([
      {
        event: "error",
        data: {
          status: 429,
          responseStatus: 429,
          retryAfterSeconds: 20,
          message: "The provider rate-limited this key; retry after 20 s",
          timestamp: expect.any(String),
        },
      },
    ]);
    await expectKeyNowhere(key, user, res.text);
  });

  it("500 from the provider: an error event with status 502", async () => {
    const user = await createUser();
    const key = newProviderKey();
    faked = fakeThirdParties(() => new Response(`internal error for ${key}`, { status: 500 }));
    const res = await streamAi(user, provider, prompt(key));
    expect(res.events).toEqual([
      {
        event: "error",
        data: {
          status: 502,
          responseStatus: 500,
          message: "The provider failed (HTTP 500); retry later",
          timestamp: expect.any(String),
        },
      },
    ]);
    await expectKeyNowhere(key, user, res.text);
  });

  it("a redirect is not followed (the key would go with it): an error event, one request sent", async () => {
    const user = await createUser();
    const key = newProviderKey();
    faked = fakeThirdParties(
      () => new Response(null, { status: 302, headers: { Location: "https://elsewhere.example.test/steal" } }),
    );
    const res = await streamAi(user, provider, prompt(key));
    expect(faked.requests).toHaveLength(1);
    expect(faked.requests[0]?.redirect).toBe("manual");
    expect(res.events).toHaveLength(1);
    expect(res.events[0]).toMatchObject({ event: "error", data: { responseStatus: 302 } });
    expect(res.text).not.toContain("elsewhere.example.test");
    await expectKeyNowhere(key, user, res.text);
  });

  it("a network failure: an error event without the URL or the underlying message", async () => {
    const user = await createUser();
    const key = newProviderKey();
    faked = fakeThirdParties((request) => {
      throw new TypeError(`connect ECONNREFUSED ${request.url} (key ${key})`);
    });
    const res = await streamAi(user, provider, prompt(key));
    expect(res.events).toEqual([
      {
        event: "error",
        data: { status: 502, message: "The provider could not be reached; retry later", timestamp: expect.any(String) },
      },
    ]);
    expect(res.text).not.toMatch(/ECONNREFUSED|https?:/);
    await expectKeyNowhere(key, user, res.text);
  });

  it("a failure the provider reports mid-stream: the text so far, then an error event (429), no done", async () => {
    const whole = providerSse(provider, { texts: ["Half an", " answer"], usage: { input: 5, output: 2 } });
    const separator = provider === "gemini" ? "\r\n\r\n" : "\n\n";
    // The first text's event, then the provider's own error event instead of the rest.
    const end = whole.indexOf(separator, whole.indexOf("Half an")) + separator.length;
    faked = fakeThirdParties((request) =>
      streamedResponse(whole.slice(0, end) + inStreamFailure(provider, "rate_limit"), { signal: request.signal }),
    );
    const res = await streamAi(await createUser(), provider, prompt(newProviderKey()));
    expect(names(res.events).filter((name) => name !== "start")).toEqual(["delta", "error"]);
    expect(deltaText(res.events)).toBe("Half an");
    expect(res.events.at(-1)?.data).toMatchObject({ status: 429, responseStatus: 429 });
    expect(res.text).not.toMatch(/sk-should-never-show|Overloaded|quota|busy/);
  });

  it("a stream that ends before the answer is complete: an error event, not done", async () => {
    const whole = providerSse(provider);
    faked = fakeThirdParties((request) =>
      streamedResponse(whole.slice(0, Math.floor(whole.length / 2)), { signal: request.signal }),
    );
    const res = await streamAi(await createUser(), provider, prompt(newProviderKey()));
    expect(res.events.at(-1)).toEqual({
      event: "error",
      data: {
        status: 502,
        message: "The provider's stream ended before the answer was complete; retry",
        timestamp: expect.any(String),
      },
    });
    expect(names(res.events)).not.toContain("done");
  });

  it("a client that disconnects aborts the upstream call, and the audit record says so (499)", async () => {
    const user = await createUser();
    const whole = providerSse(provider);
    faked = fakeThirdParties((request) =>
      streamedResponse(whole.slice(0, Math.floor(whole.length / 2)), { hang: true, signal: request.signal }),
    );
    const res = await SELF.fetch(`http://workspace.test${STREAM(provider)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${user.key}`, "Content-Type": "application/json" },
      body: JSON.stringify(prompt(newProviderKey())),
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: start");
    await reader.cancel();
    await eventually(() => faked?.requests[0]?.signal.aborted === true, "the upstream request to be aborted");
    await eventually(async () => (await auditRecords(user.id)).length === 1, "the audit record");
    expect((await auditRecords(user.id))[0]?.properties).toMatchObject({ provider, status: 499 });
  });

  it("writes one audit record for the caller: provider, model, status, latency, usage, finish reason; no key, no prompt", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const key = newProviderKey();
    const res = await streamAi(user, provider, { model, prompt: "A secret plan for Tuesday", apiKey: key });
    expect(res.status).toBe(200);
    const records = await auditRecords(user.id);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record?.properties).toEqual({
      provider,
      model,
      status: "ok",
      response_status: 200,
      latency_ms: expect.any(Number),
      usage: EXPECTED_USAGE,
      finish_reason: "stop",
      credential: "caller",
      request_id: res.headers.get("X-Request-Id"),
    });
    expect(JSON.stringify(record?.raw)).not.toContain("secret plan");
    await expectKeyNowhere(key, user, res.text);
  });

  it("records a failed call in the audit with the error's status", async () => {
    faked = fakeThirdParties(() => new Response("slow down", { status: 429, headers: { "Retry-After": "3" } }));
    const user = await createUser();
    await streamAi(user, provider, prompt(newProviderKey()));
    const [record] = await auditRecords(user.id);
    expect(record?.properties).toMatchObject({ provider, status: 429, response_status: 429, finish_reason: null });
  });
});

describe("POST /api/v1/ai/{provider}/stream: provider-specific failures", () => {
  it("Gemini's 400 API_KEY_INVALID is a rejected key (401), not a refused request", async () => {
    const key = newProviderKey();
    faked = fakeThirdParties(
      () =>
        new Response(
          JSON.stringify({
            error: {
              code: 400,
              message: "API key not valid. Please pass a valid API key.",
              status: "INVALID_ARGUMENT",
              details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
            },
          }),
          { status: 400, headers: { "Content-Type": "application/json" } },
        ),
    );
    const user = await createUser();
    const res = await streamAi(user, "gemini", { model: MODELS.gemini, prompt: "Hi", apiKey: key });
    expect(res.events).toEqual([
      {
        event: "error",
        data: {
          status: 401,
          responseStatus: 400,
          message: expect.stringMatching(/^The provider rejected the API key/),
          timestamp: expect.any(String),
        },
      },
    ]);
    expect(res.text).not.toContain("API key not valid");
    await expectKeyNowhere(key, user, res.text);
  });

  it("another 400 is a refused request naming what to check", async () => {
    faked = fakeThirdParties(() => new Response("{}", { status: 400 }));
    const res = await streamAi(await createUser(), "gemini", { model: MODELS.gemini, prompt: "Hi", apiKey: "k" });
    expect(res.events[0]?.data).toMatchObject({ status: 400, responseStatus: 400, message: /check `model`/ });
  });

  it("Anthropic's overloaded error mid-stream is a 503 error event", async () => {
    faked = fakeThirdParties((request) =>
      streamedResponse(inStreamFailure("anthropic", "overloaded"), { signal: request.signal }),
    );
    const res = await streamAi(await createUser(), "anthropic", { model: MODELS.anthropic, prompt: "Hi", apiKey: "k" });
    expect(res.events.at(-1)?.data).toMatchObject({ status: 503, responseStatus: 529 });
  });

  it("a Retry-After given as an HTTP date becomes seconds", async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    faked = fakeThirdParties(() => new Response("", { status: 429, headers: { "Retry-After": at } }));
    const res = await streamAi(await createUser(), "openai", { model: MODELS.openai, prompt: "Hi", apiKey: "k" });
    const data = res.events[0]?.data as { retryAfterSeconds: number; message: string };
    expect(data.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(data.retryAfterSeconds).toBeLessThanOrEqual(31);
    expect(data.message).toMatch(/^The provider rate-limited this key; retry after \d+ s$/);
  });

  it("a 429 without Retry-After says to retry later", async () => {
    faked = fakeThirdParties(() => new Response("", { status: 429 }));
    const res = await streamAi(await createUser(), "groq", { model: MODELS.groq, prompt: "Hi", apiKey: "k" });
    expect(res.events[0]?.data).toMatchObject({
      status: 429,
      message: "The provider rate-limited this key; retry later",
    });
  });
});

describe("POST /api/v1/ai/{provider}/stream: refusals before the stream are HTTP errors", () => {
  const send = async (provider: string, body: unknown) => {
    faked = fakeThirdParties(aiProviders());
    const res = await streamAi(await createUser(), provider, body);
    expect(faked.requests, "no provider was called").toHaveLength(0);
    return res;
  };

  it("404 for an unknown provider, listing the known ones", async () => {
    const res = await send("openai-ish", { model: "m", prompt: "Hi", apiKey: "k" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Unknown AI provider",
      code: "not_found",
      details: { providers: [...AI_PROVIDERS] },
      request_id: expect.any(String),
    });
  });

  it("400 without any key: none in the body, none configured on the server", async () => {
    const res = await send("openai", { model: "gpt-4o-mini", prompt: "Hi" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "validation_failed",
      error: expect.stringContaining("OPENAI_API_KEY"),
      details: { provider: "openai", setting: "OPENAI_API_KEY" },
    });
  });

  it.each([
    ["neither messages nor prompt", { model: "gpt-4o-mini" }],
    ["both messages and prompt", { model: "gpt-4o-mini", prompt: "Hi", messages: [{ role: "user", content: "Hi" }] }],
    ["no model", { prompt: "Hi" }],
    ["a model with spaces", { model: "gpt 4", prompt: "Hi" }],
    ["an unknown role", { model: "m", messages: [{ role: "tool", content: "x" }] }],
    ["an empty message list", { model: "m", messages: [] }],
    ["only system messages", { model: "m", messages: [{ role: "system", content: "Be brief." }] }],
    ["a temperature above 2", { model: "m", prompt: "Hi", temperature: 3 }],
    ["an unknown field", { model: "m", prompt: "Hi", stream: false }],
    ["a key with a line break", { model: "m", prompt: "Hi", apiKey: "sk-a\nb" }],
  ])("400 for %s, never echoing the key", async (_name, body) => {
    const key = newProviderKey();
    const res = await send("openai", { apiKey: key, ...body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
    expectNowhere(key, res.text, consoleCapture.lines);
  });

  it("403 for a read-only API key: a completion is a write (it spends money and leaves a record)", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await env.DB.prepare("UPDATE api_keys SET scopes = 'read' WHERE user_id = ?").bind(user.id).run();
    const res = await streamAi(user, "openai", { model: "gpt-4o-mini", prompt: "Hi", apiKey: "k" });
    expect(res.status).toBe(403);
    expect(faked.requests).toHaveLength(0);
  });
});

describeAuthMatrix({
  name: "POST /api/v1/ai/{provider}/stream",
  method: "POST",
  path: () => STREAM("openai"),
  body: { model: "gpt-4o-mini", prompt: "Hi", apiKey: "sk-unused" },
});
