import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createContext } from "../../../src/lib/context";
import { configuredWebhook, notesWebhookTimeoutMs } from "../../../src/services/notes-import/config";
import { noteTitle } from "../../../src/services/notes-import/notes-import";
import { signNotesRequest } from "../../../src/services/notes-import/signature";

describe("the webhook signature", () => {
  it("matches the documented test vector (computed independently with Node's crypto)", async () => {
    // node -e 'crypto.createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")'
    const body =
      '{"id":"00000000-0000-4000-8000-000000000000","type":"transcription","title":"Errands","transcriptionText":"Buy milk.","user_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","created_at":"2026-11-20T09:30:00.000Z"}';
    expect(await signNotesRequest("whsec-notes-test-0123456789abcdef0123456789", 1795167000, body)).toBe(
      "sha256=bbf293cd290c5f66308ba7f7acc2ddbd6e5a4c3e84b6e12128cccec4318bc8d0",
    );
  });

  it("signs the body's UTF-8 bytes", async () => {
    const a = await signNotesRequest("secret", 1, "Ünïcødé 😀");
    expect(a).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(a).not.toBe(await signNotesRequest("secret", 1, "Unicode"));
  });
});

describe("notes configuration", () => {
  const contextWith = (overrides: Partial<Env>, local = false) =>
    createContext({ env: { ...env, ...overrides } as Env, local: () => local });

  it("the timeout: 10 s by default, 1 to 60 s", () => {
    const timeout = (value: string) => notesWebhookTimeoutMs({ NOTES_WEBHOOK_TIMEOUT_SECONDS: value });
    expect(timeout("")).toBe(10_000);
    expect(timeout("abc")).toBe(10_000);
    expect(timeout("0")).toBe(10_000);
    expect(timeout("-3")).toBe(10_000);
    expect(timeout("2.5")).toBe(10_000);
    expect(timeout("3")).toBe(3_000);
    expect(timeout("600")).toBe(60_000);
  });

  it("takes an https URL, dropping a fragment, and keeps its query", () => {
    const webhook = configuredWebhook(
      contextWith({
        ENVIRONMENT: "production",
        NOTES_WEBHOOK_URL: " https://hooks.example.test/notes?token=abc#part ",
        NOTES_WEBHOOK_SECRET: "x".repeat(32),
        NOTES_WEBHOOK_TIMEOUT_SECONDS: "5",
      }),
    );
    expect(webhook.url.href).toBe("https://hooks.example.test/notes?token=abc");
    expect(webhook.timeoutMs).toBe(5_000);
  });

  it.each([
    ["http://localhost:9000/notes", true],
    ["http://127.0.0.1/notes", true],
    ["http://127.10.0.3:8080/notes", true],
    ["http://[::1]:9000/notes", true],
    ["http://localhost.example.test/notes", false],
    ["http://127.0.0.1.nip.io/notes", false],
    ["http://192.168.1.10/notes", false],
    ["http://0.0.0.0/notes", false],
  ])("plain http during local work, to %s: %s", (url, accepted) => {
    const ctx = contextWith({ ENVIRONMENT: "development", NOTES_WEBHOOK_URL: url, NOTES_WEBHOOK_SECRET: "s" }, true);
    if (accepted) expect(configuredWebhook(ctx).url.protocol).toBe("http:");
    else expect(() => configuredWebhook(ctx)).toThrow(/must be an https URL/);
  });

  it("the title names the moment when none is given", () => {
    const now = new Date("2026-11-20T09:30:59.999Z");
    expect(noteTitle(undefined, now)).toBe("Transcription 2026-11-20 09:30 UTC");
    expect(noteTitle("  ", now)).toBe("Transcription 2026-11-20 09:30 UTC");
    expect(noteTitle(" Errands ", now)).toBe("Errands");
  });
});
