import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../../src/app";
import { MULTIPART_ALLOWANCE_BYTES } from "../../../src/services/media/config";
import {
  DEFAULT_MAX_AUDIO_BYTES,
  type TranscriptionBindings,
  WORKERS_AI_WHISPER_MODEL,
} from "../../../src/services/transcription/config";
import { documentedResponses, newClientAddress } from "../../helpers/api";
import { captureConsole } from "../../helpers/console";
import { startEarlyInAWindow } from "../../helpers/rate-windows";
import { type FakedThirdParties, fakeThirdParties, untilAborted } from "../../helpers/third-party";
import { ACCEPTED_RECORDINGS, PDF_BYTES, PNG_BYTES, TEXT_BYTES, THREE_GP_BYTES, wavBytes } from "./audio-fixtures";

const PATH = "/api/transcription/transcribe";
const ENDPOINT = "https://transcribe.example.test/v1";
/** A key that must appear nowhere but in the Authorization header sent to the endpoint. */
const API_KEY = "sk-test-transcription-key-9f8e7d6c5b4a39281706";
/** What the endpoint says when it fails: never passed on. */
const UPSTREAM_SECRET_BODY =
  '{"error":{"message":"Incorrect API key provided: sk-test-tr...706 at upstream-internal"}}';

const CONFIGURED: Partial<Env> = {
  TRANSCRIPTION_BASE_URL: ENDPOINT,
  TRANSCRIPTION_API_KEY: API_KEY,
  TRANSCRIPTION_MODEL: "whisper-1",
  TRANSCRIPTION_MAX_BYTES: "",
  TRANSCRIPTION_TIMEOUT_SECONDS: "",
};

type Overrides = Partial<Env> & TranscriptionBindings;

const clientAddress = newClientAddress;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

async function send(init: RequestInit, overrides: Overrides = CONFIGURED, client = clientAddress()): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", client);
  const response = await createApp().request(
    PATH,
    { method: "POST", ...init, headers },
    { ...env, ...overrides } as Env,
    createExecutionContext(),
  );
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: `text` tells.
  }
  return { status: response.status, headers: response.headers, text, body };
}

function audioForm(bytes: Uint8Array, options: { name?: string; type?: string; field?: string } = {}): FormData {
  const form = new FormData();
  form.append(
    options.field ?? "audio",
    new File([bytes], options.name ?? "recording.bin", { type: options.type ?? "" }),
  );
  return form;
}

const transcribe = (bytes: Uint8Array, overrides: Overrides = CONFIGURED) =>
  send({ body: audioForm(bytes) }, overrides);

let faked: FakedThirdParties | undefined;
let logs: ReturnType<typeof captureConsole>;

beforeEach(() => {
  logs = captureConsole();
});

afterEach(() => {
  faked?.restore();
  faked = undefined;
  logs.restore();
});

/** Everything written to the console during the test. */
const consoleOutput = () => logs.lines.join("\n");

/** The endpoint answers with `text` as OpenAI does. */
const answering = (text: string) => fakeThirdParties(() => Response.json({ text }));

describe("POST /api/transcription/transcribe through an OpenAI-compatible endpoint", () => {
  it("sends the file, the model and the key, and answers the text", async () => {
    faked = answering("  Remind me to call the dentist at nine.\n");
    const bytes = wavBytes(2000);
    const res = await send({ body: audioForm(bytes, { name: "voice memo.wav", type: "audio/x-wav" }) });

    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ transcriptionData: "Remind me to call the dentist at nine." });
    expect(faked.requests).toHaveLength(1);
    const sent = faked.requests[0] as Request;
    expect(sent.method).toBe("POST");
    expect(sent.url).toBe(`${ENDPOINT}/audio/transcriptions`);
    expect(sent.headers.get("Authorization")).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers.get("Content-Type")).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.redirect).toBe("manual");
    const form = await sent.formData();
    expect([...form.keys()].sort()).toEqual(["file", "model", "response_format"]);
    expect(form.get("model")).toBe("whisper-1");
    expect(form.get("response_format")).toBe("json");
    const file = form.get("file") as File;
    // Named and typed by its bytes, not by the client's name or declared type.
    expect(file.name).toBe("audio.wav");
    expect(file.type).toBe("audio/wav");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  it.each(ACCEPTED_RECORDINGS.map((r) => [r.name, r] as const))(
    "takes %s, sent upstream as its own format",
    async (_name, recording) => {
      faked = answering("hello");
      const res = await transcribe(recording.bytes);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ transcriptionData: "hello" });
      const file = (await (faked.requests[0] as Request).formData()).get("file") as File;
      expect(file.name).toBe(recording.filename);
      expect(file.type).toBe(recording.mediaType);
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(recording.bytes);
    },
  );

  it("asks for TRANSCRIPTION_MODEL, sends no Authorization without a key, and keeps the base URL's path and query", async () => {
    faked = answering("ok");
    const res = await transcribe(wavBytes(), {
      ...CONFIGURED,
      TRANSCRIPTION_BASE_URL: "https://gateway.example.test/openai/v1/?api-version=2025-01-01",
      TRANSCRIPTION_API_KEY: "",
      TRANSCRIPTION_MODEL: "gpt-4o-mini-transcribe",
    });
    expect(res.status, res.text).toBe(200);
    const sent = faked.requests[0] as Request;
    expect(sent.url).toBe("https://gateway.example.test/openai/v1/audio/transcriptions?api-version=2025-01-01");
    expect(sent.headers.has("Authorization")).toBe(false);
    expect((await sent.formData()).get("model")).toBe("gpt-4o-mini-transcribe");
  });

  it("reaches a local whisper server over http on this machine during local work", async () => {
    faked = answering("local");
    const res = await transcribe(wavBytes(), { ...CONFIGURED, TRANSCRIPTION_BASE_URL: "http://127.0.0.1:8000/v1" });
    expect(res.status, res.text).toBe(200);
    expect((faked.requests[0] as Request).url).toBe("http://127.0.0.1:8000/v1/audio/transcriptions");
  });

  it("answers an empty transcription (silence) as an empty string", async () => {
    faked = answering("   ");
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ transcriptionData: "" });
  });
});

describe("refused uploads: 400, 413, 415, and the endpoint is never called", () => {
  beforeEach(() => {
    faked = answering("never");
  });
  afterEach(() => {
    expect(faked?.requests).toHaveLength(0);
  });

  const expectRefusal = (res: Answer, status: number, code: string) => {
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ error: expect.any(String), code });
  };

  it("400 without a body", async () => {
    const res = await send({});
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.details).toEqual({ field: "audio" });
  });

  it("400 for a multipart body without an `audio` part, naming what it received", async () => {
    const form = new FormData();
    form.append("note", "hello");
    const res = await send({ body: form });
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.error).toMatch(/No audio file/);
    expect(res.body.details).toEqual({ field: "audio", received_fields: ["note"] });
  });

  it("400 for the file under another part name (`file`)", async () => {
    const res = await send({ body: audioForm(wavBytes(), { field: "file" }) });
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.details).toEqual({ field: "audio", received_fields: ["file"] });
  });

  it("400 for `audio` as a text field, twice, or with other fields", async () => {
    const text = new FormData();
    text.append("audio", "not a file");
    expectRefusal(await send({ body: text }), 400, "validation_failed");

    const twice = audioForm(wavBytes());
    twice.append("audio", new File([wavBytes()], "b.wav"));
    const res = await send({ body: twice });
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.error).toMatch(/more than once/);

    const extra = audioForm(wavBytes());
    extra.append("language", "en");
    const withExtra = await send({ body: extra });
    expectRefusal(withExtra, 400, "validation_failed");
    expect(withExtra.body.details).toMatchObject({ fields: ["language"], allowed: ["audio"] });
  });

  it("400 for an empty file", async () => {
    const res = await transcribe(new Uint8Array(0));
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.error).toBe("The audio file is empty");
  });

  it.each([
    ["a PNG", PNG_BYTES, "image/png"],
    ["a PDF", PDF_BYTES, "application/pdf"],
    ["text", TEXT_BYTES, null],
    ["a 3GP recording", THREE_GP_BYTES, "video/3gpp"],
  ] as const)("400 for %s, whatever it is declared as", async (_name, bytes, detected) => {
    const res = await send({ body: audioForm(bytes, { name: "memo.mp3", type: "audio/mpeg" }) });
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.details).toEqual({
      field: "audio",
      detected,
      accepted: ["webm", "ogg/opus", "mp4/m4a", "aac", "mp3", "wav", "flac"],
    });
  });

  it("400 for a malformed multipart body", async () => {
    const res = await send({
      body: "this is not multipart",
      headers: { "Content-Type": "multipart/form-data; boundary=zz" },
    });
    expectRefusal(res, 400, "validation_failed");
    expect(res.body.details).toEqual({ reason: "malformed_multipart" });
  });

  it("415 for JSON or any body that is not multipart", async () => {
    const json = await send({
      body: JSON.stringify({ audio: "aGVsbG8=" }),
      headers: { "Content-Type": "application/json" },
    });
    expectRefusal(json, 415, "unsupported_media_type");
    const raw = await send({ body: wavBytes(), headers: { "Content-Type": "audio/wav" } });
    expectRefusal(raw, 415, "unsupported_media_type");
  });

  it("413 for a file one byte above TRANSCRIPTION_MAX_BYTES; a file of exactly the limit is sent", async () => {
    const limited = { ...CONFIGURED, TRANSCRIPTION_MAX_BYTES: "2048" };
    const over = wavBytes(1003); // 44 + 2006 = 2050 bytes
    const res = await transcribe(over.subarray(0, 2049), limited);
    expectRefusal(res, 413, "payload_too_large");
    expect(res.body).toEqual({
      error: "The audio file is larger than 2048 bytes",
      code: "payload_too_large",
      details: { max_bytes: 2048 },
      request_id: expect.any(String),
    });
    faked?.restore();
    faked = answering("exact");
    expect((await transcribe(over.subarray(0, 2048), limited)).status).toBe(200);
    expect(faked.requests).toHaveLength(1);
    faked.requests.length = 0;
  });

  it("413 before reading a body larger than the route's limit (25 MiB and the multipart framing by default)", async () => {
    const body = new Uint8Array(DEFAULT_MAX_AUDIO_BYTES + MULTIPART_ALLOWANCE_BYTES + 1);
    const res = await send({ body, headers: { "Content-Type": "multipart/form-data; boundary=zz" } });
    expectRefusal(res, 413, "payload_too_large");
    expect(res.body.details).toEqual({ max_bytes: DEFAULT_MAX_AUDIO_BYTES + MULTIPART_ALLOWANCE_BYTES });
  });

  it("413 for a streamed body (no Content-Length) once it passes the route's limit, without reading it all", async () => {
    const limit = DEFAULT_MAX_AUDIO_BYTES + MULTIPART_ALLOWANCE_BYTES;
    const chunk = 1024 * 1024;
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const res = await send({
      body: endless,
      headers: { "Content-Type": "multipart/form-data; boundary=zz" },
      duplex: "half",
    } as RequestInit);
    expectRefusal(res, 413, "payload_too_large");
    expect(pulled).toBeLessThan(limit + 4 * chunk);
  });
});

describe("a failing endpoint: 500 upstream_failed, with nothing of its URL, key or answer", () => {
  const expectNothingLeaked = (res: Answer) => {
    // The failure is logged (so the spies see the service's output), without any of these.
    expect(consoleOutput()).toContain("transcription service");
    for (const secret of [API_KEY, "transcribe.example.test", "upstream-internal", "Incorrect API key"]) {
      expect(res.text).not.toContain(secret);
      expect(consoleOutput()).not.toContain(secret);
    }
  };

  it.each([500, 401, 429, 503])("HTTP %i from the endpoint", async (status) => {
    faked = fakeThirdParties(() => new Response(UPSTREAM_SECRET_BODY, { status }));
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: `transcription service answered with HTTP ${status}`,
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    expectNothingLeaked(res);
  });

  it("a redirect is not followed: the key and the audio go nowhere else", async () => {
    faked = fakeThirdParties(
      () => new Response(null, { status: 307, headers: { Location: "https://elsewhere.example.test/steal" } }),
    );
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "transcription service answered with HTTP 307",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(faked.requests).toHaveLength(1);
    expect(res.text).not.toContain("elsewhere");
  });

  it("no connection", async () => {
    faked = fakeThirdParties(() => {
      throw new TypeError(`connect ECONNREFUSED ${ENDPOINT} with ${API_KEY}`);
    });
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "transcription service could not be reached",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expectNothingLeaked(res);
  });

  it("no answer within TRANSCRIPTION_TIMEOUT_SECONDS", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const started = Date.now();
    const res = await transcribe(wavBytes(), { ...CONFIGURED, TRANSCRIPTION_TIMEOUT_SECONDS: "1" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "transcription service did not answer in time",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expectNothingLeaked(res);
  });

  it("an answer far larger than any transcript: the read stops early, and it is not passed on", async () => {
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    let sent = 0;
    faked = fakeThirdParties(() => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"text":"'));
        },
        pull(controller) {
          // 64 MiB of transcript in all, unless the reader stops first.
          if (sent >= 1024) {
            controller.enqueue(new TextEncoder().encode('"}'));
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { headers: { "Content-Type": "application/json" } });
    });
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "transcription service answered with something that is not a transcription",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(sent).toBeLessThan(1024);
  });

  it.each([
    ["not JSON", () => new Response("<html>Bad gateway at upstream-internal</html>", { status: 200 })],
    ["JSON without text", () => Response.json({ error: "Incorrect API key provided" })],
    ["text that is not a string", () => Response.json({ text: 42 })],
  ])("a 2xx answer that is %s", async (_name, answer) => {
    faked = fakeThirdParties(answer);
    const res = await transcribe(wavBytes());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "transcription service answered with something that is not a transcription",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expectNothingLeaked(res);
  });
});

describe("not configured: 503 unavailable naming the setting, and nothing is sent", () => {
  it("the contract says so: 503 unavailable, and 500 only for a failing third party", async () => {
    const responses = await documentedResponses(PATH);
    expect(responses["503"]?.description).toMatch(/`code` unavailable/);
    expect(responses["500"]?.description).not.toMatch(/configured/);
  });

  it("503 unavailable naming TRANSCRIPTION_BASE_URL when nothing can transcribe; a caller's mistake is still a 400", async () => {
    faked = answering("never");
    const res = await send({ body: audioForm(wavBytes()) }, { ...CONFIGURED, TRANSCRIPTION_BASE_URL: "" });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: "Transcription is not configured on this server: bind Workers AI as AI, or set TRANSCRIPTION_BASE_URL",
      code: "unavailable",
      details: { setting: "TRANSCRIPTION_BASE_URL" },
      request_id: expect.any(String),
    });
    const noFile = await send({ body: new FormData() }, { ...CONFIGURED, TRANSCRIPTION_BASE_URL: "" });
    expect(noFile.status).toBe(400);
    expect(faked.requests).toHaveLength(0);
  });

  it("is not configured by default (wrangler.toml leaves TRANSCRIPTION_BASE_URL empty)", async () => {
    const res = await transcribe(wavBytes(), {});
    expect(res.status).toBe(503);
  });

  it.each([
    ["http to another host", "http://transcribe.example.test/v1", /must be an https URL/],
    ["not a URL", "transcribe.example.test/v1", /is not a URL/],
    ["credentials in the URL", `https://user:${API_KEY}@transcribe.example.test/v1`, /user name or password/],
    ["another scheme", "ftp://transcribe.example.test/v1", /must be an https URL/],
  ])("503 for a TRANSCRIPTION_BASE_URL with %s, without quoting it", async (_name, url, message) => {
    faked = answering("never");
    const res = await transcribe(wavBytes(), { ...CONFIGURED, TRANSCRIPTION_BASE_URL: url });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "unavailable", details: { setting: "TRANSCRIPTION_BASE_URL" } });
    expect(res.body.error).toMatch(message);
    expect(res.text).not.toContain("transcribe.example.test");
    expect(res.text).not.toContain(API_KEY);
    expect(faked.requests).toHaveLength(0);
  });

  it("outside local work, http is refused even to a loopback address", async () => {
    faked = answering("never");
    const form = audioForm(wavBytes());
    const response = await createApp().request(
      `https://api.example.test${PATH}`,
      { method: "POST", body: form, headers: { "CF-Connecting-IP": clientAddress() } },
      { ...env, ...CONFIGURED, ENVIRONMENT: "production", TRANSCRIPTION_BASE_URL: "http://127.0.0.1:8000/v1" } as Env,
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      code: "unavailable",
      details: { setting: "TRANSCRIPTION_BASE_URL" },
    });
    expect(faked.requests).toHaveLength(0);
  });
});

describe("the Workers AI binding, when one is bound", () => {
  /** A fake `AI` binding: the third party at the binding seam. */
  const fakeAi = (run: (model: string, input: Record<string, unknown>) => Promise<unknown>) => ({ run: vi.fn(run) });

  it(`runs ${WORKERS_AI_WHISPER_MODEL} on the audio in base64, and the endpoint is not called`, async () => {
    faked = answering("never");
    const ai = fakeAi(async () => ({ text: " Bonjour à tous. ", word_count: 3 }));
    const bytes = wavBytes(300);
    const res = await transcribe(bytes, { ...CONFIGURED, AI: ai });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ transcriptionData: "Bonjour à tous." });
    expect(ai.run).toHaveBeenCalledTimes(1);
    const [model, input] = ai.run.mock.calls[0] ?? [];
    expect(model).toBe("@cf/openai/whisper-large-v3-turbo");
    expect(Object.keys(input ?? {})).toEqual(["audio"]);
    expect(Uint8Array.from(atob(String(input?.audio)), (c) => c.charCodeAt(0))).toEqual(bytes);
    expect(faked.requests).toHaveLength(0);
  });

  it("works with no endpoint configured", async () => {
    const ai = fakeAi(async () => ({ text: "hello" }));
    const res = await transcribe(wavBytes(), { ...CONFIGURED, TRANSCRIPTION_BASE_URL: "", AI: ai });
    expect(res.status).toBe(200);
  });

  it("still refuses what is not audio, before running the model", async () => {
    const ai = fakeAi(async () => ({ text: "never" }));
    const res = await transcribe(PNG_BYTES, { ...CONFIGURED, AI: ai });
    expect(res.status).toBe(400);
    expect(ai.run).not.toHaveBeenCalled();
  });

  it("500 upstream_failed when the model fails, answers no text, or takes too long", async () => {
    const failing = fakeAi(async () => {
      throw new Error("AiError: 3010: Invalid or incomplete input for the model: internal detail");
    });
    const failed = await transcribe(wavBytes(), { ...CONFIGURED, AI: failing });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      error: "Workers AI could not transcribe the audio",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(failed.text).not.toContain("internal detail");
    expect(consoleOutput()).not.toContain("internal detail");

    const empty = await transcribe(wavBytes(), { ...CONFIGURED, AI: fakeAi(async () => ({ response: "?" })) });
    expect(empty.status).toBe(500);
    expect(empty.body).toEqual({
      error: "Workers AI answered with something that is not a transcription",
      code: "upstream_failed",
      request_id: expect.any(String),
    });

    const never = fakeAi(() => new Promise(() => undefined));
    const slow = await transcribe(wavBytes(), { ...CONFIGURED, TRANSCRIPTION_TIMEOUT_SECONDS: "1", AI: never });
    expect(slow.status).toBe(500);
    expect(slow.body).toEqual({
      error: "Workers AI did not answer in time",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
  });
});

describe("the open-route rate limit", () => {
  it("past 30 requests a minute from one client address, a 429 with Retry-After; other addresses are counted apart", async () => {
    await startEarlyInAWindow();
    const client = clientAddress();
    // Requests refused for their body still count: the limit comes first.
    for (let i = 0; i < 30; i++) expect((await send({}, CONFIGURED, client)).status).toBe(400);
    const refused = await send({ body: audioForm(wavBytes()) }, CONFIGURED, client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(refused.body).toEqual({
      error: "Too many requests: retry later",
      code: "rate_limited",
      details: { policy: "operation", retry_after_seconds: 60 },
      request_id: expect.any(String),
    });
    // The limit reached, named as every 429 names it; no credential, so no quota of one.
    expect(refused.headers.get("RateLimit")).toBe('"operation";r=0;t=60');
    expect(refused.headers.get("RateLimit-Policy")).toBeNull();
    expect((await send({}, CONFIGURED, clientAddress())).status).toBe(400);
  });
});
