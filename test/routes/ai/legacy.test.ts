import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NAMED_PROVIDERS } from "../../../src/domain/ai-providers";
import { api, newClientAddress } from "../../helpers/api";
import {
  aiProviders,
  DEFAULT_ANSWER,
  MODELS,
  PROVIDER_ENDPOINTS,
  streamedResponse,
} from "../../helpers/fake-ai-provider";
import { startEarlyInAWindow } from "../../helpers/rate-windows";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";
import { auditRecords, captureConsole, expectNowhere, LEGACY, newProviderKey } from "./helpers";

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

const clientAddress = newClientAddress;

const prompt = (path: string, body: unknown, address = clientAddress()) =>
  api<Record<string, unknown>>(path, { method: "POST", body, headers: { "CF-Connecting-IP": address } });

describe.each(NAMED_PROVIDERS)("POST /api/ai/%s (legacy, open)", (provider) => {
  const model = MODELS[provider];

  it("200 {response}: the whole answer, from the provider called with the caller's key", async () => {
    faked = fakeThirdParties(aiProviders());
    const key = newProviderKey();
    const res = await prompt(LEGACY(provider), { prompt: "Write a haiku", model, apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ response: DEFAULT_ANSWER.texts.join("") });
    const [request] = faked.requests;
    expect(request?.url).toBe(PROVIDER_ENDPOINTS[provider](model));
    const sent = [...(request?.headers ?? [])].map(([, value]) => value).join(" ");
    expect(sent).toContain(key);
    expectNowhere(key, res.body, [...res.headers], consoleCapture.lines);
  });

  it("reads a stream split into single bytes whole", async () => {
    faked = fakeThirdParties(aiProviders(DEFAULT_ANSWER, { split: "every-byte" }));
    const res = await prompt(LEGACY(provider), { prompt: "Hi", model, apiKey: newProviderKey() });
    expect(res.body).toEqual({ response: DEFAULT_ANSWER.texts.join("") });
  });

  it.each([
    [401, {}, "The provider rejected the API key", {}],
    [429, { "Retry-After": "20" }, "The provider rate-limited this key; retry after 20 s", { retry_after_seconds: 20 }],
    [500, {}, "The provider failed (HTTP 500); retry later", {}],
  ])(
    "500 {error} when the provider answers %i, never with the key or the provider's body",
    async (status, headers, message, details) => {
      const key = newProviderKey();
      faked = fakeThirdParties(() => new Response(`upstream says: bad key ${key}`, { status, headers }));
      const res = await prompt(LEGACY(provider), { prompt: "Hi", model, apiKey: key });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: expect.stringContaining(message),
        code: "upstream_failed",
        details: { provider, provider_status: status, ...details },
        request_id: expect.any(String),
      });
      expect(JSON.stringify(res.body)).not.toContain("upstream says");
      expectNowhere(key, res.body, [...res.headers], consoleCapture.lines);
    },
  );

  it("500 {error} when the provider cannot be reached, without the URL", async () => {
    const key = newProviderKey();
    faked = fakeThirdParties((request) => {
      throw new TypeError(`getaddrinfo ENOTFOUND ${request.url} ${key}`);
    });
    const res = await prompt(LEGACY(provider), { prompt: "Hi", model, apiKey: key });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "The provider could not be reached; retry later",
      code: "upstream_failed",
      details: { provider },
      request_id: expect.any(String),
    });
    expectNowhere(key, res.body, consoleCapture.lines);
  });

  it("500 when the provider's stream breaks off: a partial answer is not an answer", async () => {
    faked = fakeThirdParties((request) =>
      streamedResponse('data: {"choices":[{"delta":{"content":"Half"}}]}\n\n', { signal: request.signal }),
    );
    const res = await prompt(LEGACY(provider), { prompt: "Hi", model, apiKey: "k" });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: "upstream_failed" });
  });

  it.each([
    ["prompt", { model, apiKey: "KEY" }],
    ["model", { prompt: "Hi", apiKey: "KEY" }],
    ["apiKey", { prompt: "Hi", model }],
  ])("400 when %s is missing, never echoing the key, and nothing is called", async (field, body) => {
    faked = fakeThirdParties(aiProviders());
    const key = newProviderKey();
    const res = await prompt(
      LEGACY(provider),
      Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v === "KEY" ? key : v])),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { issues: [{ path: field }] } });
    expect(faked.requests).toHaveLength(0);
    expectNowhere(key, res.body, consoleCapture.lines);
  });

  it("writes no audit record (an open call has no user to own one) but one log line without key or prompt", async () => {
    faked = fakeThirdParties(aiProviders());
    const key = newProviderKey();
    const before = (await auditRecords(null)).length;
    await prompt(LEGACY(provider), { prompt: "A secret plan for Tuesday", model, apiKey: key });
    expect((await auditRecords(null)).length).toBe(before);
    const line = consoleCapture.lines.find((l) => l.includes('"route":"legacy"'));
    expect(JSON.parse(line ?? "{}")).toMatchObject({ service: "ai", provider, model, status: "ok" });
    expectNowhere(key, consoleCapture.lines);
    expectNowhere("secret plan", consoleCapture.lines);
  });
});

describe("the legacy AI paths", () => {
  it.each(["/api/ai/unknown", "/api/ai/openai-compatible", "/api/ai/OpenAI"])(
    "404 for an unknown provider name (%s)",
    async (path) => {
      faked = fakeThirdParties(aiProviders());
      const res = await prompt(path, { prompt: "Hi", model: "m", apiKey: "k" });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found", error: expect.any(String) });
      expect(faked.requests).toHaveLength(0);
    },
  );

  it("never use the server's keys: apiKey is required even where one is configured", async () => {
    const res = await prompt(LEGACY("openai"), { prompt: "Hi", model: "gpt-4o-mini" });
    expect(res.status).toBe(400);
  });

  it("are rate limited per client address: past 30 a minute a 429 with Retry-After, before any provider call", async () => {
    await startEarlyInAWindow();
    faked = fakeThirdParties(aiProviders());
    const address = clientAddress();
    const body = { prompt: "Hi", model: "gpt-4o-mini", apiKey: "k" };
    for (let i = 0; i < 30; i++) expect((await prompt(LEGACY("openai"), body, address)).status).toBe(200);
    const refused = await prompt(LEGACY("openai"), body, address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(refused.body).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 60 } });
    expect(faked.requests).toHaveLength(30);
    // Another address is counted on its own.
    expect((await prompt(LEGACY("openai"), body, clientAddress())).status).toBe(200);
    // Each route has its own counters: the same address still reaches another provider, and sign-in.
    expect((await prompt(LEGACY("groq"), body, address)).status).toBe(200);
    const signIn = await api("/auth/complete", {
      method: "POST",
      body: { sessionId: "dev:limits@example.com" },
      headers: { "CF-Connecting-IP": address },
    });
    expect(signIn.status).toBe(200);
  });

  it("count an IPv6 client by its /64: rotating addresses inside it does not get round the limit", async () => {
    faked = fakeThirdParties(aiProviders());
    const prefix = newClientAddress().replace(/::1$/, "");
    const body = { prompt: "Hi", model: "gpt-4o-mini", apiKey: "k" };
    for (let i = 1; i <= 30; i++) expect((await prompt(LEGACY("mistral"), body, `${prefix}::${i}`)).status).toBe(200);
    expect((await prompt(LEGACY("mistral"), body, `${prefix}:0:0:0:abcd`)).status).toBe(429);
  });
});
