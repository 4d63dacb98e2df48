import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { type AiProvider, NAMED_PROVIDERS } from "../../../src/domain/ai-providers";
import { actingAs, createContext } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { type CompletionOptions, runCompletion } from "../../../src/services/ai/completion";
import { callerTarget } from "../../../src/services/ai/config";
import { retryAfterSeconds } from "../../../src/services/ai/failures";
import { completeLegacyPrompt } from "../../../src/services/ai/legacy";
import { type SseWriter, streamCompletion } from "../../../src/services/ai/stream";
import type { AiEvent, CompletionRequest, ProviderTarget } from "../../../src/services/ai/types";
import {
  AI_PROVIDERS,
  aiProviders,
  COMPATIBLE_BASE_URL,
  MODELS,
  providerSse,
  streamedResponse,
} from "../../helpers/fake-ai-provider";
import { type FakedThirdParties, fakeThirdParties, untilAborted } from "../../helpers/third-party";

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

const KEY = "sk-service-test-key";
const callFor = (provider: AiProvider): CompletionRequest => ({
  provider,
  model: MODELS[provider],
  messages: [{ role: "user", content: "Hi" }],
});
const targetFor = (provider: AiProvider): ProviderTarget => ({
  ...callerTarget(provider, KEY),
  baseUrl: provider === "openai-compatible" ? COMPATIBLE_BASE_URL : null,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(provider: AiProvider, options: CompletionOptions = {}, signal?: AbortSignal) {
  const events: AiEvent[] = [];
  const ctx = createContext({ env, ...(signal ? { signal } : {}) });
  const outcome = await runCompletion(
    ctx,
    callFor(provider),
    targetFor(provider),
    async (event) => {
      events.push(event);
    },
    options,
  );
  return { events, outcome };
}

const half = (provider: AiProvider) => {
  const whole = providerSse(provider);
  return whole.slice(0, Math.floor(whole.length / 2));
};

describe.each(AI_PROVIDERS)("runCompletion (%s): timeouts and aborts", (provider) => {
  it("a provider that never answers is abandoned after the idle timeout: a 504 error, the upstream aborted", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const { events, outcome } = await run(provider, { idleTimeoutMs: 50 });
    expect(events).toEqual([
      {
        event: "error",
        data: { status: 504, message: "The provider sent nothing for 1 s; retry later", timestamp: expect.any(String) },
      },
    ]);
    expect(outcome).toMatchObject({ status: 504, responseStatus: null });
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("a provider that goes silent mid-answer is abandoned too: what came, then a 504 error, no done", async () => {
    faked = fakeThirdParties((request) => streamedResponse(half(provider), { hang: true, signal: request.signal }));
    const { events, outcome } = await run(provider, { idleTimeoutMs: 50 });
    expect(events[0]?.event).toBe("start");
    expect(events.at(-1)).toMatchObject({ event: "error", data: { status: 504 } });
    expect(events.map((e) => e.event)).not.toContain("done");
    expect(outcome).toMatchObject({ status: 504, responseStatus: 200 });
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("the client going away (the SSE writer's abort) aborts the upstream call; no error is sent to nobody", async () => {
    faked = fakeThirdParties((request) => streamedResponse(half(provider), { hang: true, signal: request.signal }));
    const client = new AbortController();
    const events: AiEvent[] = [];
    const outcome = await runCompletion(
      createContext({ env }),
      callFor(provider),
      targetFor(provider),
      async (event) => {
        events.push(event);
        if (event.event === "start") setTimeout(() => client.abort(), 5);
      },
      { signal: client.signal },
    );
    expect(events.map((e) => e.event)).not.toContain("error");
    expect(outcome.status).toBe(499);
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("the request's own signal (ctx.signal) aborts the upstream call before it answered", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const request = new AbortController();
    const pending = run(provider, {}, request.signal);
    await sleep(10);
    request.abort();
    const { events, outcome } = await pending;
    expect(events).toEqual([]);
    expect(outcome.status).toBe(499);
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });
});

describe("runCompletion: time", () => {
  it("an answer past the total time is cut off with a 504, even while bytes keep coming", async () => {
    faked = fakeThirdParties((request) => {
      let timer: ReturnType<typeof setInterval> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`${providerSse("openai").split("\n\n")[1]}\n\n`));
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode(": keep-alive\n\n")), 10);
          request.signal.addEventListener("abort", () => {
            clearInterval(timer);
            controller.error(request.signal.reason);
          });
        },
        cancel: () => clearInterval(timer),
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
    const { events, outcome } = await run("openai", { idleTimeoutMs: 60, totalTimeoutMs: 200 });
    expect(events.at(-1)).toEqual({
      event: "error",
      data: {
        status: 504,
        message: "The answer took longer than 1 s and was cut off; ask for a shorter answer",
        timestamp: expect.any(String),
      },
    });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(150);
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("SSE comments from the provider count as life: a slow but talking provider is not abandoned", async () => {
    faked = fakeThirdParties((request) => {
      const encoder = new TextEncoder();
      const pings = Array.from({ length: 6 }, () => ": ping\n\n");
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (request.signal.aborted) return controller.error(request.signal.reason);
          if (i < pings.length) {
            await sleep(25);
            controller.enqueue(encoder.encode(pings[i++]));
          } else {
            controller.enqueue(encoder.encode(providerSse("anthropic")));
            controller.close();
          }
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
    const { events } = await run("anthropic", { idleTimeoutMs: 80 });
    expect(events.at(-1)?.event).toBe("done");
  });
});

describe("runCompletion: a misbehaving stream", () => {
  it("an event past the parser's buffer limit (1 MiB) ends the stream as unreadable, not as memory", async () => {
    faked = fakeThirdParties((request) =>
      streamedResponse(`data: ${"x".repeat(1024 * 1024 + 10)}`, { split: 64 * 1024, signal: request.signal }),
    );
    const { events } = await run("mistral");
    expect(events.at(-1)).toEqual({
      event: "error",
      data: { status: 502, message: "The provider's stream could not be read; retry", timestamp: expect.any(String) },
    });
  });

  it("lines that are not SSE are skipped; the answer still comes through", async () => {
    faked = fakeThirdParties((request) =>
      streamedResponse(`this is not sse\n\n${providerSse("openai")}`, { signal: request.signal }),
    );
    const { events } = await run("openai");
    expect(events.map((e) => e.event)).toEqual(["start", "delta", "delta", "delta", "done"]);
  });
});

describe("streamCompletion: heartbeat and abort of the SSE writer", () => {
  function fakeWriter() {
    const writes: string[] = [];
    let abort: (() => void | Promise<void>) | undefined;
    const writer: SseWriter = {
      async writeSSE(message) {
        writes.push(`event: ${message.event}\ndata: ${message.data}\n\n`);
      },
      async write(text) {
        writes.push(text);
      },
      onAbort(listener) {
        abort = listener;
      },
    };
    return { writer, writes, abort: () => abort?.() };
  }
  const userCtx = () =>
    actingAs(createContext({ env }), {
      userId: crypto.randomUUID(),
      via: "api_key",
      apiKeyId: null,
      scopes: ["read", "write"],
    });

  it("sends `: ping` comments while the provider is silent, then the answer", async () => {
    const answer = aiProviders();
    faked = fakeThirdParties(async (request) => {
      await sleep(120);
      return answer(request);
    });
    const { writer, writes } = fakeWriter();
    await streamCompletion(userCtx(), callFor("openai"), targetFor("openai"), writer, { heartbeatMs: 25 });
    const firstEvent = writes.findIndex((w) => w.startsWith("event: start"));
    expect(writes.slice(0, firstEvent).length).toBeGreaterThanOrEqual(2);
    expect(new Set(writes.slice(0, firstEvent))).toEqual(new Set([": ping\n\n"]));
    expect(writes.at(-1)).toMatch(/^event: done/);
  });

  it("aborting the writer (the client went away) aborts the upstream call", async () => {
    faked = fakeThirdParties((request) => streamedResponse(half("gemini"), { hang: true, signal: request.signal }));
    const { writer, writes, abort } = fakeWriter();
    const ctx = userCtx();
    const done = streamCompletion(ctx, callFor("gemini"), targetFor("gemini"), writer);
    while (!writes.some((w) => w.startsWith("event: delta"))) await sleep(5);
    await abort();
    await done;
    expect(faked.requests[0]?.signal.aborted).toBe(true);
    expect(writes.some((w) => w.startsWith("event: error"))).toBe(false);
    const { results } = await env.DB.prepare(
      "SELECT properties FROM blocks WHERE type = 'provider_audit_log' AND created_by = ?",
    )
      .bind(ctx.actor.userId)
      .all<{ properties: string }>();
    expect(results.map((row) => JSON.parse(row.properties))).toMatchObject([{ provider: "gemini", status: 499 }]);
  });
});

describe("completeLegacyPrompt", () => {
  it.each(NAMED_PROVIDERS)("%s: a timeout is a 500 upstream_failed saying so", async (provider) => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const error = await completeLegacyPrompt(
      createContext({ env }),
      provider,
      { prompt: "Hi", model: MODELS[provider], apiKey: KEY },
      { idleTimeoutMs: 30 },
    ).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect((error as ApiError).body).toEqual({
      error: "The provider sent nothing for 1 s; retry later",
      code: "upstream_failed",
      details: { provider },
    });
  });
});

describe("retryAfterSeconds", () => {
  const now = new Date("2026-11-23T10:00:00Z");
  it.each([
    [{ "Retry-After": "20" }, 20],
    [{ "Retry-After": "1.2" }, 2],
    [{ "Retry-After": "Mon, 23 Nov 2026 10:00:30 GMT" }, 30],
    [{ "Retry-After": "Mon, 23 Nov 2026 09:00:00 GMT" }, 0],
    [{ "retry-after-ms": "1500" }, 2],
    [{ "Retry-After": "soon" }, undefined],
    [{}, undefined],
  ])("%j → %s", (headers, seconds) => {
    expect(retryAfterSeconds(new Headers(headers), now)).toBe(seconds);
  });
});
