import type { ChatMessage, CompletionRequest, Usage } from "../types";

/** Parses a provider's JSON event data; undefined when it is not JSON (such events are skipped). */
export function parseJson(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export const count = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;

export const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Usage with the total filled in from its parts when the provider gave only those. */
export function usageOf(input: number | null, output: number | null, total: number | null = null): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: total ?? (input !== null && output !== null ? input + output : null),
  };
}

/**
 * The system instruction and the conversation, for providers that take the system text apart
 * from the messages (Anthropic, Gemini): `system` first, then any `system` messages in order.
 */
export function splitSystem(call: CompletionRequest): { system: string | undefined; messages: ChatMessage[] } {
  const parts = [call.system, ...call.messages.filter((m) => m.role === "system").map((m) => m.content)].filter(
    (part): part is string => typeof part === "string" && part.length > 0,
  );
  return {
    system: parts.length > 0 ? parts.join("\n\n") : undefined,
    messages: call.messages.filter((m) => m.role !== "system"),
  };
}

/** The HTTP status an in-stream error type stands for (Anthropic's and OpenAI's error type names). */
export function statusOfErrorType(type: string | undefined): number | null {
  if (!type) return null;
  if (/rate_limit|quota|resource_exhausted/i.test(type)) return 429;
  if (/overloaded|unavailable/i.test(type)) return 529;
  if (/authentication|invalid_api_key|unauthenticated/i.test(type)) return 401;
  if (/permission/i.test(type)) return 403;
  if (/not_found/i.test(type)) return 404;
  if (/too_large/i.test(type)) return 413;
  if (/invalid_request|invalid_argument/i.test(type)) return 400;
  return 500;
}
