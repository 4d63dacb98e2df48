import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { MCP_URL, postMcp } from "../helpers/mcp";
import { countOwnedBlocks } from "../helpers/pages";

// MCP's Streamable HTTP transport: servers MUST validate the Origin header of every request (DNS
// rebinding), and answer one that is present and not allowed with 403. A request with no Origin
// (an agent, curl, a server-side client) is served as any other.

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const createPage = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "create_page", arguments: { title: "From a page elsewhere" } },
};

/** A preflight of a POST /mcp from `origin`, as a browser sends it. */
const preflight = (path: string, origin: string) =>
  api(path, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization,content-type",
    },
  });

/** A POST /mcp through an app given `vars` over the test environment's, from the connection `peer`. */
function postWith(vars: Partial<Env>, user: TestUser, origin: string, peer = "203.0.113.5") {
  return createApp().request(
    MCP_URL,
    {
      method: "POST",
      headers: {
        Authorization: `Bearer ${user.key}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Origin: origin,
        "CF-Connecting-IP": peer,
      },
      body: JSON.stringify(ping),
    },
    { ...env, ...vars },
    createExecutionContext(),
  );
}

describe("the Origin of a request to /mcp", () => {
  it("a foreign origin is a 403 in the error envelope, granted no CORS, before the credential is read or any tool runs", async () => {
    const user = await createUser();
    for (const origin of [
      "https://evil.example",
      "null",
      "http://workspace.test.evil.example",
      "https://workspace.test",
    ]) {
      const res = await postMcp(user, createPage, { Origin: origin });
      expectErrorBody(res, 403);
      expect(res.body, origin).toMatchObject({
        code: "forbidden",
        details: { origin },
        request_id: expect.any(String),
      });
      expect(res.headers.get("Access-Control-Allow-Origin"), origin).toBeNull();
    }
    expect(await countOwnedBlocks(user.id)).toBe(0);
    // Not a 401: the origin is refused before the credential is looked at.
    const anonymous = await postMcp(undefined, ping, { Origin: "https://evil.example" });
    expectErrorBody(anonymous, 403);
  });

  it("no Origin is served; the service's own only when deployed: under wrangler dev the request's host is the client's to write", async () => {
    const user = await createUser();
    const res = await postMcp(user, ping);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, result: {} });
    // No Origin, no cross-origin request: no CORS headers either (app-frame.ts).
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const own = MCP_URL.replace("/mcp", "");
    expect((await postWith({ ENVIRONMENT: "production" }, user, own, "127.0.0.1")).status).toBe(200);
    // A rebinding page: its name points at this machine, so it sends its own origin and host.
    expect((await postMcp(user, ping, { Origin: own })).status).toBe(403);
    expect((await postWith({ ENVIRONMENT: "development" }, user, own, "127.0.0.1")).status).toBe(403);
    // wrangler dev served beyond this machine (--ip 0.0.0.0, a tunnel): still the client's host.
    expect((await postWith({ ENVIRONMENT: "development" }, user, own)).status).toBe(403);
  });

  it("a preflight from a foreign origin is a 403 that grants nothing; from an allowed one it is answered", async () => {
    const refused = await preflight("/mcp", "https://evil.example");
    expectErrorBody(refused, 403);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(refused.headers.get("Access-Control-Allow-Methods")).toBeNull();
    const allowed = await preflight("/mcp", "http://localhost:5173");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe("*");
    // The rest of the API keeps answering every origin.
    const elsewhere = await preflight("/api/v1/blocks", "https://evil.example");
    expect(elsewhere.status).toBe(204);
    expect(elsewhere.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });

  it("loopback origins (http, any port) only in local work: the tests, or development on a connection from this machine", async () => {
    const user = await createUser();
    const loopback = ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080", "http://localhost"];
    for (const origin of loopback) {
      expect((await postMcp(user, ping, { Origin: origin })).status, origin).toBe(200);
      expect((await postWith({ ENVIRONMENT: "development" }, user, origin, "127.0.0.1")).status, origin).toBe(200);
      expect((await postWith({ ENVIRONMENT: "development" }, user, origin)).status, origin).toBe(403);
      expect((await postWith({ ENVIRONMENT: "production" }, user, origin, "127.0.0.1")).status, origin).toBe(403);
    }
    for (const origin of ["https://localhost:5173", "http://localhost.evil.example", "http://127.0.0.2:3000"]) {
      expect((await postMcp(user, ping, { Origin: origin })).status, origin).toBe(403);
    }
  });

  it("the origins MCP_ALLOWED_ORIGINS lists (comma-separated) are served, and only those", async () => {
    const user = await createUser();
    const vars = {
      ENVIRONMENT: "production",
      MCP_ALLOWED_ORIGINS:
        " https://app.example.com,https://tools.example.org:8443 ,not a url,chrome-extension://abcdefghijklmnop,null",
    };
    for (const origin of [
      "https://app.example.com",
      "https://tools.example.org:8443",
      MCP_URL.replace("/mcp", ""),
      "chrome-extension://abcdefghijklmnop",
    ]) {
      expect((await postWith(vars, user, origin)).status, origin).toBe(200);
    }
    for (const origin of [
      "https://app.example.com.evil.example",
      "http://app.example.com",
      "https://tools.example.org",
      "not a url",
      "null",
      "chrome-extension://another",
      "vscode-webview://abcdefghijklmnop",
    ]) {
      const res = await postWith(vars, user, origin);
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toMatchObject({ code: "forbidden" });
    }
  });
});
