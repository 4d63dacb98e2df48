import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { api, type TestUser } from "./api";
import { signSessionToken } from "./session-token";

export const MCP_URL = "http://workspace.test/mcp";

/**
 * The official SDK's client, connected (initialize, then notifications/initialized) over its
 * Streamable HTTP transport to the Worker's /mcp, with `auth` (a user's key, or a raw key or
 * session token) as its bearer credential.
 */
export async function connectMcp(auth: TestUser | string): Promise<Client> {
  const token = typeof auth === "string" ? auth : auth.key;
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (url, init) => SELF.fetch(url, init),
  });
  // The SDK's default validator (Ajv) compiles code with `new Function`, which workerd forbids.
  const client = new Client(
    { name: "test-agent", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return client;
}

/** A tool call's result, read as the test needs it: its first text block, its structured content and whether it failed. */
export async function callTool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; structured: T; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return {
    text: first?.type === "text" ? first.text : "",
    structured: result.structuredContent as T,
    isError: result.isError === true,
  };
}

/** A new API key of `user` with the `read` scope alone, made as a person makes one: with an app session. */
export async function readOnlyKey(user: TestUser): Promise<string> {
  const session = await sessionToken(user);
  const res = await api<{ key: string }>("/api/v1/api-keys", {
    method: "POST",
    auth: session,
    body: { name: "reader", scopes: ["read"] },
  });
  if (res.status !== 201) throw new Error(`key create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

/** An app-session token of `user`, as /auth/complete issues one. */
export const sessionToken = (user: TestUser): Promise<string> =>
  signSessionToken({ sub: user.id, exp: Math.floor(Date.now() / 1000) + 600 });

/** A raw POST /mcp of JSON-RPC `body`, as MCP clients send it (both media types accepted unless `headers` says otherwise). */
export const postMcp = (auth: TestUser | string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  api<Record<string, unknown>>("/mcp", {
    method: "POST",
    auth,
    body,
    headers: { Accept: "application/json, text/event-stream", ...headers },
  });
