import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import type { Settings } from "../../../src/schemas/settings";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { createDatabase } from "../../helpers/databases";
import { createPage } from "../../helpers/pages";

const SETTINGS = "/api/v1/settings";

const patch = (user: TestUser, body: unknown) => api<Settings>(SETTINGS, { method: "PATCH", auth: user, body });

describeAuthMatrix({ name: "GET /api/v1/settings", method: "GET", path: () => SETTINGS });
describeAuthMatrix({
  name: "PATCH /api/v1/settings",
  method: "PATCH",
  path: () => SETTINGS,
  body: { quickTaskSkipPreview: true },
});

describe("GET /api/v1/settings", () => {
  it("answers the defaults before anything is set, with why the local parser answers", async () => {
    const user = await createUser();
    const res = await api<Settings>(SETTINGS, { auth: user });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      quickTaskProvider: null,
      quickTaskModel: null,
      quickTaskDatabaseId: null,
      quickTaskSkipPreview: false,
      quickTaskTemplateDatabaseId: null,
      quickTaskParser: {
        provider: null,
        model: null,
        ready: false,
        reason: "No parsing provider: TASK_CAPTURE_PROVIDER is empty",
      },
      updatedAt: null,
    });
  });
});

describe("PATCH /api/v1/settings", () => {
  it("changes only the fields given, keeps the others, and null clears", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    const first = await patch(user, { quickTaskDatabaseId: database.id, quickTaskSkipPreview: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ quickTaskDatabaseId: database.id, quickTaskSkipPreview: true });
    expect(first.body.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const second = await patch(user, { quickTaskProvider: "anthropic", quickTaskModel: "  claude-haiku-4-5  " });
    expect(second.body).toMatchObject({
      quickTaskProvider: "anthropic",
      quickTaskModel: "claude-haiku-4-5",
      quickTaskDatabaseId: database.id,
      quickTaskSkipPreview: true,
      // The server has no Anthropic key here: the parser says so rather than failing later.
      quickTaskParser: { provider: "anthropic", model: "claude-haiku-4-5", ready: false },
    });
    expect(second.body.quickTaskParser.reason).toBe("No server key for anthropic: ANTHROPIC_API_KEY is not set");

    // Naming the same provider keeps the model; another provider without a model clears it.
    const same = await patch(user, { quickTaskProvider: "anthropic" });
    expect(same.body.quickTaskModel).toBe("claude-haiku-4-5");
    const cleared = await patch(user, { quickTaskDatabaseId: null, quickTaskProvider: null });
    expect(cleared.body).toMatchObject({
      quickTaskDatabaseId: null,
      quickTaskProvider: null,
      quickTaskModel: null,
      quickTaskSkipPreview: true,
    });
    const both = await patch(user, { quickTaskProvider: "groq", quickTaskModel: "llama-3.3-70b-versatile" });
    expect(both.body).toMatchObject({ quickTaskProvider: "groq", quickTaskModel: "llama-3.3-70b-versatile" });
    expect((await api<Settings>(SETTINGS, { auth: user })).body).toEqual(both.body);
  });

  it("reports the model parser ready when the provider has a server key", async () => {
    const user = await createUser();
    await patch(user, { quickTaskProvider: "openai", quickTaskModel: "gpt-4.1-mini" });
    const execution = createExecutionContext();
    const res = await createApp().request(
      SETTINGS,
      { headers: { Authorization: `Bearer ${user.key}` } },
      { ...env, OPENAI_API_KEY: "sk-test-settings" },
      execution,
    );
    await waitOnExecutionContext(execution);
    const body = (await res.json()) as Settings;
    expect(body.quickTaskParser).toEqual({ provider: "openai", model: "gpt-4.1-mini", ready: true, reason: null });
  });

  it.each([
    ["an empty body", {}],
    ["an unknown field", { theme: "dark" }],
    ["an unknown provider", { quickTaskProvider: "cohere" }],
    ["a blank model", { quickTaskModel: "   " }],
    ["a model name over 200 characters", { quickTaskModel: "m".repeat(201) }],
    ["a model name with a line break", { quickTaskModel: "gpt-4.1\nmini" }],
    ["a skip flag that is not a boolean", { quickTaskSkipPreview: "yes" }],
    ["a database id that is not a string", { quickTaskDatabaseId: 42 }],
  ])("400 for %s, changing nothing", async (_name, body) => {
    const user = await createUser();
    await patch(user, { quickTaskSkipPreview: true });
    const before = (await api<Settings>(SETTINGS, { auth: user })).body;
    const res = await patch(user, body);
    expectErrorBody(res, 400);
    expect((await api<Settings>(SETTINGS, { auth: user })).body).toEqual(before);
  });

  it("400 for openai-compatible where the server has no OPENAI_COMPATIBLE_BASE_URL, listing what is allowed", async () => {
    const user = await createUser();
    const execution = createExecutionContext();
    const res = await createApp().request(
      SETTINGS,
      {
        method: "PATCH",
        headers: { Authorization: `Bearer ${user.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ quickTaskProvider: "openai-compatible" }),
      },
      { ...env, OPENAI_COMPATIBLE_BASE_URL: "" },
      execution,
    );
    await waitOnExecutionContext(execution);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { field: string; allowed: string[] } };
    expect(body.details).toEqual({
      field: "quickTaskProvider",
      allowed: ["openai", "anthropic", "gemini", "mistral", "groq"],
    });
    // Where the compatible server is configured (wrangler.toml's local Ollama address), it may be chosen.
    expect((await patch(user, { quickTaskProvider: "openai-compatible" })).status).toBe(200);
  });

  it("404 for a database the caller cannot use: another user's, a page, a trashed or archived one, none", async () => {
    const user = await createUser();
    const other = await createUser();
    const theirs = await createDatabase(other, { properties: [] });
    const page = await createPage(user, { title: "Not a database" });
    const trashed = await createDatabase(user, { properties: [] });
    await api(`/api/v1/blocks/${trashed.id}`, { method: "PATCH", auth: user, body: { in_trash: true } });
    const archived = await createDatabase(user, { properties: [] });
    await api(`/api/v1/blocks/${archived.id}`, { method: "PATCH", auth: user, body: { archived: true } });
    for (const id of [theirs.id, page.id, trashed.id, archived.id, crypto.randomUUID()]) {
      const res = await patch(user, { quickTaskDatabaseId: id, quickTaskSkipPreview: true });
      expectErrorBody(res, 404);
      expect(res.body).toMatchObject({ details: { field: "quickTaskDatabaseId", database_id: id } });
    }
    // Nothing of the refused writes landed, not even the other field.
    expect((await api<Settings>(SETTINGS, { auth: user })).body).toMatchObject({
      quickTaskDatabaseId: null,
      quickTaskSkipPreview: false,
    });
  });

  it("keeps every field of concurrent changes to different settings", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    await Promise.all([
      patch(user, { quickTaskDatabaseId: database.id }),
      patch(user, { quickTaskSkipPreview: true }),
      patch(user, { quickTaskProvider: "gemini" }),
      patch(user, { quickTaskModel: "gemini-2.5-flash" }),
    ]);
    expect((await api<Settings>(SETTINGS, { auth: user })).body).toMatchObject({
      quickTaskDatabaseId: database.id,
      quickTaskSkipPreview: true,
      quickTaskProvider: "gemini",
      quickTaskModel: "gemini-2.5-flash",
    });
  });
});
