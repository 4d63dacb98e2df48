import type { AiProvider } from "../../domain/ai-providers";
import type { RequestContext } from "../../lib/context";
import { badRequest } from "../../lib/errors";
import { notConfigured, serviceUrl } from "../../lib/service-url";
import type { ProviderTarget } from "./types";

/** The secret holding the server's own key of each provider (`wrangler secret put NAME`). */
export const SERVER_KEY_SETTINGS = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  gemini: "GEMINI_API_KEY",
  mistral: "MISTRAL_API_KEY",
  groq: "GROQ_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
} as const satisfies Record<AiProvider, keyof Env>;

const BASE_URL_SETTING = "OPENAI_COMPATIBLE_BASE_URL";

/**
 * The compatible server's base URL without a trailing slash, or a 503 naming the setting: https
 * (http only to this machine during local work, as a local Ollama), no credentials, no query.
 */
function compatibleBaseUrl(ctx: Pick<RequestContext, "env" | "local">): string {
  const configured = ctx.env.OPENAI_COMPATIBLE_BASE_URL?.trim();
  const refuse = (problem: string) => notConfigured("The openai-compatible provider", BASE_URL_SETTING, problem);
  if (!configured) throw refuse(`set ${BASE_URL_SETTING} (e.g. http://127.0.0.1:11434/v1 for a local Ollama)`);
  const url = serviceUrl(ctx, BASE_URL_SETTING, configured, "The openai-compatible provider");
  if (url.search) throw refuse(`${BASE_URL_SETTING} must not carry a query string`);
  return url.href.replace(/\/+$/, "");
}

/**
 * Where a call to `provider` goes and with which key, decided before any stream starts:
 * the caller's `apiKey` when given, else the server's configured key; neither is a 400
 * (the compatible server may need none). The compatible provider without its base URL is a 503.
 */
export function resolveTarget(
  ctx: Pick<RequestContext, "env" | "local">,
  provider: AiProvider,
  callerKey: string | undefined,
): ProviderTarget {
  const setting = SERVER_KEY_SETTINGS[provider];
  const baseUrl = provider === "openai-compatible" ? compatibleBaseUrl(ctx) : null;
  if (callerKey) return { provider, apiKey: callerKey, source: "caller", setting, baseUrl };
  const serverKey = ctx.env[setting];
  if (serverKey) return { provider, apiKey: serverKey, source: "server", setting, baseUrl };
  if (provider === "openai-compatible") return { provider, apiKey: null, source: "none", setting, baseUrl };
  throw badRequest(`No API key for ${provider}: send your own in \`apiKey\`, or configure ${setting} on this server`, {
    provider,
    setting,
  });
}

/** The legacy paths use the caller's key only: an open route never spends the server's. */
export const callerTarget = (provider: AiProvider, apiKey: string): ProviderTarget => ({
  provider,
  apiKey,
  source: "caller",
  setting: SERVER_KEY_SETTINGS[provider],
  baseUrl: null,
});

/** `AI_AUDIT_PROMPTS = "true"`: audit records keep the prompt. */
export const auditsPrompts = (ctx: Pick<RequestContext, "env">): boolean => ctx.env.AI_AUDIT_PROMPTS === "true";
