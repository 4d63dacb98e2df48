import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { AiProvider } from "../../../src/domain/ai-providers";
import { createContext } from "../../../src/lib/context";
import { callerTarget } from "../../../src/services/ai/config";
import { StructuredOutputError } from "../../../src/services/ai/structured-output";
import type { ProviderTarget } from "../../../src/services/ai/types";
import { parseQuickTaskLocally, type QuickTaskParse } from "../../../src/services/quick-tasks/local-parser";
import {
  MODEL_REMINDER_OFFSETS,
  type ModelParserInput,
  parseQuickTaskWithModel,
  QUICK_TASK_SCHEMA,
  QUICK_TASK_SCHEMA_NAME,
} from "../../../src/services/quick-tasks/model-parser";
import { COMPATIBLE_BASE_URL, MODELS } from "../../helpers/fake-ai-provider";
import {
  bodyOf,
  type ModelReply,
  STRUCTURED_ENDPOINTS,
  sentParts,
  structuredProviders,
} from "../../helpers/fake-structured-provider";
import { type FakedThirdParties, fakeThirdParties, type ThirdParty, untilAborted } from "../../helpers/third-party";

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

const KEY = "sk-quick-task-model-key-9d2e";
/** The three wire formats: OpenAI's chat completions, Anthropic's Messages, Gemini's generateContent. */
const FAMILIES = ["openai", "anthropic", "gemini"] as const satisfies readonly AiProvider[];

const targetFor = (provider: AiProvider): ProviderTarget => ({
  ...callerTarget(provider, KEY),
  baseUrl: provider === "openai-compatible" ? COMPATIBLE_BASE_URL : null,
});

const EXAMPLE_TEXT = "Pay rent tomorrow at 9am, high priority";
/** Monday 2026-03-02 10:00 in Berlin (winter time, +01:00). */
const BERLIN: ModelParserInput = {
  text: EXAMPLE_TEXT,
  timeZone: "Europe/Berlin",
  referenceAt: new Date("2026-03-02T10:00:00+01:00"),
};

/** A complete model answer: the example's, with any field replaced. */
const answer = (fields: Record<string, unknown> = {}) => ({
  title: "Pay rent",
  due_date: "2026-03-03",
  due_time: "09:00",
  reminder_offset: null,
  priority: "high",
  notes: null,
  ambiguities: [],
  ...fields,
});

const EXAMPLE_PARSE: QuickTaskParse = {
  title: "Pay rent",
  due_at: "2026-03-03T09:00:00+01:00",
  due_date: null,
  all_day: false,
  reminder_offset: null,
  priority: "high",
  notes: null,
  ambiguities: [],
};

const answering = (reply: ModelReply): ThirdParty => structuredProviders(reply, QUICK_TASK_SCHEMA_NAME);

function parse(
  provider: AiProvider,
  input: ModelParserInput = BERLIN,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
) {
  const ctx = createContext({ env, ...(options.signal ? { signal: options.signal } : {}) });
  return parseQuickTaskWithModel(ctx, targetFor(provider), MODELS[provider], input, {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** The model's answer run through the parser (OpenAI's format; the conversion does not depend on it). */
async function parseAnswer(fields: Record<string, unknown>, input: ModelParserInput = BERLIN) {
  faked = fakeThirdParties(answering({ json: answer(fields) }));
  return parse("openai", input);
}

async function failureOf(pending: Promise<unknown>): Promise<StructuredOutputError> {
  const error = await pending.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StructuredOutputError);
  const failure = error as StructuredOutputError;
  expect(failure.message).not.toContain(KEY);
  expect(failure.message).not.toMatch(/https?:\/\//);
  expect(failure.message).not.toContain("Pay rent");
  return failure;
}

describe.each(FAMILIES)("parseQuickTaskWithModel (%s)", (provider) => {
  it("the issue's example: a local 09:00 tomorrow in Berlin is due_at with Berlin's offset", async () => {
    faked = fakeThirdParties(answering({ json: answer() }));
    expect(await parse(provider)).toEqual(EXAMPLE_PARSE);
  });

  it("sends one request: the model, the quick-task schema, the reference in the writer's own zone", async () => {
    faked = fakeThirdParties(answering({ json: answer() }));
    await parse(provider);
    expect(faked.requests).toHaveLength(1);
    const [request] = faked.requests as [Request];
    expect(request.url).toBe(STRUCTURED_ENDPOINTS[provider](MODELS[provider]));
    const body = await bodyOf(request);
    if (provider !== "gemini") expect(body.model).toBe(MODELS[provider]);
    const { schema, system, prompt } = sentParts(provider, body);
    expect(schema).toEqual(QUICK_TASK_SCHEMA);
    expect(system).toMatch(/never convert it to UTC/);
    expect(prompt).toContain(
      "Reference: Monday 2026-03-02, 10:00 local time (UTC offset +01:00), time zone Europe/Berlin.",
    );
    expect(prompt).toContain("Tuesday 2026-03-03, Wednesday 2026-03-04");
    expect(prompt).toContain(`Text: ${JSON.stringify(EXAMPLE_TEXT)}`);
  });

  it("invalid JSON text is invalid_json", async () => {
    faked = fakeThirdParties(answering({ text: '{"title": "Pay rent", "due_date": ' }));
    expect((await failureOf(parse(provider))).reason).toBe("invalid_json");
  });

  it("an empty answer is invalid_json", async () => {
    faked = fakeThirdParties(answering({ text: "" }));
    expect((await failureOf(parse(provider))).reason).toBe("invalid_json");
  });

  it("valid JSON of the wrong shape is invalid_answer, naming the fields only", async () => {
    faked = fakeThirdParties(answering({ json: { title: 42, priority: "urgent", due: "tomorrow" } }));
    const error = await failureOf(parse(provider));
    expect(error.reason).toBe("invalid_answer");
    expect(error.provider).toBe(provider);
    expect(error.message).toMatch(/\(title, priority\)$/);
  });

  it("a provider that never answers: timeout after timeoutMs", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    expect((await failureOf(parse(provider, BERLIN, { timeoutMs: 50 }))).reason).toBe("timeout");
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("429 is rate_limited", async () => {
    faked = fakeThirdParties(() => new Response(`{"error": "${KEY}"}`, { status: 429 }));
    expect(await failureOf(parse(provider))).toMatchObject({ reason: "rate_limited", providerStatus: 429 });
  });

  it("500 is provider_error with the status", async () => {
    faked = fakeThirdParties(() => new Response(`{"error": "${KEY}"}`, { status: 500 }));
    expect(await failureOf(parse(provider))).toMatchObject({ reason: "provider_error", providerStatus: 500 });
  });

  it("a network failure is network", async () => {
    faked = fakeThirdParties(() => {
      throw new TypeError(`fetch failed for https://x.example/?key=${KEY}`);
    });
    expect((await failureOf(parse(provider))).reason).toBe("network");
  });

  it("a redirect is not followed", async () => {
    faked = fakeThirdParties(
      () => new Response(null, { status: 307, headers: { Location: "https://elsewhere.example/" } }),
    );
    expect(await failureOf(parse(provider))).toMatchObject({ reason: "provider_error", providerStatus: 307 });
    expect(faked.requests).toHaveLength(1);
  });
});

describe("parseQuickTaskWithModel: the answer is checked before use", () => {
  it.each([
    ["an impossible date", { due_date: "2026-02-30" }, "due_date"],
    ["a date in another format", { due_date: "03/03/2026" }, "due_date"],
    ["a time past 23:59", { due_time: "25:00" }, "due_time"],
    ["a 12-hour time", { due_time: "9am" }, "due_time"],
    ["an empty title", { title: "   " }, "title"],
    ["a title over 2000 characters", { title: "x".repeat(2001) }, "title"],
    ["an unknown priority", { priority: "urgent" }, "priority"],
    ["a reminder offset that is a setting, not something said", { reminder_offset: "inherit" }, "reminder_offset"],
    ["notes that are not text", { notes: 5 }, "notes"],
    [
      "ambiguities of the wrong shape",
      { ambiguities: [{ field: "due_date" }] },
      "ambiguities.0.text, ambiguities.0.alternatives",
    ],
  ])("%s is invalid_answer", async (_name, fields, field) => {
    faked = fakeThirdParties(answering({ json: answer(fields) }));
    const error = await failureOf(parse("openai"));
    expect(error.reason).toBe("invalid_answer");
    expect(error.message).toContain(`(${field})`);
  });

  it("a title of exactly 2000 characters is accepted", async () => {
    expect((await parseAnswer({ title: "x".repeat(2000) })).title).toHaveLength(2000);
  });

  it("an unknown time zone is a RangeError before any call", async () => {
    faked = fakeThirdParties(answering({ json: answer() }));
    await expect(parse("openai", { ...BERLIN, timeZone: "Mars/Olympus_Mons" })).rejects.toThrow(RangeError);
    expect(faked.requests).toHaveLength(0);
  });
});

describe("parseQuickTaskWithModel: local wall times to the QuickTaskParse", () => {
  it("agrees with the local parser on the issue's example", async () => {
    const fromModel = await parseAnswer({});
    expect(fromModel).toEqual(parseQuickTaskLocally(BERLIN.text, BERLIN.timeZone, BERLIN.referenceAt));
  });

  it("only a date: an all-day due_date, no due_at", async () => {
    expect(await parseAnswer({ due_time: null })).toMatchObject({
      due_at: null,
      due_date: "2026-03-03",
      all_day: true,
    });
  });

  it("neither date nor time: both null, not all-day", async () => {
    expect(await parseAnswer({ due_date: null, due_time: null })).toMatchObject({
      due_at: null,
      due_date: null,
      all_day: false,
    });
  });

  it("the offset is the one in force on the due date (Berlin's summer time), not at the reference", async () => {
    expect((await parseAnswer({ due_date: "2026-03-30", due_time: "09:00" })).due_at).toBe("2026-03-30T09:00:00+02:00");
  });

  it("DST gap: America/New_York 2026-03-08 02:30 does not exist and moves forward to 03:30 -04:00", async () => {
    const newYork = { ...BERLIN, timeZone: "America/New_York", referenceAt: new Date("2026-03-07T12:00:00-05:00") };
    expect((await parseAnswer({ due_date: "2026-03-08", due_time: "02:30" }, newYork)).due_at).toBe(
      "2026-03-08T03:30:00-04:00",
    );
  });

  it("DST overlap: America/New_York 2026-11-01 01:30 happens twice; the earlier (-04:00) is taken", async () => {
    const newYork = { ...BERLIN, timeZone: "America/New_York", referenceAt: new Date("2026-10-31T12:00:00-04:00") };
    expect((await parseAnswer({ due_date: "2026-11-01", due_time: "01:30" }, newYork)).due_at).toBe(
      "2026-11-01T01:30:00-04:00",
    );
  });

  it("a UTC zone is written +00:00, as the local parser writes it", async () => {
    const utc = { ...BERLIN, timeZone: "UTC", referenceAt: new Date("2026-03-02T10:00:00Z") };
    expect((await parseAnswer({}, utc)).due_at).toBe("2026-03-03T09:00:00+00:00");
  });

  it("a time without a date is its next occurrence: tomorrow when today's has passed, else today", async () => {
    expect((await parseAnswer({ due_date: null, due_time: "09:00" })).due_at).toBe("2026-03-03T09:00:00+01:00");
    faked?.restore();
    expect((await parseAnswer({ due_date: null, due_time: "11:15" })).due_at).toBe("2026-03-02T11:15:00+01:00");
  });

  it("strings are trimmed, empty notes are null, a single-digit hour is read", async () => {
    expect(
      await parseAnswer({ title: "  Pay rent \n", notes: "   ", due_date: " 2026-03-03 ", due_time: "9:05" }),
    ).toMatchObject({ title: "Pay rent", notes: null, due_at: "2026-03-03T09:05:00+01:00" });
    faked?.restore();
    expect((await parseAnswer({ notes: "  landlord's IBAN in the lease  " })).notes).toBe(
      "landlord's IBAN in the lease",
    );
  });

  it("reminder offsets and priorities pass through", async () => {
    expect(await parseAnswer({ reminder_offset: "30_minutes_before", priority: "low" })).toMatchObject({
      reminder_offset: "30_minutes_before",
      priority: "low",
    });
  });

  it("fields left out (a provider that does not enforce `required`) are null; extra fields are ignored", async () => {
    faked = fakeThirdParties(answering({ json: { title: "Pay rent", due_date: "2026-03-03", mood: "grim" } }));
    expect(await parse("anthropic")).toEqual({
      ...EXAMPLE_PARSE,
      due_at: null,
      due_date: "2026-03-03",
      all_day: true,
      priority: null,
    });
  });

  it("ambiguities in the local parser's terms: a time's alternatives become due_at instants; bad values dropped", async () => {
    const parsed = await parseAnswer({
      due_time: "17:00",
      ambiguities: [
        { field: "due_time", text: "at 5", alternatives: ["05:00", "5 in the morning"] },
        { field: "due_date", text: "Friday", alternatives: ["2026-03-13", "2026-02-30"] },
        { field: "priority", text: "important-ish", alternatives: ["medium", "very"] },
      ],
    });
    expect(parsed.due_at).toBe("2026-03-03T17:00:00+01:00");
    expect(parsed.ambiguities).toEqual([
      { field: "due_at", text: "at 5", alternatives: ["2026-03-03T05:00:00+01:00"] },
      { field: "due_date", text: "Friday", alternatives: ["2026-03-13"] },
      { field: "priority", text: "important-ish", alternatives: ["medium"] },
    ]);
  });
});

describe("QUICK_TASK_SCHEMA", () => {
  /** OpenAI's strict mode: every object closed and with all its properties required; no `nullable` keyword. */
  function strictProblems(schema: unknown, path = "$"): string[] {
    if (schema === null || typeof schema !== "object") return [];
    const node = schema as Record<string, unknown>;
    const problems: string[] = [];
    if ("nullable" in node) problems.push(`${path}: nullable`);
    if (node.type === "object") {
      const keys = Object.keys((node.properties as object) ?? {});
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties`);
      if (JSON.stringify([...((node.required as string[]) ?? [])].sort()) !== JSON.stringify([...keys].sort())) {
        problems.push(`${path}: required`);
      }
    }
    for (const [key, value] of Object.entries(node)) {
      const children = Array.isArray(value)
        ? value.map((item, i) => [item, `${path}.${key}[${i}]`])
        : [[value, `${path}.${key}`]];
      for (const [child, at] of children) problems.push(...strictProblems(child, at as string));
    }
    return problems;
  }

  it("is valid for OpenAI's strict mode", () => {
    expect(strictProblems(QUICK_TASK_SCHEMA)).toEqual([]);
  });

  it("offers every reminder offset but none and inherit", () => {
    expect(MODEL_REMINDER_OFFSETS).toEqual([
      "at_time",
      "5_minutes_before",
      "10_minutes_before",
      "15_minutes_before",
      "30_minutes_before",
      "1_hour_before",
      "2_hours_before",
      "1_day_before",
      "2_days_before",
      "1_week_before",
    ]);
  });
});
