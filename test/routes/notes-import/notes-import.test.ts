import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { createUser, documentedResponses, newClientAddress, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, MALFORMED_AUTHORIZATION } from "../../helpers/auth-matrix";
import { captureConsole } from "../../helpers/console";
import { startEarlyInAWindow } from "../../helpers/rate-windows";
import { signSessionToken } from "../../helpers/session-token";
import { type FakedThirdParties, fakeThirdParties, untilAborted } from "../../helpers/third-party";

const PATH = "/notes-import";
/** Webhook URLs often carry their own token: it must appear nowhere but in the request sent. */
const WEBHOOK_URL = "https://hooks.notes.example.test/catch/4711/tok_c0ffee5ecret";
const WEBHOOK_SECRET = "whsec-notes-test-0123456789abcdef0123456789";
const UPSTREAM_SECRET_BODY = "Internal error at notes-internal-host: token tok_c0ffee5ecret rejected";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const CONFIGURED: Partial<Env> = {
  NOTES_WEBHOOK_URL: WEBHOOK_URL,
  NOTES_WEBHOOK_SECRET: WEBHOOK_SECRET,
  NOTES_WEBHOOK_TIMEOUT_SECONDS: "",
};

const clientAddress = newClientAddress;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/**
 * Sends a note as `options.user` (a new user when not given), or with the given Authorization
 * header (`null`: none).
 */
async function send(
  body: unknown,
  overrides: Partial<Env> = CONFIGURED,
  options: { client?: string; url?: string; user?: TestUser; authorization?: string | null } = {},
): Promise<Answer> {
  const authorization =
    options.authorization !== undefined
      ? options.authorization
      : `Bearer ${(options.user ?? (await createUser())).key}`;
  const response = await createApp().request(
    options.url ?? PATH,
    {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "CF-Connecting-IP": options.client ?? clientAddress(),
        ...(authorization === null ? {} : { Authorization: authorization }),
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    { ...env, ...overrides } as Env,
    createExecutionContext(),
  );
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: `text` tells.
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/**
 * The receiving side's check, written from the documented scheme alone: HMAC-SHA256 with the
 * secret over `<X-Notes-Timestamp>.<raw body>`, as `sha256=<hex>`, compared in constant time.
 */
async function verifySignature(secret: string, timestamp: string, rawBody: string, header: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  const match = /^sha256=([0-9a-f]{64})$/.exec(header);
  if (!match?.[1]) return false;
  const mac = Uint8Array.from(match[1].match(/../g) ?? [], (hex) => Number.parseInt(hex, 16));
  return crypto.subtle.verify("HMAC", key, mac, encoder.encode(`${timestamp}.${rawBody}`));
}

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

const consoleOutput = () => logs.lines.join("\n");

const accepting = (status = 200) => fakeThirdParties(() => new Response(status === 204 ? null : "ok", { status }));

describe("POST /notes-import", () => {
  it("posts the note as signed JSON to the webhook, naming the user who sent it, and answers success", async () => {
    faked = accepting();
    const user = await createUser();
    const before = Math.floor(Date.now() / 1000);
    const res = await send(
      { transcriptionText: "Call the dentist at nine.\nBuy milk.", title: "  Errands  " },
      CONFIGURED,
      {
        user,
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Sent to the notes tool" });

    expect(faked.requests).toHaveLength(1);
    const sent = faked.requests[0] as Request;
    expect(sent.method).toBe("POST");
    expect(sent.url).toBe(WEBHOOK_URL);
    expect(sent.redirect).toBe("manual");
    expect(sent.headers.get("Content-Type")).toBe("application/json");
    const rawBody = await sent.text();
    expect(JSON.parse(rawBody)).toEqual({
      id: expect.stringMatching(UUID),
      type: "transcription",
      title: "Errands",
      transcriptionText: "Call the dentist at nine.\nBuy milk.",
      user_id: user.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const timestamp = sent.headers.get("X-Notes-Timestamp") ?? "";
    const signature = sent.headers.get("X-Notes-Signature") ?? "";
    expect(timestamp).toMatch(/^\d+$/);
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifySignature(WEBHOOK_SECRET, timestamp, rawBody, signature)).toBe(true);
    // The signature covers the body and the timestamp: a change to either, or another secret, fails it.
    expect(await verifySignature(WEBHOOK_SECRET, timestamp, rawBody.replace("Buy milk", "Buy beer"), signature)).toBe(
      false,
    );
    expect(await verifySignature(WEBHOOK_SECRET, String(Number(timestamp) + 1), rawBody, signature)).toBe(false);
    expect(await verifySignature("another-secret-of-enough-length-0123456789", timestamp, rawBody, signature)).toBe(
      false,
    );
  });

  it("accepts any 2xx from the tool (204 included)", async () => {
    for (const status of [201, 202, 204]) {
      faked = accepting(status);
      const res = await send({ transcriptionText: "hello", title: "t" });
      expect(res.status, `${status}`).toBe(200);
      faked.restore();
    }
  });

  it("gives each note its own id", async () => {
    faked = accepting();
    await send({ transcriptionText: "one", title: "t" });
    await send({ transcriptionText: "one", title: "t" });
    const ids = await Promise.all(faked.requests.map(async (r) => (JSON.parse(await r.text()) as { id: string }).id));
    expect(new Set(ids).size).toBe(2);
  });

  it("the title is optional: missing, null or blank becomes one naming the moment", async () => {
    faked = accepting();
    for (const title of [undefined, null, "", "   "]) {
      const res = await send({ transcriptionText: "hello", title });
      expect(res.status, JSON.stringify(title)).toBe(200);
    }
    for (const request of faked.requests) {
      const payload = JSON.parse(await request.text()) as { title: string; created_at: string };
      expect(payload.title).toBe(`Transcription ${payload.created_at.slice(0, 16).replace("T", " ")} UTC`);
    }
  });

  it("sends the text as given, unusual characters included", async () => {
    faked = accepting();
    const text = '  Ünïcødé 😀 "quotes" \\ and <b>tags</b>\u2028\t ';
    expect((await send({ transcriptionText: text, title: "x" })).status).toBe(200);
    const sent = faked.requests[0] as Request;
    const rawBody = await sent.text();
    expect((JSON.parse(rawBody) as { transcriptionText: string }).transcriptionText).toBe(text);
    expect(
      await verifySignature(
        WEBHOOK_SECRET,
        sent.headers.get("X-Notes-Timestamp") ?? "",
        rawBody,
        sent.headers.get("X-Notes-Signature") ?? "",
      ),
    ).toBe(true);
  });

  it("reaches a receiver over http on this machine during local work", async () => {
    faked = accepting();
    const res = await send(
      { transcriptionText: "hi" },
      { ...CONFIGURED, NOTES_WEBHOOK_URL: "http://localhost:9000/notes" },
    );
    expect(res.status, res.text).toBe(200);
    expect((faked.requests[0] as Request).url).toBe("http://localhost:9000/notes");
  });
});

describeAuthMatrix({
  name: "POST /notes-import",
  method: "POST",
  path: () => PATH,
  body: { transcriptionText: "hello" },
});

describe("who may send: a user's credential with the write scope, and nothing reaches the tool otherwise", () => {
  it("401 without a credential or with a malformed one", async () => {
    faked = accepting();
    for (const authorization of [null, ...MALFORMED_AUTHORIZATION]) {
      const res = await send({ transcriptionText: "deliver me", title: "t" }, CONFIGURED, { authorization });
      expect(res.status, `${authorization}: ${res.text}`).toBe(401);
      expect(res.body).toMatchObject({ code: "unauthorized" });
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    }
    expect(faked.requests).toHaveLength(0);
  });

  it("403 for a read-only API key", async () => {
    faked = accepting();
    const user = await createUser();
    await env.DB.prepare("UPDATE api_keys SET scopes = 'read' WHERE user_id = ?").bind(user.id).run();
    const res = await send({ transcriptionText: "deliver me" }, CONFIGURED, { user });
    expect(res.status, res.text).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden" });
    expect(faked.requests).toHaveLength(0);
  });

  it("an app session may send too", async () => {
    faked = accepting();
    const user = await createUser();
    const token = await signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 60 });
    const res = await send({ transcriptionText: "from the app" }, CONFIGURED, { authorization: `Bearer ${token}` });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(await (faked.requests[0] as Request).text())).toMatchObject({ user_id: user.id });
  });
});

describe("400 without transcription text, and the tool is never called", () => {
  beforeEach(() => {
    faked = accepting();
  });
  afterEach(() => {
    expect(faked?.requests).toHaveLength(0);
  });

  it.each([
    ["missing", { title: "t" }],
    ["empty", { transcriptionText: "", title: "t" }],
    ["only white space", { transcriptionText: " \n\t\u00a0 ", title: "t" }],
    ["null", { transcriptionText: null, title: "t" }],
    ["a number", { transcriptionText: 42, title: "t" }],
    ["longer than 200,000 characters", { transcriptionText: "a".repeat(200_001), title: "t" }],
  ])("transcriptionText %s", async (_name, body) => {
    const res = await send(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { source: "request body" } });
    const issues = (res.body.details as { issues: { path: string }[] }).issues;
    expect(issues.map((issue) => issue.path)).toEqual(["transcriptionText"]);
  });

  it("a title that is not a string or longer than 300 characters", async () => {
    for (const title of [42, ["a"], "t".repeat(301)]) {
      const res = await send({ transcriptionText: "hello", title });
      expect(res.status).toBe(400);
      expect((res.body.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(["title"]);
    }
  });

  it("malformed JSON, or a body that is not an object", async () => {
    const malformed = await send('{"transcriptionText": "hello"');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: "malformed_json" });
    for (const body of ["[]", '"hello"', "null"]) expect((await send(body)).status).toBe(400);
  });
});

describe("a failing notes tool: 500 upstream_failed, with nothing of its URL, secret or answer", () => {
  const expectNothingLeaked = (res: Answer) => {
    expect(consoleOutput()).toContain("notes tool");
    for (const secret of ["tok_c0ffee5ecret", "hooks.notes.example.test", WEBHOOK_SECRET, "notes-internal-host"]) {
      expect(res.text).not.toContain(secret);
      expect(consoleOutput()).not.toContain(secret);
    }
  };

  it.each([500, 401, 429, 404, 400])("HTTP %i from the tool", async (status) => {
    faked = fakeThirdParties(() => new Response(UPSTREAM_SECRET_BODY, { status }));
    const res = await send({ transcriptionText: "hello", title: "t" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: `notes tool answered with HTTP ${status}`,
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    expectNothingLeaked(res);
  });

  it("a redirect is not followed: the signed note goes nowhere else", async () => {
    faked = fakeThirdParties(
      () => new Response(null, { status: 308, headers: { Location: "https://elsewhere.example.test/" } }),
    );
    const res = await send({ transcriptionText: "hello", title: "t" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "notes tool answered with HTTP 308",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(faked.requests).toHaveLength(1);
  });

  it("no connection", async () => {
    faked = fakeThirdParties(() => {
      throw new TypeError(`Network connection lost to ${WEBHOOK_URL}`);
    });
    const res = await send({ transcriptionText: "hello", title: "t" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "notes tool could not be reached",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expectNothingLeaked(res);
  });

  it("no answer within NOTES_WEBHOOK_TIMEOUT_SECONDS", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const started = Date.now();
    const res = await send(
      { transcriptionText: "hello", title: "t" },
      { ...CONFIGURED, NOTES_WEBHOOK_TIMEOUT_SECONDS: "1" },
    );
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "notes tool did not answer in time",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expectNothingLeaked(res);
  });
});

describe("not configured: 503 unavailable naming the setting, and nothing is sent", () => {
  beforeEach(() => {
    faked = accepting();
  });
  afterEach(() => {
    expect(faked?.requests).toHaveLength(0);
  });
  it("the contract says so: 503 unavailable, and 500 only for a failing third party", async () => {
    const responses = await documentedResponses(PATH);
    expect(responses["503"]?.description).toMatch(/`code` unavailable/);
    expect(responses["500"]?.description).not.toMatch(/configured/);
  });

  it("no webhook URL (the default: wrangler.toml and .dev.vars.example leave it empty)", async () => {
    for (const overrides of [{ ...CONFIGURED, NOTES_WEBHOOK_URL: "" }, {}]) {
      const res = await send({ transcriptionText: "hello", title: "t" }, overrides);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        error: "Notes import is not configured on this server: set NOTES_WEBHOOK_URL, the notes tool's webhook",
        code: "unavailable",
        details: { setting: "NOTES_WEBHOOK_URL" },
        request_id: expect.any(String),
      });
    }
  });

  it("no signing secret: notes are never sent unsigned", async () => {
    const res = await send({ transcriptionText: "hello" }, { ...CONFIGURED, NOTES_WEBHOOK_SECRET: "" });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "unavailable", details: { setting: "NOTES_WEBHOOK_SECRET" } });
  });

  it.each([
    ["http to another host", "http://hooks.notes.example.test/catch/tok_c0ffee5ecret", /must be an https URL/],
    ["not a URL", "hooks.notes.example.test/tok_c0ffee5ecret", /is not a URL/],
    ["credentials", "https://me:tok_c0ffee5ecret@hooks.notes.example.test/", /user name or password/],
  ])("a webhook URL with %s, never quoted back", async (_name, url, message) => {
    const res = await send({ transcriptionText: "hello" }, { ...CONFIGURED, NOTES_WEBHOOK_URL: url });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "unavailable", details: { setting: "NOTES_WEBHOOK_URL" } });
    expect(res.body.error).toMatch(message);
    expect(res.text).not.toContain("tok_c0ffee5ecret");
  });

  it("outside local work: http even to loopback, and a secret shorter than 32 characters, are refused", async () => {
    const deployed = { url: `https://api.example.test${PATH}` };
    const production = { ...CONFIGURED, ENVIRONMENT: "production" };
    const http = await send(
      { transcriptionText: "hello" },
      { ...production, NOTES_WEBHOOK_URL: "http://127.0.0.1:9000/notes" },
      deployed,
    );
    expect(http.status).toBe(503);
    expect(http.body).toMatchObject({ details: { setting: "NOTES_WEBHOOK_URL" } });

    const weak = await send({ transcriptionText: "hello" }, { ...production, NOTES_WEBHOOK_SECRET: "short" }, deployed);
    expect(weak.status).toBe(503);
    expect(weak.body).toMatchObject({ details: { setting: "NOTES_WEBHOOK_SECRET" } });
    expect(weak.body.error).toMatch(/at least 32 characters/);
  });
});

describe("the rate limit, per user", () => {
  it("past 30 requests a minute from one user (from any address), a 429 with Retry-After, and nothing more is sent", async () => {
    await startEarlyInAWindow();
    faked = accepting();
    const user = await createUser();
    for (let i = 0; i < 30; i++)
      expect((await send({ transcriptionText: `note ${i}` }, CONFIGURED, { user })).status).toBe(200);
    const refused = await send({ transcriptionText: "one too many" }, CONFIGURED, { user });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(refused.body).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 60 } });
    expect(faked.requests).toHaveLength(30);
    // Another user is counted on their own, from the same address too.
    const client = clientAddress();
    expect((await send({ transcriptionText: "another user" }, CONFIGURED, { client })).status).toBe(200);
    expect((await send({ transcriptionText: "and another" }, CONFIGURED, { client })).status).toBe(200);
  });
});
