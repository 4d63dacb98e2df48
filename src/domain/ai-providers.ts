// The AI providers this service speaks to: facts the request schemas, the settings and the AI
// services share (services/ai/ holds how each one is called).

/** The five named providers: each has a legacy path `/api/ai/<name>` and a stream. */
export const NAMED_PROVIDERS = ["openai", "anthropic", "gemini", "mistral", "groq"] as const;
/** Every provider of the stream: the five, and any server speaking OpenAI's chat completions. */
export const AI_PROVIDERS = [...NAMED_PROVIDERS, "openai-compatible"] as const;

export type NamedProvider = (typeof NAMED_PROVIDERS)[number];
export type AiProvider = (typeof AI_PROVIDERS)[number];
