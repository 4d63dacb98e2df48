import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser, type TestUser } from "../../helpers/api";
import { aiProviders, MODELS } from "../../helpers/fake-ai-provider";
import { startEarlyInAWindow } from "../../helpers/rate-windows";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";
import { auditRecords, captureConsole, eventually, newProviderKey, openStreamWith, streamWith } from "./helpers";

// What one user may spend of the server's money on AI streams: a rate, a number of streams at
// once and a ceiling on each answer's tokens, whenever the server's resources do the work (its own
// provider key, or its openai-compatible server whatever key the caller sends). The caller's own
// apiKey to a named provider is exempt.

let faked: FakedThirdParties | undefined;
// Each stream logs a line; a test's own lines are kept out of the run's output.
beforeEach(() => captureConsole().restore);
afterEach(() => faked?.restore());

const SERVER_KEY: Partial<Env> = { OPENAI_API_KEY: "sk-server-key-of-the-tests", ANTHROPIC_API_KEY: "sk-ant-server" };
const prompt = { model: MODELS.openai, prompt: "Hi" };
/** A call to the operator's openai-compatible server carrying a key of the caller's. */
const compatibleWithKey = () => ({ model: MODELS["openai-compatible"], prompt: "Hi", apiKey: newProviderKey() });

/** The JSON bodies the provider received, in order. */
async function sentBodies(): Promise<Record<string, unknown>[]> {
  return Promise.all((faked?.requests ?? []).map((request) => request.clone().json<Record<string, unknown>>()));
}

/** The user's live leases (streams on the server's key that count against the cap). */
async function liveLeases(user: TestUser): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM ai_stream_leases WHERE user_id = ? AND expires_at > ?")
    .bind(user.id, Date.now())
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("the rate of streams on the server's key, per user", () => {
  it("past 20 a minute: a 429 with Retry-After before any call to the provider; others and own keys unaffected", async () => {
    await startEarlyInAWindow();
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    for (let i = 0; i < 20; i++) {
      const res = await streamWith(SERVER_KEY, user, "openai", prompt);
      expect(res.events.at(-1)?.event, `stream ${i + 1}`).toBe("done");
    }
    const refused = await streamWith(SERVER_KEY, user, "openai", prompt);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(refused.body).toMatchObject({
      code: "rate_limited",
      details: { limit: "rate", policy: "ai-streams", retry_after_seconds: 60 },
    });
    // The limit reached first, then what is left of the credential's own quota (which admitted the request).
    expect(refused.headers.get("RateLimit")).toMatch(/^"ai-streams";r=0;t=60, "default";r=\d+;t=\d+$/);
    expect(faked.requests).toHaveLength(20);
    expect(await auditRecords(user.id)).toHaveLength(20);
    // Another provider on the server's key counts with it; the caller's own key does not.
    expect((await streamWith(SERVER_KEY, user, "anthropic", { model: MODELS.anthropic, prompt: "Hi" })).status).toBe(
      429,
    );
    const own = await streamWith(SERVER_KEY, user, "openai", { ...prompt, apiKey: newProviderKey() });
    expect(own.events.at(-1)?.event).toBe("done");
    // Another user has their own allowance.
    expect((await streamWith(SERVER_KEY, await createUser(), "openai", prompt)).status).toBe(200);
  });

  it("the openai-compatible server without the caller's key is the server's too", async () => {
    await startEarlyInAWindow();
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const body = { model: MODELS["openai-compatible"], prompt: "Hi" };
    for (let i = 0; i < 20; i++) expect((await streamWith({}, user, "openai-compatible", body)).status).toBe(200);
    expect((await streamWith({}, user, "openai-compatible", body)).status).toBe(429);
  });

  it("the openai-compatible server with a key of the caller's is the server's too: the key does not exempt it", async () => {
    await startEarlyInAWindow();
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    for (let i = 0; i < 20; i++) {
      expect((await streamWith({}, user, "openai-compatible", compatibleWithKey())).status, `stream ${i + 1}`).toBe(
        200,
      );
    }
    const refused = await streamWith({}, user, "openai-compatible", compatibleWithKey());
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "rate_limited", details: { limit: "rate" } });
    // Nothing suggests a key would help: on this provider it does not.
    expect(refused.body?.error).not.toContain("apiKey");
    expect(faked.requests).toHaveLength(20);
  });

  it("a caller's own key is not limited: 25 streams in a row all run", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    for (let i = 0; i < 25; i++) {
      const res = await streamWith(SERVER_KEY, user, "openai", { ...prompt, apiKey: newProviderKey() });
      expect(res.status, `stream ${i + 1}`).toBe(200);
    }
    expect(await liveLeases(user)).toBe(0);
  });
});

describe("streams on the server's key at once, per user", () => {
  it("of ten started together with a cap of three, three run and seven are refused with 429; a slot frees when a stream ends", async () => {
    faked = fakeThirdParties(aiProviders(undefined, { hang: true }));
    const user = await createUser();
    const limits = { ...SERVER_KEY, AI_MAX_CONCURRENT_STREAMS: "3" };
    const opened = await Promise.all(Array.from({ length: 10 }, () => openStreamWith(limits, user, "openai", prompt)));
    const running = opened.filter(({ response }) => response.status === 200);
    const refused = opened.filter(({ response }) => response.status === 429);
    expect(running).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const { response } of refused) {
      expect(response.headers.get("Retry-After")).toBe("10");
      expect(response.headers.get("RateLimit")).toMatch(/^"ai-concurrent-streams";r=0;t=10, "default";r=\d+;t=\d+$/);
      expect(await response.json()).toMatchObject({
        code: "rate_limited",
        details: {
          limit: "concurrency",
          policy: "ai-concurrent-streams",
          max_concurrent_streams: 3,
          retry_after_seconds: 10,
        },
      });
    }
    expect(await liveLeases(user)).toBe(3);
    await eventually(() => faked?.requests.length === 3, "three calls to the provider");

    // The client of one stream goes away: its stream ends, and its slot is free again.
    await running[0]?.response.body?.cancel();
    await eventually(async () => (await liveLeases(user)) === 2, "the lease to be released");
    const next = await openStreamWith(limits, user, "openai", prompt);
    expect(next.response.status).toBe(200);
    expect((await openStreamWith(limits, user, "openai", prompt)).response.status).toBe(429);
    // A caller's own key still runs beside them.
    const own = await openStreamWith(limits, user, "openai", { ...prompt, apiKey: newProviderKey() });
    expect(own.response.status).toBe(200);

    for (const { response } of [...running.slice(1), next, own]) await response.body?.cancel();
    await eventually(async () => (await liveLeases(user)) === 0, "every lease to be released");
  });

  it("counts the openai-compatible server's streams whatever key the caller sends it", async () => {
    faked = fakeThirdParties(aiProviders(undefined, { hang: true }));
    const user = await createUser();
    const limits = { AI_MAX_CONCURRENT_STREAMS: "3" };
    const running = [];
    for (let i = 0; i < 3; i++) {
      const opened = await openStreamWith(limits, user, "openai-compatible", compatibleWithKey());
      expect(opened.response.status, `stream ${i + 1}`).toBe(200);
      running.push(opened);
    }
    const refused = await openStreamWith(limits, user, "openai-compatible", compatibleWithKey());
    expect(refused.response.status).toBe(429);
    expect(await refused.response.json()).toMatchObject({
      code: "rate_limited",
      details: { limit: "concurrency", max_concurrent_streams: 3 },
    });
    expect(await liveLeases(user)).toBe(3);
    for (const { response } of running) await response.body?.cancel();
    await eventually(async () => (await liveLeases(user)) === 0, "every lease to be released");
  });

  it("a stream that ends normally releases its slot", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const limits = { ...SERVER_KEY, AI_MAX_CONCURRENT_STREAMS: "1" };
    for (let i = 0; i < 3; i++) expect((await streamWith(limits, user, "openai", prompt)).status).toBe(200);
    expect(await liveLeases(user)).toBe(0);
  });

  it("counts streams other isolates run (their leases), and lets a crashed one's expired lease go", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const now = Date.now();
    const lease = (expiresAt: number) =>
      env.DB.prepare("INSERT INTO ai_stream_leases (id, user_id, expires_at) VALUES (?, ?, ?)").bind(
        crypto.randomUUID(),
        user.id,
        expiresAt,
      );
    await env.DB.batch([lease(now - 1000), lease(now - 1), lease(now + 600_000), lease(now + 600_000)]);
    const limits = { ...SERVER_KEY, AI_MAX_CONCURRENT_STREAMS: "3" };
    // Two live leases: one slot left. The two expired ones do not count, and are swept.
    expect((await streamWith(limits, user, "openai", prompt)).status).toBe(200);
    const { count } = (await env.DB.prepare("SELECT count(*) AS count FROM ai_stream_leases WHERE user_id = ?")
      .bind(user.id)
      .first<{ count: number }>()) ?? { count: -1 };
    expect(count).toBe(2);
    await lease(now + 600_000).run();
    const refused = await streamWith(limits, user, "openai", prompt);
    expect(refused.status).toBe(429);
    expect(faked.requests).toHaveLength(1);
    expect(await auditRecords(user.id)).toHaveLength(1);
  });
});

describe("the token ceiling on the server's key (AI_MAX_OUTPUT_TOKENS)", () => {
  const ceiling = { ...SERVER_KEY, AI_MAX_OUTPUT_TOKENS: "1000" };

  it("is the provider's max tokens when the request names none", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await streamWith(ceiling, user, "openai", prompt);
    await streamWith(ceiling, user, "anthropic", { model: MODELS.anthropic, prompt: "Hi" });
    const [openai, anthropic] = await sentBodies();
    expect(openai?.max_completion_tokens).toBe(1000);
    expect(anthropic?.max_tokens).toBe(1000);
  });

  it("defaults to 4096 when not configured", async () => {
    faked = fakeThirdParties(aiProviders());
    await streamWith({ ...SERVER_KEY, AI_MAX_OUTPUT_TOKENS: "" }, await createUser(), "openai", prompt);
    expect((await sentBodies())[0]?.max_completion_tokens).toBe(4096);
  });

  it("passes a smaller max_tokens as asked, and the ceiling itself", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await streamWith(ceiling, user, "openai", { ...prompt, max_tokens: 64 });
    await streamWith(ceiling, user, "openai", { ...prompt, max_tokens: 1000 });
    expect((await sentBodies()).map((body) => body.max_completion_tokens)).toEqual([64, 1000]);
  });

  it("refuses a larger max_tokens with a 400 naming the ceiling, before any call and without taking a slot", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const res = await streamWith(ceiling, user, "openai", { ...prompt, max_tokens: 1001 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "validation_failed",
      error: expect.stringContaining("1000"),
      details: { field: "max_tokens", maximum: 1000 },
    });
    expect(faked.requests).toHaveLength(0);
    expect(await liveLeases(user)).toBe(0);
  });

  it("applies to the openai-compatible server without the caller's key", async () => {
    faked = fakeThirdParties(aiProviders());
    await streamWith(ceiling, await createUser(), "openai-compatible", {
      model: MODELS["openai-compatible"],
      prompt: "Hi",
    });
    expect((await sentBodies())[0]?.max_tokens).toBe(1000);
  });

  it("applies to the openai-compatible server with a key of the caller's: a larger max_tokens is a 400, none is the ceiling", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    const refused = await streamWith(ceiling, user, "openai-compatible", {
      ...compatibleWithKey(),
      max_tokens: 999_999,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "validation_failed", details: { field: "max_tokens", maximum: 1000 } });
    expect(faked.requests).toHaveLength(0);
    await streamWith(ceiling, user, "openai-compatible", compatibleWithKey());
    expect((await sentBodies())[0]?.max_tokens).toBe(1000);
  });

  it("does not apply to the caller's own key", async () => {
    faked = fakeThirdParties(aiProviders());
    const user = await createUser();
    await streamWith(ceiling, user, "openai", { ...prompt, apiKey: newProviderKey(), max_tokens: 100_000 });
    await streamWith(ceiling, user, "openai", { ...prompt, apiKey: newProviderKey() });
    const [large, absent] = await sentBodies();
    expect(large?.max_completion_tokens).toBe(100_000);
    expect(absent).not.toHaveProperty("max_completion_tokens");
  });
});
