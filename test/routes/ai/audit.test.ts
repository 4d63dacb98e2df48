import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { api, createUser, type TestUser } from "../../helpers/api";
import { uniqueWord } from "../../helpers/blocks";
import { aiProviders } from "../../helpers/fake-ai-provider";
import { type FakedThirdParties, fakeThirdParties } from "../../helpers/third-party";
import { type AuditRow, auditRecords, STREAM } from "./helpers";

// The audit records the stream writes are internal: no user-facing read or search shows them,
// to their owner or anyone else, and no write through the API reaches them.

let faked: FakedThirdParties | undefined;
afterEach(() => {
  faked?.restore();
  faked = undefined;
});

let owner: TestUser;
let record: AuditRow;
/** A word only the audit record (its model name and its prompt) and one ordinary page contain. */
let word: string;
let page: { id: string };

beforeAll(async () => {
  faked = fakeThirdParties(aiProviders());
  owner = await createUser();
  word = uniqueWord();
  const execution = createExecutionContext();
  // AI_AUDIT_PROMPTS on, so the record holds searchable words of its own.
  const res = await createApp().request(
    STREAM("openai"),
    {
      method: "POST",
      headers: { Authorization: `Bearer ${owner.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: `${word}-model`, prompt: `Tell me about ${word}`, apiKey: "sk-audit-test" }),
    },
    { ...env, AI_AUDIT_PROMPTS: "true" },
    execution,
  );
  await res.text();
  await waitOnExecutionContext(execution);
  faked.restore();
  faked = undefined;
  const records = await auditRecords(owner.id);
  if (records.length !== 1 || !records[0]) throw new Error(`expected one audit record, got ${records.length}`);
  record = records[0];
  const created = await api<{ id: string }>("/api/v1/pages", {
    method: "POST",
    auth: owner,
    body: { title: `Notes on ${word}`, type: "page" },
  });
  page = created.body;
});

const stored = async () =>
  env.DB.prepare("SELECT * FROM blocks WHERE id = ?").bind(record.id).first<Record<string, unknown>>();

describe("a provider_audit_log record written by the stream", () => {
  it("is stored, owned by the caller, with the prompt (AI_AUDIT_PROMPTS on) and searchable words", async () => {
    expect(record).toMatchObject({ type: "provider_audit_log", created_by: owner.id });
    expect(JSON.stringify(record.properties)).toContain(word);
  });

  it("is in no listing, type filter or search: the same word finds only the ordinary page", async () => {
    const listing = await api<{ id: string }[]>("/api/v1/blocks?limit=100", { auth: owner });
    expect(listing.status).toBe(200);
    expect(listing.body.map((b) => b.id)).not.toContain(record.id);
    expect((await api("/api/v1/blocks?type=provider_audit_log", { auth: owner })).body).toEqual([]);
    const search = await api<{ id: string }[]>(`/api/v1/blocks?q=${word}`, { auth: owner });
    expect(search.body.map((b) => b.id)).toEqual([page.id]);
    const pages = await api<{ id: string }[]>("/api/v1/pages", { auth: owner });
    expect(pages.body.map((p) => p.id)).not.toContain(record.id);
  });

  it.each([
    ["GET", "/api/v1/blocks/{id}"],
    ["GET", "/api/v1/blocks/{id}/children"],
    ["GET", "/api/v1/blocks/{id}/hierarchy"],
    ["GET", "/api/v1/pages/{id}"],
    ["GET", "/api/v1/pages/{id}/export"],
    ["GET", "/api/v1/pages/{id}/export?format=json"],
    ["GET", "/api/v1/pages/export/batch?ids={id}"],
    ["GET", "/api/v1/comments/block/{id}"],
    ["GET", "/api/v1/backlinks/{id}"],
  ])("%s %s is a 404, to its owner", async (method, path) => {
    const res = await api(path.replace("{id}", record.id), { method, auth: owner });
    expect(res.status).toBe(404);
  });

  it.each([
    ["PUT", "/api/v1/pages/{id}", { properties: { title: "Taken over" }, content: [] }],
    ["PATCH", "/api/v1/blocks/{id}", { properties: { status: "edited" } }],
    ["POST", "/api/v1/blocks/{id}/convert", { type: "page" }],
    ["POST", "/api/v1/blocks/{id}/archive", {}],
    ["POST", "/api/v1/blocks/{id}/trash", undefined],
    ["POST", "/api/v1/blocks/{id}/move", { parent_id: null, position: 1 }],
    ["POST", "/api/v1/blocks/{id}/duplicate", {}],
    ["DELETE", "/api/v1/pages/{id}?permanent=true", undefined],
    ["DELETE", "/api/v1/blocks/{id}", undefined],
  ])("%s %s is a 404 and leaves the record as it was", async (method, path, body) => {
    const before = await stored();
    const res = await api(path.replace("{id}", record.id), { method, auth: owner, body });
    expect(res.status).toBe(404);
    expect(await stored()).toEqual(before);
  });

  it("is a 404 to another user too", async () => {
    const stranger = await createUser();
    expect((await api(`/api/v1/blocks/${record.id}`, { auth: stranger })).status).toBe(404);
    expect((await api(`/api/v1/blocks?q=${word}`, { auth: stranger })).body).toEqual([]);
  });
});
