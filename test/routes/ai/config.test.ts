import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "../../helpers/api";
import { aiProviders, MODELS } from "../../helpers/fake-ai-provider";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";
import { auditRecords, captureConsole, expectNowhere, newProviderKey, streamWith } from "./helpers";

// The server's configuration (its provider keys, the compatible server's base URL, whether audit
// records keep prompts) is read from the Worker's bindings: these tests run the app with bindings
// of their own.

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

describe("the server's own provider keys", () => {
  it("are used when the caller sends no apiKey, and never shown", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const serverKey = newProviderKey();
    const res = await streamWith({ ANTHROPIC_API_KEY: serverKey }, user, "anthropic", {
      model: MODELS.anthropic,
      prompt: "Hi",
    });
    expect(res.events.at(-1)?.event).toBe("done");
    expect(faked.requests[0]?.headers.get("x-api-key")).toBe(serverKey);
    const [record] = await auditRecords(user.id);
    expect(record?.properties).toMatchObject({ provider: "anthropic", credential: "server", status: "ok" });
    expectNowhere(serverKey, res.text, consoleCapture.lines, record?.raw);
  });

  it("give way to the caller's own key", async () => {
    faked = fakeThirdParties(aiProviders());
    const callerKey = newProviderKey();
    await streamWith({ OPENAI_API_KEY: newProviderKey() }, await createUser(), "openai", {
      model: MODELS.openai,
      prompt: "Hi",
      apiKey: callerKey,
    });
    expect(faked.requests[0]?.headers.get("Authorization")).toBe(`Bearer ${callerKey}`);
  });

  it("rejected by the provider: a 502 error event naming the setting for the operator, not a 401 for the caller", async () => {
    faked = fakeThirdParties(() => new Response("", { status: 401 }));
    const serverKey = newProviderKey();
    const res = await streamWith({ MISTRAL_API_KEY: serverKey }, await createUser(), "mistral", {
      model: MODELS.mistral,
      prompt: "Hi",
    });
    expect(res.events).toEqual([
      {
        event: "error",
        data: {
          status: 502,
          responseStatus: 401,
          message: expect.stringMatching(/^The provider rejected the API key .*MISTRAL_API_KEY/),
          timestamp: expect.any(String),
        },
      },
    ]);
    expectNowhere(serverKey, res.text, consoleCapture.lines);
  });

  it.each([
    ["openai", "OPENAI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["gemini", "GEMINI_API_KEY"],
    ["mistral", "MISTRAL_API_KEY"],
    ["groq", "GROQ_API_KEY"],
  ])("%s without any key is a 400 naming %s, before any call", async (provider, setting) => {
    faked = fakeThirdParties(aiProviders());
    const res = await streamWith({ [setting]: "" }, await createUser(), provider, { model: "m", prompt: "Hi" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { provider, setting } });
    expect(faked.requests).toHaveLength(0);
  });
});

describe("the openai-compatible provider", () => {
  it("calls {OPENAI_COMPATIBLE_BASE_URL}/chat/completions, without Authorization when no key is configured", async () => {
    faked = fakeThirdParties((request) =>
      aiProviders()(
        new Request(request.url.replace("https://models.internal:8000", "http://127.0.0.1:11434"), request),
      ),
    );
    const res = await streamWith(
      { OPENAI_COMPATIBLE_BASE_URL: "https://models.internal:8000/v1/" },
      await createUser(),
      "openai-compatible",
      { model: "qwen2.5:7b", prompt: "Hi" },
    );
    expect(res.events.at(-1)?.event).toBe("done");
    expect(faked.requests[0]?.url).toBe("https://models.internal:8000/v1/chat/completions");
    expect(faked.requests[0]?.headers.has("Authorization")).toBe(false);
  });

  it("sends OPENAI_COMPATIBLE_API_KEY as a bearer token when configured", async () => {
    faked = fakeThirdParties(aiProviders());
    const serverKey = newProviderKey();
    await streamWith({ OPENAI_COMPATIBLE_API_KEY: serverKey }, await createUser(), "openai-compatible", {
      model: "llama3.2:3b",
      prompt: "Hi",
    });
    expect(faked.requests[0]?.headers.get("Authorization")).toBe(`Bearer ${serverKey}`);
    expectNowhere(serverKey, consoleCapture.lines);
  });

  it.each([
    ["unset", ""],
    ["not a URL", "localhost:11434"],
    ["not http(s)", "ftp://models.internal/v1"],
  ])("503 `unavailable` naming OPENAI_COMPATIBLE_BASE_URL when it is %s, before any stream", async (_name, value) => {
    faked = fakeThirdParties(aiProviders());
    const res = await streamWith({ OPENAI_COMPATIBLE_BASE_URL: value }, await createUser(), "openai-compatible", {
      model: "llama3.2:3b",
      prompt: "Hi",
      apiKey: "k",
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      code: "unavailable",
      error: expect.stringContaining("not configured"),
      details: { setting: "OPENAI_COMPATIBLE_BASE_URL" },
    });
    expect(faked.requests).toHaveLength(0);
  });
});

describe("the openai-compatible base URL is held to https", () => {
  it.each([
    ["http to another host", "http://models.example.test/v1"],
    ["credentials", "https://user:pass@models.example.test/v1"],
    ["a query string", "https://models.example.test/v1?x=1"],
  ])("503 for %s, before any stream and without calling it", async (_name, url) => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const res = await streamWith({ OPENAI_COMPATIBLE_BASE_URL: url }, user, "openai-compatible", {
      model: "llama3.2:3b",
      prompt: "Hi",
    });
    expect(res.status).toBe(503);
    expect(res.text).not.toContain("models.example.test");
    expect(faked.requests).toHaveLength(0);
  });
});

describe("AI_AUDIT_PROMPTS", () => {
  const body = {
    model: MODELS.groq,
    system: "Be terse.",
    messages: [{ role: "user", content: "The launch code word is marmalade" }],
    apiKey: "k",
  };

  it('"true": the audit record keeps the prompt (system and messages), never the key', async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await streamWith({ AI_AUDIT_PROMPTS: "true" }, user, "groq", body);
    const [record] = await auditRecords(user.id);
    expect(record?.properties.prompt).toEqual({
      system: "Be terse.",
      messages: [{ role: "user", content: "The launch code word is marmalade" }],
    });
    expect(JSON.stringify(record?.raw)).not.toContain('"apiKey"');
  });

  it("otherwise: no prompt text in the record", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await streamWith({ AI_AUDIT_PROMPTS: "false" }, user, "groq", body);
    const [record] = await auditRecords(user.id);
    expect(record?.properties).not.toHaveProperty("prompt");
    expect(JSON.stringify(record?.raw)).not.toContain("marmalade");
  });
});
