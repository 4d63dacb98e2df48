import { createExecutionContext, env } from "cloudflare:test";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { api, createUser } from "../helpers/api";
import { addApiKey, describeAuthMatrix, expectErrorBody, revokeApiKey } from "../helpers/auth-matrix";
import { callTool, connectMcp, postMcp, readOnlyKey, sessionToken } from "../helpers/mcp";
import { countOwnedBlocks } from "../helpers/pages";
import { startEarlyInAWindow } from "../helpers/rate-windows";

const WINDOW = Number(env.API_RATE_LIMIT_WINDOW_SECONDS);

// POST /mcp as an MCP client meets it: initialize, the tool list a credential gets, what a
// read-only key may call, and the HTTP answers around the protocol (credentials, Accept,
// methods, protocol versions, Idempotency-Key).

const READ_TOOLS = ["search", "get_page", "get_block_tree", "query_database", "list_comments"];
const WRITE_TOOLS = ["create_page", "update_page", "add_rows", "add_comment", "capture_task"];

const initialize = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describeAuthMatrix({ name: "POST /mcp", method: "POST", path: () => "/mcp", body: initialize() });

describe("initialize", () => {
  it("negotiates the current revision and names the server, its tools and resources capabilities and instructions", async () => {
    const client = await connectMcp(await createUser());
    expect(client.getServerVersion()).toMatchObject({ name: "workspace-api", version: "1.0.0" });
    // Stateless, it never sends a message unasked: no list changes to announce.
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });
    expect(client.getInstructions()).toContain("read-only key");
    await client.close();
  });

  it("answers one JSON body, with no session id, and takes an app session as well as an API key", async () => {
    const user = await createUser();
    const res = await postMcp(await sessionToken(user), initialize());
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(res.headers.get("Mcp-Session-Id")).toBeNull();
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: LATEST_PROTOCOL_VERSION } });
  });
});

describe("tools/list", () => {
  it("lists every tool to a key with the write scope, each with its input schema from the contract's", async () => {
    const client = await connectMcp(await createUser());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // The contract's descriptions and examples, and the components it refers to as $defs.
    type Schema = { required?: string[]; $defs?: Record<string, unknown> };
    const queryDatabase = byName.get("query_database")?.inputSchema as Schema;
    expect(queryDatabase.required).toEqual(["database_id"]);
    expect(JSON.stringify(queryDatabase)).toContain("Database block id");
    expect(Object.keys(queryDatabase.$defs ?? {})).toEqual(expect.arrayContaining(["RowFilter", "RowSort"]));
    const addRows = byName.get("add_rows")?.inputSchema as Schema;
    expect(Object.keys(addRows.$defs ?? {})).toEqual(expect.arrayContaining(["DatabaseRowInput", "ContentItem"]));
    expect(JSON.stringify(tools)).not.toContain("#/components/");
    expect(JSON.stringify(tools)).not.toContain('"example"');
    await client.close();
  });

  it("lists only the read tools to a read-only key", async () => {
    const client = await connectMcp(await readOnlyKey(await createUser()));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    await client.close();
  });
});

describe("a read-only key", () => {
  it("calls the read tools", async () => {
    const client = await connectMcp(await readOnlyKey(await createUser()));
    const result = await callTool(client, "search", { query: "anything" });
    expect(result.isError).toBe(false);
    await client.close();
  });

  it.each(WRITE_TOOLS)(
    "calling %s is a tool error naming the missing scope write, and writes nothing",
    async (name) => {
      const user = await createUser();
      const client = await connectMcp(await readOnlyKey(user));
      const before = await countOwnedBlocks(user.id);
      const result = await callTool(client, name, { title: "Nope", text: "Pay rent", timezone: "UTC" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("'write' scope");
      expect(result.text).toContain("code forbidden");
      expect(result.structured).toMatchObject({ code: "forbidden", details: { required_scope: "write" } });
      expect(await countOwnedBlocks(user.id)).toBe(before);
      await client.close();
    },
  );
});

describe("credentials on the HTTP request", () => {
  it("no credential is a 401 with WWW-Authenticate, before any JSON-RPC", async () => {
    const res = await postMcp(undefined, initialize());
    expectErrorBody(res, 401);
    expect(res.body).toMatchObject({ code: "unauthorized" });
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });

  it("a key revoked after connecting is a 401 on the next HTTP request, its tool never run", async () => {
    const user = await createUser();
    const key = await addApiKey(user);
    const client = await connectMcp(key);
    await revokeApiKey(key);
    const before = await countOwnedBlocks(user.id);
    await expect(
      client.callTool({ name: "create_page", arguments: { title: "After revocation" } }),
    ).rejects.toMatchObject({
      code: 401,
    });
    expect(await countOwnedBlocks(user.id)).toBe(before);
    const raw = await postMcp(key, initialize());
    expectErrorBody(raw, 401);
    expect(raw.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });
});

describe("the HTTP answers around the protocol", () => {
  it("a POST of a notification only is a 202 with no body", async () => {
    const res = await postMcp(await createUser(), { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(202);
    expect(res.body).toBe("");
  });

  it("an Accept that admits JSON is enough (none, */*, application/json); one that does not is a 406", async () => {
    const user = await createUser();
    for (const accept of ["", "*/*", "application/json", "application/*;q=0.5"]) {
      const res = await postMcp(user, initialize(), { Accept: accept });
      expect(res.status, accept).toBe(200);
    }
    for (const accept of ["text/event-stream", "text/html", "application/json;q=0, */*"]) {
      const res = await postMcp(user, initialize(), { Accept: accept });
      expectErrorBody(res, 406);
      expect(res.body, accept).toMatchObject({ code: "not_acceptable" });
    }
  });

  it("an unsupported MCP-Protocol-Version is a 400 in the error envelope, with its JSON-RPC code", async () => {
    const res = await postMcp(
      await createUser(),
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        "MCP-Protocol-Version": "1999-01-01",
      },
    );
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { jsonrpc_error_code: -32000 } });
    expect(String(res.body.error)).toContain("Unsupported protocol version");
  });

  it("a batch from a client of 2025-06-18 or later is a 400 (its transport takes one message per POST); one of an earlier revision is answered", async () => {
    const user = await createUser();
    const batch = [1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "tools/list" }));
    for (const version of ["2025-06-18", LATEST_PROTOCOL_VERSION]) {
      const refused = await postMcp(user, batch, { "MCP-Protocol-Version": version });
      expectErrorBody(refused, 400);
      expect(refused.body, version).toMatchObject({
        code: "validation_failed",
        details: { jsonrpc_error_code: -32600, protocol_version: version },
      });
    }
    for (const headers of [{ "MCP-Protocol-Version": "2025-03-26" }, {}] as Record<string, string>[]) {
      const answered = await postMcp(user, batch, headers);
      expect(answered.status).toBe(200);
      expect((answered.body as unknown as { id: number }[]).map((answer) => answer.id)).toEqual([1, 2]);
    }
  });

  it("a batch is answered with an array of one response per request (JSON-RPC 2.0 §6), even of one, even with the same id twice", async () => {
    const user = await createUser();
    const ping = (id: unknown) => ({ jsonrpc: "2.0", id, method: "ping" });
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
    const cases: [unknown[], unknown[]][] = [
      [[ping(1)], [{ jsonrpc: "2.0", id: 1, result: {} }]],
      [[initialized, ping(2)], [{ jsonrpc: "2.0", id: 2, result: {} }]],
      [
        [ping(1), ping(1)],
        [
          { jsonrpc: "2.0", id: 1, result: {} },
          { jsonrpc: "2.0", id: 1, result: {} },
        ],
      ],
      [
        [ping("a"), { jsonrpc: "2.0", id: 0, method: "no/such/method" }, initialized, ping("a"), ping(0)],
        [
          { jsonrpc: "2.0", id: "a", result: {} },
          { jsonrpc: "2.0", id: 0, error: { code: -32601 } },
          { jsonrpc: "2.0", id: "a", result: {} },
          { jsonrpc: "2.0", id: 0, result: {} },
        ],
      ],
    ];
    for (const [batch, answers] of cases) {
      const res = await postMcp(user, batch);
      expect(res.status, JSON.stringify(batch)).toBe(200);
      expect(res.headers.get("Content-Type")).toContain("application/json");
      expect(res.body, JSON.stringify(batch)).toMatchObject(answers);
      expect((res.body as unknown as unknown[]).length).toBe(answers.length);
    }
    // A batch of notifications only is answered by none: a 202 with no body.
    const res = await postMcp(user, [initialized, initialized]);
    expect(res.status).toBe(202);
    expect(res.body).toBe("");
  });

  it("counts each request of a batch against the credential's quota, as that many POSTs (notifications not)", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    const remaining = (res: { headers: Headers }) => Number(/;r=(\d+);/.exec(res.headers.get("RateLimit") ?? "")?.[1]);
    const before = remaining(await postMcp(user, { jsonrpc: "2.0", id: 1, method: "ping" }));
    const batch = [
      ...Array.from({ length: 5 }, (_, i) => ({ jsonrpc: "2.0", id: i + 2, method: "ping" })),
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    const answered = await postMcp(user, batch);
    expect(answered.status).toBe(200);
    expect(remaining(answered)).toBe(before - 5);
  });

  it("a batch that cannot fit in what is left of the quota is a 429 that uses none of it (a quota of three)", async () => {
    await startEarlyInAWindow(WINDOW);
    const user = await createUser();
    const tiny = { ...env, API_RATE_LIMITER: env.TEST_TINY_LIMITER, API_RATE_LIMIT_REQUESTS: "3" };
    const app = createApp();
    const post = (body: unknown) =>
      app.request(
        "/mcp",
        {
          method: "POST",
          headers: {
            Authorization: `Bearer ${user.key}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: JSON.stringify(body),
        },
        tiny,
        createExecutionContext(),
      );
    const pings = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
    // The POST counts one, leaving two: four more do not fit.
    const refused = await post(pings(5));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "rate_limited", details: { policy: "default" } });
    // Nothing of the two was used: a batch of two (the POST's own count and one more) still fits.
    const fits = await post(pings(2));
    expect(fits.status).toBe(200);
    expect(fits.headers.get("RateLimit")).toMatch(/^"default";r=0;t=\d+$/);
  });

  it("a body that is no JSON is a 400", async () => {
    const res = await postMcp(await createUser(), "not json");
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "malformed_json" });
  });

  it("JSON that is no JSON-RPC message is a 400, -32600 Invalid Request (not -32700 Parse error) with no id, before any quota is counted", async () => {
    const user = await createUser();
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const bodies = [
      { hello: "world" },
      { jsonrpc: "1.0", id: 1, method: "initialize" },
      [],
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: {}, method: "ping" },
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: "now" } },
      [ping, { jsonrpc: "2.0", id: null, method: "tools/list" }],
    ];
    for (const body of bodies) {
      const res = await postMcp(user, body);
      expectErrorBody(res, 400);
      expect(res.body, JSON.stringify(body)).toMatchObject({
        code: "validation_failed",
        details: { jsonrpc_error_code: -32600, jsonrpc_id: null },
      });
      expect(String(res.body.error), JSON.stringify(body)).toMatch(/^Invalid Request: /);
    }
    const remaining = (res: { headers: Headers }) => Number(/;r=(\d+);/.exec(res.headers.get("RateLimit") ?? "")?.[1]);
    const before = remaining(await postMcp(user, ping));
    const refused = await postMcp(user, [ping, ping, { jsonrpc: "2.0", id: null, method: "ping" }]);
    expect(refused.status).toBe(400);
    expect(remaining(refused)).toBe(before - 1);
  });

  it.each([
    ["initialize", { capabilities: {} }],
    ["initialize", undefined],
    ["tools/list", { cursor: 5 }],
    ["tools/call", undefined],
    ["tools/call", { arguments: {} }],
    ["resources/list", { cursor: 5 }],
    ["resources/templates/list", { cursor: [] }],
    ["resources/read", {}],
    ["resources/read", { uri: 5 }],
  ])("%s with params %j is -32602 Invalid params, in a sentence, with the issues in data", async (method, params) => {
    const res = await postMcp(await createUser(), { jsonrpc: "2.0", id: 11, method, ...(params && { params }) });
    expect(res.status).toBe(200);
    const error = (res.body as { error: { code: number; message: string; data: { issues: unknown[] } } }).error;
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 11 });
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(new RegExp(`^MCP error -32602: Invalid params for ${method}: params`));
    expect(error.message).not.toMatch(/[[{\n]/);
    expect(error.data.issues.length).toBeGreaterThan(0);
    expect(error.data.issues[0]).toEqual({
      path: expect.stringMatching(/^params/),
      message: expect.any(String),
      code: expect.any(String),
    });
  });

  it("an unknown method is a JSON-RPC error inside a 200", async () => {
    const res = await postMcp(await createUser(), { jsonrpc: "2.0", id: 7, method: "no/such/method" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
  });

  it("GET and DELETE are 405s naming POST: no stream of server messages, no session to end", async () => {
    const user = await createUser();
    for (const method of ["GET", "DELETE"]) {
      const res = await api("/mcp", { method, auth: user, headers: { Accept: "text/event-stream" } });
      expectErrorBody(res, 405);
      expect(res.headers.get("Allow")).toBe("POST");
    }
  });

  it("takes no Idempotency-Key: a retry of a tool call with one runs again", async () => {
    const user = await createUser();
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "create_page", arguments: { title: "Twice" } },
    };
    const headers = { "Idempotency-Key": `"${crypto.randomUUID()}"` };
    const first = await postMcp(user, call, headers);
    const second = await postMcp(user, call, headers);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    const ids = [first, second].map(
      (res) => (res.body.result as { structuredContent: { id: string } }).structuredContent.id,
    );
    expect(new Set(ids).size).toBe(2);
  });
});
