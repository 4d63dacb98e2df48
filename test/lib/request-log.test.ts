import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { createUser } from "../helpers/api";

// The per-request log line is off in the tests' configuration (vitest.config.ts); here it is on.
const loggingEnv = { ...env, REQUEST_LOG: "on" };

/** The JSON lines written to the console while `run` ran. */
async function linesDuring(
  run: () => Response | Promise<Response>,
): Promise<{ res: Response; lines: Record<string, unknown>[] }> {
  const written: string[] = [];
  const capture = (...args: unknown[]) => {
    written.push(args.map(String).join(" "));
  };
  const spies = [
    vi.spyOn(console, "log").mockImplementation(capture),
    vi.spyOn(console, "warn").mockImplementation(capture),
    vi.spyOn(console, "error").mockImplementation(capture),
  ];
  try {
    const res = await run();
    await res.text();
    return { res, lines: written.map((line) => JSON.parse(line) as Record<string, unknown>) };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("the request log line", () => {
  it("says who asked what and how it ended: request id, method, route template, status, duration, D1 round trips, credential", async () => {
    const user = await createUser();
    const app = createApp();
    const id = crypto.randomUUID();
    const { res, lines } = await linesDuring(() =>
      app.request(
        `/api/v1/blocks?parent_id=${id}&q=secretquery`,
        { headers: { Authorization: `Bearer ${user.key}`, "X-Request-Id": "trace-42" } },
        loggingEnv,
        createExecutionContext(),
      ),
    );
    // A search under a parent: the route ran and read D1.
    expect(res.status).toBe(200);
    const requestLines = lines.filter((line) => line.message === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toEqual({
      level: "info",
      message: "request",
      request_id: "trace-42",
      method: "GET",
      route: "/api/v1/blocks",
      status: 200,
      duration_ms: expect.any(Number),
      d1_round_trips: expect.any(Number),
      credential: "api_key",
    });
    // Never the key, the ids, the query or the user's email.
    const written = JSON.stringify(lines);
    expect(written).not.toContain(user.key);
    expect(written).not.toContain(id);
    expect(written).not.toContain("secretquery");
    expect(written).not.toContain("@");
  });

  it("names no credential for an open route, and the wildcard for a path no route serves", async () => {
    const app = createApp();
    const { lines } = await linesDuring(() => app.request("/no/such/route", {}, loggingEnv, createExecutionContext()));
    expect(lines.find((line) => line.message === "request")).toMatchObject({
      level: "info",
      status: 404,
      credential: null,
      route: "/*",
    });
  });

  it("is written at level error for a 5xx, beside the failure's own line with the same request id", async () => {
    const app = createApp();
    app.get("/test-only/fails", () => {
      throw new Error("boom");
    });
    const { lines } = await linesDuring(() =>
      app.request(
        "/test-only/fails",
        { headers: { "X-Request-Id": "trace-500" } },
        loggingEnv,
        createExecutionContext(),
      ),
    );
    expect(lines.map((line) => [line.level, line.message, line.request_id])).toEqual([
      ["error", "request failed", "trace-500"],
      ["error", "request", "trace-500"],
    ]);
  });

  it("is not written when REQUEST_LOG is off", async () => {
    const app = createApp();
    const { lines } = await linesDuring(() =>
      app.request("/test", {}, { ...env, REQUEST_LOG: "off" }, createExecutionContext()),
    );
    expect(lines.filter((line) => line.message === "request")).toEqual([]);
  });
});

describe("error bodies", () => {
  it("carry the request's id, the same as X-Request-Id, so a user can quote it", async () => {
    const app = createApp();
    const res = await app.request(
      "/api/v1/blocks",
      { headers: { "X-Request-Id": "quote-me-7" } },
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("X-Request-Id")).toBe("quote-me-7");
    expect(await res.json()).toMatchObject({ code: "unauthorized", request_id: "quote-me-7" });
  });
});
