import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createContext } from "../../src/lib/context";
import { callThirdParty, OutboundError } from "../../src/lib/outbound";
import { createRouter, defineRoute } from "../../src/openapi/define-route";
import { jsonContent, SuccessSchema } from "../../src/openapi/responses";
import { type FakedThirdParties, fakeThirdParties, untilAborted } from "../helpers/third-party";

const SECRET_URL = "https://api.provider.test/v1/complete?api_key=sk-live-very-secret";

let faked: FakedThirdParties | undefined;
afterEach(() => faked?.restore());

const background = () => createContext({ env });

/** The message and every enumerable field of an error, as a log line would show them. */
const everythingSaid = (error: unknown) => JSON.stringify({ ...(error as object), message: String(error) });

async function failureOf(call: Promise<unknown>): Promise<OutboundError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

describe("callThirdParty", () => {
  it("returns the third party's response, sending the request as given", async () => {
    faked = fakeThirdParties(async (request) =>
      Response.json({ echoed: await request.text(), auth: request.headers.get("Authorization") }),
    );
    const response = await callThirdParty(background(), "provider", SECRET_URL, {
      method: "POST",
      headers: { Authorization: "Bearer sk-live-very-secret" },
      body: "hello",
    });
    expect(await response.json()).toEqual({ echoed: "hello", auth: "Bearer sk-live-very-secret" });
    expect(faked.requests.map((request) => request.url)).toEqual([SECRET_URL]);
  });

  it("abandons a third party that does not answer in time, with an error that names no URL", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const error = await failureOf(callThirdParty(background(), "provider", SECRET_URL, { timeoutMs: 30 }));
    expect(error.failure).toBe("timeout");
    expect(error.message).toBe("provider did not answer in time");
    expect(everythingSaid(error)).not.toMatch(/provider\.test|sk-live|api_key/);
  });

  it("aborts the upstream call when the client goes away", async () => {
    faked = fakeThirdParties((request) => untilAborted(request.signal));
    const client = new AbortController();
    const ctx = createContext({ env, signal: client.signal });
    const call = callThirdParty(ctx, "provider", SECRET_URL);
    await new Promise((resolve) => setTimeout(resolve, 5));
    client.abort();
    const error = await failureOf(call);
    expect(error.failure).toBe("aborted");
    expect(faked.requests[0]?.signal.aborted).toBe(true);
  });

  it("turns a network failure into an error without the URL or the underlying message", async () => {
    faked = fakeThirdParties(() => {
      throw new TypeError(`fetch failed: getaddrinfo ENOTFOUND for ${SECRET_URL}`);
    });
    const error = await failureOf(callThirdParty(background(), "provider", SECRET_URL));
    expect(error.failure).toBe("network");
    expect(error.message).toBe("provider could not be reached");
    expect(everythingSaid(error)).not.toMatch(/provider\.test|sk-live|ENOTFOUND/);
  });

  it("refuses a status the caller does not accept without reading or repeating the body", async () => {
    faked = fakeThirdParties(() => new Response("upstream says: key sk-live-very-secret is invalid", { status: 401 }));
    const error = await failureOf(
      callThirdParty(background(), "provider", SECRET_URL, { accept: (status) => status < 400 }),
    );
    expect(error).toMatchObject({ failure: "status", status: 401 });
    expect(everythingSaid(error)).not.toMatch(/sk-live|upstream says/);
  });

  it("returns any status when the caller accepts everything (the default)", async () => {
    faked = fakeThirdParties(() => new Response("busy", { status: 429 }));
    const response = await callThirdParty(background(), "provider", SECRET_URL);
    expect(response.status).toBe(429);
  });
});

describe("a third-party failure reaching the error handler", () => {
  const failing = defineRoute({
    operationId: "testUpstream",
    method: "get",
    path: "/test-only/upstream",
    access: "open",
    summary: "Calls a failing third party",
    description: "Test route",
    responses: { 200: jsonContent(SuccessSchema, "Never") },
  });

  it("is a 500 upstream_failed naming only the service", async () => {
    faked = fakeThirdParties(() => new Response("secret body", { status: 503 }));
    const app = createApp();
    app.route(
      "/",
      createRouter().openapi(failing, async (c) => {
        await callThirdParty(c.var.ctx, "notes tool", SECRET_URL, { accept: (status) => status < 300 });
        return c.json({ success: true, message: "sent" }, 200);
      }),
    );
    const res = await app.request("/test-only/upstream", {}, env, createExecutionContext());
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: "notes tool answered with HTTP 503",
      code: "upstream_failed",
      request_id: expect.any(String),
    });
    expect(text).not.toMatch(/secret|provider\.test/);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });
});
