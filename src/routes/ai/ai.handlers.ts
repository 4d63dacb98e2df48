import type { Hook } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { AI_PROVIDERS, type AiProvider } from "../../domain/ai-providers";
import { notFound } from "../../lib/errors";
import type { Handler } from "../../openapi/define-route";
import { validationHook } from "../../openapi/validation";
import type { AiStreamRequest } from "../../schemas/ai";
import { resolveTarget } from "../../services/ai/config";
import { completeLegacyPrompt } from "../../services/ai/legacy";
import { admitStream, withinTokenCeiling } from "../../services/ai/limits";
import { streamCompletion } from "../../services/ai/stream";
import type { CompletionRequest } from "../../services/ai/types";
import type * as routes from "./ai.routes";

/** An unknown provider in the path is a 404 (as on the legacy paths), not a 400. */
// biome-ignore lint/suspicious/noExplicitAny: the hook's shape is the shared validation hook's
export const streamHook: Hook<any, any, any, any> = (result, c) => {
  if (!result.success && result.target === "param") {
    throw notFound("Unknown AI provider", { providers: [...AI_PROVIDERS] });
  }
  return validationHook(result, c);
};

const completionRequest = (provider: AiProvider, body: AiStreamRequest): CompletionRequest => ({
  provider,
  model: body.model,
  messages: body.messages ?? [{ role: "user", content: body.prompt ?? "" }],
  ...(body.system !== undefined ? { system: body.system } : {}),
  ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
  ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
});

export const stream: Handler<typeof routes.stream> = async (c) => {
  const ctx = c.get("ctx");
  const { provider } = c.req.valid("param");
  const body = c.req.valid("json");
  // Refusals are HTTP errors, decided before the stream: a credential revoked a moment ago (401),
  // the compatible server not configured (503), no key at all (400), and, when the server pays,
  // max_tokens above its ceiling (400), past the user's rate or streams at once (429).
  await ctx.confirmCaller();
  const target = resolveTarget(ctx, provider, body.apiKey);
  const call = withinTokenCeiling(ctx, completionRequest(provider, body), target);
  const lease = await admitStream(ctx, target);
  return streamSSE(c, async (writer) => {
    try {
      await streamCompletion(ctx, call, target, writer);
    } finally {
      await lease?.release();
    }
  });
};

// The five legacy paths: the same call with the caller's own key, answered whole.
export const promptOpenAi: Handler<typeof routes.promptOpenAi> = async (c) =>
  c.json({ response: await completeLegacyPrompt(c.get("ctx"), "openai", c.req.valid("json")) }, 200);
export const promptAnthropic: Handler<typeof routes.promptAnthropic> = async (c) =>
  c.json({ response: await completeLegacyPrompt(c.get("ctx"), "anthropic", c.req.valid("json")) }, 200);
export const promptGemini: Handler<typeof routes.promptGemini> = async (c) =>
  c.json({ response: await completeLegacyPrompt(c.get("ctx"), "gemini", c.req.valid("json")) }, 200);
export const promptMistral: Handler<typeof routes.promptMistral> = async (c) =>
  c.json({ response: await completeLegacyPrompt(c.get("ctx"), "mistral", c.req.valid("json")) }, 200);
export const promptGroq: Handler<typeof routes.promptGroq> = async (c) =>
  c.json({ response: await completeLegacyPrompt(c.get("ctx"), "groq", c.req.valid("json")) }, 200);
