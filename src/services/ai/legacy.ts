import type { NamedProvider } from "../../domain/ai-providers";
import type { RequestContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { logCompletion } from "./audit";
import { type CompletionOptions, runCompletion } from "./completion";
import { callerTarget } from "./config";

export interface LegacyPrompt {
  prompt: string;
  model: string;
  apiKey: string;
}

/**
 * The legacy `POST /api/ai/<provider>`: one prompt, the caller's own key, the whole answer at
 * once. It runs the same streamed call as `/api/v1/ai/{provider}/stream` and joins the text;
 * any failure is a 500 `upstream_failed` whose message is the stream's `error` message.
 */
export async function completeLegacyPrompt(
  ctx: RequestContext,
  provider: NamedProvider,
  input: LegacyPrompt,
  options: CompletionOptions = {},
): Promise<string> {
  const call = { provider, model: input.model, messages: [{ role: "user" as const, content: input.prompt }] };
  const target = callerTarget(provider, input.apiKey);
  const parts: string[] = [];
  const outcome = await runCompletion(
    ctx,
    call,
    target,
    async (event) => {
      if (event.event === "delta") parts.push(event.data.text);
    },
    options,
  );
  logCompletion(ctx, "legacy", call, target, outcome);
  if (outcome.error) {
    throw new ApiError("upstream_failed", outcome.error.message, {
      provider,
      ...(outcome.error.responseStatus !== undefined ? { provider_status: outcome.error.responseStatus } : {}),
      ...(outcome.error.retryAfterSeconds !== undefined
        ? { retry_after_seconds: outcome.error.retryAfterSeconds }
        : {}),
    });
  }
  return parts.join("");
}
