import type { AiProvider } from "../../../domain/ai-providers";
import type { ProviderAdapter } from "../types";
import { anthropic } from "./anthropic";
import { gemini } from "./gemini";
import { groq, mistral, openai, openaiCompatible } from "./openai-chat";

/** Every provider's adapter, by the name in the paths. */
export const ADAPTERS: Record<AiProvider, ProviderAdapter> = {
  openai,
  anthropic,
  gemini,
  mistral,
  groq,
  "openai-compatible": openaiCompatible,
};
