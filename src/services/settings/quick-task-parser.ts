import { AI_PROVIDERS, type AiProvider } from "../../domain/ai-providers";
import type { RequestContext } from "../../lib/context";
import { boundedSetting } from "../../lib/environment";
import { ApiError } from "../../lib/errors";
import { resolveTarget, SERVER_KEY_SETTINGS } from "../ai/config";
import type { ProviderTarget } from "../ai/types";

// Which model parses quick-task text: the user's settings (quickTaskProvider, quickTaskModel) over
// the server's (TASK_CAPTURE_PROVIDER, TASK_CAPTURE_MODEL), with the server's key of that provider.
// Never the user's chat model: this is a dedicated structured-output model. Anything missing
// means the local parser answers, and `reason` says why.

export const DEFAULT_TASK_CAPTURE_TIMEOUT_SECONDS = 8;
const MAX_TASK_CAPTURE_TIMEOUT_SECONDS = 30;

export interface QuickTaskPreferences {
  provider: string | null;
  model: string | null;
}

export type ModelParserChoice =
  | { ready: true; provider: AiProvider; model: string; target: ProviderTarget; timeoutMs: number }
  | { ready: false; provider: AiProvider | null; model: string | null; reason: string };

const isProvider = (value: string): value is AiProvider => (AI_PROVIDERS as readonly string[]).includes(value);

/** How long the parsing model may take (TASK_CAPTURE_TIMEOUT_SECONDS, 1 to 30; default 8), in ms. */
export function taskCaptureTimeoutMs(env: Pick<Env, "TASK_CAPTURE_TIMEOUT_SECONDS">): number {
  return (
    boundedSetting(
      env.TASK_CAPTURE_TIMEOUT_SECONDS,
      DEFAULT_TASK_CAPTURE_TIMEOUT_SECONDS,
      1,
      MAX_TASK_CAPTURE_TIMEOUT_SECONDS,
    ) * 1000
  );
}

/**
 * What of the server's configuration the parser choice reads (never a key, only whether one is
 * set): the settings' validator digests it, so their tag changes when the configuration does.
 */
export const parserConfiguration = (ctx: Pick<RequestContext, "env" | "local">): unknown[] => [
  ctx.env.TASK_CAPTURE_PROVIDER ?? null,
  ctx.env.TASK_CAPTURE_MODEL ?? null,
  ctx.env.OPENAI_COMPATIBLE_BASE_URL ?? null,
  ctx.local(),
  ...Object.values(SERVER_KEY_SETTINGS).map((setting) => Boolean(ctx.env[setting])),
];

/**
 * The model parser a user's request would use, or why there is none. A user's provider takes
 * the user's model, or the server's model only when the server names the same provider (a model
 * name means nothing to another provider).
 */
export function chooseModelParser(
  ctx: Pick<RequestContext, "env" | "local">,
  preferences: QuickTaskPreferences,
): ModelParserChoice {
  const serverProvider = ctx.env.TASK_CAPTURE_PROVIDER?.trim() || null;
  const serverModel = ctx.env.TASK_CAPTURE_MODEL?.trim() || null;
  const providerName = preferences.provider ?? serverProvider;
  if (!providerName) {
    return { ready: false, provider: null, model: null, reason: "No parsing provider: TASK_CAPTURE_PROVIDER is empty" };
  }
  if (!isProvider(providerName)) {
    return {
      ready: false,
      provider: null,
      model: null,
      reason: `TASK_CAPTURE_PROVIDER names no provider ('${providerName}'); expected one of ${AI_PROVIDERS.join(", ")}`,
    };
  }
  const provider = providerName;
  const model =
    preferences.model ??
    (preferences.provider === null || preferences.provider === serverProvider ? serverModel : null);
  if (!model) {
    return {
      ready: false,
      provider,
      model: null,
      reason: preferences.provider
        ? "No parsing model: set quickTaskModel for this provider"
        : "No parsing model: TASK_CAPTURE_MODEL is empty",
    };
  }
  if (provider !== "openai-compatible" && !ctx.env[SERVER_KEY_SETTINGS[provider]]) {
    return {
      ready: false,
      provider,
      model,
      reason: `No server key for ${provider}: ${SERVER_KEY_SETTINGS[provider]} is not set`,
    };
  }
  try {
    return {
      ready: true,
      provider,
      model,
      target: resolveTarget(ctx, provider, undefined),
      timeoutMs: taskCaptureTimeoutMs(ctx.env),
    };
  } catch (error) {
    // No server key, or the compatible server not configured: the messages name the setting.
    if (error instanceof ApiError) return { ready: false, provider, model, reason: error.message };
    throw error;
  }
}
