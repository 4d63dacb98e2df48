import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import type { QuickTaskCreated, QuickTaskPreview } from "../../../src/schemas/quick-tasks";
import { QUICK_TASK_SCHEMA_NAME } from "../../../src/services/quick-tasks/model-parser";
import { api, createUser, type TestUser } from "../../helpers/api";
import { captureConsole } from "../../helpers/console";
import {
  bodyOf,
  type ModelReply,
  STRUCTURED_ENDPOINTS,
  structuredProviders,
} from "../../helpers/fake-structured-provider";
import { type FakedThirdParties, fakeThirdParties, untilAborted } from "../../helpers/third-party";

// The model parser behind the routes: the server's configuration (TASK_CAPTURE_*, the provider
// keys) comes from the Worker's bindings, so these requests run the app with bindings of their
// own; the provider is faked at the fetch boundary.

const PREVIEW = "/api/v1/tasks/from-natural-language/preview";
const CREATE = "/api/v1/tasks/from-natural-language";
const SERVER_KEY = "sk-test-quick-task-server-key-0123456789";
const OPENAI_SERVER = {
  TASK_CAPTURE_PROVIDER: "openai",
  TASK_CAPTURE_MODEL: "gpt-4.1-mini",
  OPENAI_API_KEY: SERVER_KEY,
};
const EXAMPLE = {
  text: "Pay rent tomorrow at 9am, high priority",
  timezone: "Europe/Berlin",
  reference_at: "2026-03-02T10:00:00+01:00",
};
/** What a model answers for EXAMPLE (local wall-clock values, as the schema asks). */
const MODEL_ANSWER = {
  title: "Pay the rent",
  due_date: "2026-03-03",
  due_time: "09:00",
  reminder_offset: "1_hour_before",
  priority: "high",
  notes: null,
  ambiguities: [],
};

let faked: FakedThirdParties | undefined;
let consoleCapture: ReturnType<typeof captureConsole>;
beforeEach(() => {
  consoleCapture = captureConsole();
});
afterEach(() => {
  faked?.restore();
  faked = undefined;
  consoleCapture.restore();
});

async function send<T>(user: TestUser, path: string, body: unknown, bindings: Partial<Env>) {
  const execution = createExecutionContext();
  const res = await createApp().request(
    path,
    {
      method: "POST",
      headers: { Authorization: `Bearer ${user.key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    },
    { ...env, ...bindings },
    execution,
  );
  const text = await res.text();
  await waitOnExecutionContext(execution);
  return { status: res.status, body: JSON.parse(text) as T, text };
}

const answering = (reply: ModelReply) => structuredProviders(reply, QUICK_TASK_SCHEMA_NAME);

describe("quick tasks with a configured model", () => {
  it("parses with the server's model and key, and creates the task with the model's reading", async () => {
    faked = fakeThirdParties(answering({ json: MODEL_ANSWER }));
    const user = await createUser();
    const res = await send<QuickTaskCreated>(user, CREATE, EXAMPLE, OPENAI_SERVER);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      parser: "model",
      parser_fallback_reason: null,
      parse: {
        title: "Pay the rent",
        due_at: "2026-03-03T09:00:00+01:00",
        all_day: false,
        priority: "high",
        reminder_offset: "1_hour_before",
      },
    });
    expect(res.body.reminder?.remind_at).toBe("2026-03-03T07:00:00.000Z");
    expect(faked.requests).toHaveLength(1);
    const [request] = faked.requests;
    expect(request?.url).toBe(STRUCTURED_ENDPOINTS.openai("gpt-4.1-mini"));
    expect(request?.headers.get("Authorization")).toBe(`Bearer ${SERVER_KEY}`);
    const sent = await bodyOf(request as Request);
    expect(sent).toMatchObject({ model: "gpt-4.1-mini", response_format: { type: "json_schema" } });
    expect(JSON.stringify(sent)).toContain("Pay rent tomorrow at 9am, high priority");
    expect(res.text).not.toContain(SERVER_KEY);
    expect(consoleCapture.lines.join("\n")).not.toContain(SERVER_KEY);
  });

  it("uses the user's provider and model over the server's", async () => {
    faked = fakeThirdParties(answering({ json: MODEL_ANSWER }));
    const user = await createUser();
    const patched = await api("/api/v1/settings", {
      method: "PATCH",
      auth: user,
      body: { quickTaskProvider: "anthropic", quickTaskModel: "claude-haiku-4-5" },
    });
    expect(patched.status).toBe(200);
    const res = await send<QuickTaskPreview>(user, PREVIEW, EXAMPLE, {
      ...OPENAI_SERVER,
      ANTHROPIC_API_KEY: "sk-ant-test-server",
    });
    expect(res.status).toBe(200);
    expect(res.body.parser).toBe("model");
    const [request] = faked.requests;
    expect(request?.url).toBe(STRUCTURED_ENDPOINTS.anthropic("claude-haiku-4-5"));
    expect(await bodyOf(request as Request)).toMatchObject({ model: "claude-haiku-4-5" });
  });

  it("falls back to the local parser, without calling, when the user's provider has no server key", async () => {
    faked = fakeThirdParties(answering({ json: MODEL_ANSWER }));
    const user = await createUser();
    await api("/api/v1/settings", {
      method: "PATCH",
      auth: user,
      body: { quickTaskProvider: "gemini", quickTaskModel: "gemini-2.5-flash" },
    });
    const res = await send<QuickTaskPreview>(user, PREVIEW, EXAMPLE, OPENAI_SERVER);
    expect(res.body.parser).toBe("local");
    expect(res.body.parser_fallback_reason).toContain("GEMINI_API_KEY");
    expect(faked.requests).toHaveLength(0);
  });

  const failures: [string, () => Response | Promise<Response>, string][] = [
    ["answers text that is not JSON", () => Response.json(openaiText("Sure! Pay rent tomorrow.")), "invalid_json"],
    [
      "answers JSON of the wrong shape",
      () => Response.json(openaiText(JSON.stringify({ ...MODEL_ANSWER, due_date: "2026-02-30" }))),
      "invalid_answer",
    ],
    ["is rate limited (429)", () => new Response("{}", { status: 429 }), "rate_limited"],
    ["fails (500)", () => new Response("{}", { status: 500 }), "provider_error"],
    ["cannot be reached", () => Promise.reject(new TypeError("fetch failed")), "network"],
  ];

  it.each(failures)("falls back to the local parser when the provider %s", async (_name, answer, reason) => {
    faked = fakeThirdParties(answer);
    const user = await createUser();
    const res = await send<QuickTaskCreated>(user, CREATE, EXAMPLE, OPENAI_SERVER);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      parser: "local",
      parse: { title: "Pay rent", due_at: "2026-03-03T09:00:00+01:00", priority: "high" },
    });
    expect(res.body.parser_fallback_reason).toContain(` ${reason}: `);
    expect(res.text).not.toContain(SERVER_KEY);
    expect(consoleCapture.lines.some((line) => line.includes("Quick-task model parser failed"))).toBe(true);
  });

  it("falls back to the local parser when the model takes longer than TASK_CAPTURE_TIMEOUT_SECONDS", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const user = await createUser();
    const started = Date.now();
    const res = await send<QuickTaskPreview>(user, PREVIEW, EXAMPLE, {
      ...OPENAI_SERVER,
      TASK_CAPTURE_TIMEOUT_SECONDS: "1",
    });
    expect(res.status).toBe(200);
    expect(res.body.parser).toBe("local");
    expect(res.body.parser_fallback_reason).toContain(" timeout: ");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/** An OpenAI chat completion whose message content is `content`. */
function openaiText(content: string) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  };
}

describe("the order of the work", () => {
  it("answers 404 for a database the caller cannot use before calling any model", async () => {
    faked = fakeThirdParties(answering({ json: MODEL_ANSWER }));
    const user = await createUser();
    const res = await send(user, CREATE, { ...EXAMPLE, database_id: crypto.randomUUID() }, OPENAI_SERVER);
    expect(res.status).toBe(404);
    expect(faked.requests).toHaveLength(0);
  });

  it("takes a model's reminder at the due time", async () => {
    faked = fakeThirdParties(answering({ json: { ...MODEL_ANSWER, reminder_offset: "at_time" } }));
    const user = await createUser();
    const res = await send<QuickTaskCreated>(user, CREATE, EXAMPLE, OPENAI_SERVER);
    expect(res.status).toBe(201);
    expect(res.body.parser).toBe("model");
    expect(res.body.reminder?.remind_at).toBe("2026-03-03T08:00:00.000Z");
  });
});
