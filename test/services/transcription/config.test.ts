import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createContext } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { MULTIPART_ALLOWANCE_BYTES } from "../../../src/services/media/config";
import {
  configuredTranscriber,
  DEFAULT_MAX_AUDIO_BYTES,
  MAX_MAX_AUDIO_BYTES,
  maxAudioBytes,
  type TranscriptionBindings,
  transcriptionBodyLimit,
  transcriptionTimeoutMs,
} from "../../../src/services/transcription/config";
import { toBase64 } from "../../../src/services/transcription/transcribe";

const contextWith = (overrides: Partial<Env> & TranscriptionBindings, local = false) =>
  createContext({ env: { ...env, ...overrides } as Env, local: () => local });

describe("transcription limits", () => {
  it("TRANSCRIPTION_MAX_BYTES: 25 MiB by default, clamped to 1 KiB .. 100 MiB", () => {
    const max = (value: string) => maxAudioBytes({ TRANSCRIPTION_MAX_BYTES: value });
    expect(max("")).toBe(DEFAULT_MAX_AUDIO_BYTES);
    expect(DEFAULT_MAX_AUDIO_BYTES).toBe(26_214_400);
    expect(max("many")).toBe(DEFAULT_MAX_AUDIO_BYTES);
    expect(max("0")).toBe(DEFAULT_MAX_AUDIO_BYTES);
    expect(max("-1")).toBe(DEFAULT_MAX_AUDIO_BYTES);
    expect(max("10")).toBe(1024);
    expect(max("4096")).toBe(4096);
    expect(max(String(10 * MAX_MAX_AUDIO_BYTES))).toBe(MAX_MAX_AUDIO_BYTES);
    expect(transcriptionBodyLimit({ TRANSCRIPTION_MAX_BYTES: "4096" })).toBe(4096 + MULTIPART_ALLOWANCE_BYTES);
  });

  it("TRANSCRIPTION_TIMEOUT_SECONDS: 120 s by default, 1 to 900 s", () => {
    const timeout = (value: string) => transcriptionTimeoutMs({ TRANSCRIPTION_TIMEOUT_SECONDS: value });
    expect(timeout("")).toBe(120_000);
    expect(timeout("0")).toBe(120_000);
    expect(timeout("1.5")).toBe(120_000);
    expect(timeout("1")).toBe(1_000);
    expect(timeout("600")).toBe(600_000);
    expect(timeout("3600")).toBe(900_000);
  });
});

describe("which transcriber", () => {
  const endpoint = { TRANSCRIPTION_BASE_URL: "https://api.example.test/v1//", TRANSCRIPTION_API_KEY: " sk-1 " };

  it("the OpenAI-compatible endpoint: {base}/audio/transcriptions, whisper-1 unless set, the key trimmed", () => {
    const transcriber = configuredTranscriber(contextWith({ ...endpoint, TRANSCRIPTION_MODEL: " " }));
    expect(transcriber).toEqual({
      kind: "openai-compatible",
      endpoint: new URL("https://api.example.test/v1/audio/transcriptions"),
      apiKey: "sk-1",
      model: "whisper-1",
      timeoutMs: 120_000,
    });
    const keyless = configuredTranscriber(contextWith({ ...endpoint, TRANSCRIPTION_API_KEY: "  " }));
    expect(keyless).toMatchObject({ apiKey: undefined });
  });

  it("Workers AI whenever the AI binding is there, whatever else is set", () => {
    const ai = { run: async () => ({ text: "" }) };
    expect(configuredTranscriber(contextWith({ ...endpoint, AI: ai }))).toMatchObject({
      kind: "workers-ai",
      model: "@cf/openai/whisper-large-v3-turbo",
    });
    // Something named AI that is not a binding is not one.
    const notABinding = { AI: "yes" } as unknown as TranscriptionBindings;
    expect(configuredTranscriber(contextWith({ ...endpoint, ...notABinding }))).toMatchObject({
      kind: "openai-compatible",
    });
  });

  it("neither: a 503 unavailable naming TRANSCRIPTION_BASE_URL", () => {
    let refusal: unknown;
    try {
      configuredTranscriber(contextWith({ TRANSCRIPTION_BASE_URL: "  " }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({
      status: 503,
      code: "unavailable",
      details: { setting: "TRANSCRIPTION_BASE_URL" },
    });
  });
});

describe("base64 of the audio for Workers AI", () => {
  it.each([0, 1, 2, 3, 24_575, 24_576, 24_577, 100_003])("%i bytes round-trip", (length) => {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = (i * 7919 + (i >> 8)) & 0xff;
    const encoded = toBase64(bytes);
    expect(encoded).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(encoded.length).toBe(Math.ceil(length / 3) * 4);
    expect(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))).toEqual(bytes);
  });
});
