import { z } from "@hono/zod-openapi";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

// JSON-RPC 2.0 messages as MCP sends them over Streamable HTTP: the contract's description of the
// bodies of POST /mcp. Members beyond these are kept (the SDK reads the messages whole), so the
// objects are loose.

const EXAMPLE_PAGE = "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d";

const jsonrpc = z.literal("2.0").openapi({ description: "The JSON-RPC version: always 2.0", example: "2.0" });
const id = z.union([z.string(), z.number().int()]).openapi({
  description: "The request's id, echoed by its response: a string or an integer (MCP: never null)",
  example: 1,
});
const params = z.record(z.string(), z.unknown()).openapi({ description: "The method's parameters (MCP: an object)" });
const result = z.record(z.string(), z.unknown()).openapi({ description: "What the method answers" });

export const JsonRpcRequestSchema = z
  .looseObject({
    jsonrpc,
    id,
    method: z
      .string()
      .min(1)
      .openapi({ description: "`initialize`, `tools/list`, `tools/call`, ...", example: "tools/call" }),
    params: params.optional(),
  })
  .openapi("JsonRpcRequest", {
    description: "A request: answered by a response with the same `id`",
    example: { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
  });

export const JsonRpcNotificationSchema = z
  .looseObject({
    jsonrpc,
    method: z.string().min(1).openapi({ example: "notifications/initialized" }),
    params: params.optional(),
  })
  .openapi("JsonRpcNotification", {
    description: "A notification: no `id`, never answered",
    example: { jsonrpc: "2.0", method: "notifications/initialized" },
  });

export const JsonRpcResultSchema = z.looseObject({ jsonrpc, id, result }).openapi("JsonRpcResult", {
  description: "The answer to the request with this `id`",
  example: { jsonrpc: "2.0", id: 3, result: { tools: [{ name: "search", inputSchema: { type: "object" } }] } },
});

export const JsonRpcErrorSchema = z
  .looseObject({
    jsonrpc,
    id: id.nullable(),
    error: z.looseObject({
      code: z.number().int().openapi({
        description:
          "-32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal error, -32002 resource not found",
        example: -32602,
      }),
      message: z.string().openapi({ example: "Resource not found" }),
      data: z.unknown().optional(),
    }),
  })
  .openapi("JsonRpcError", {
    description:
      "The request with this `id` failed as a protocol matter (an unknown method, a resource not found). A tool that runs and fails answers a result with `isError: true` instead.",
    example: {
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32002, message: "Resource not found", data: { uri: `workspace://page/${EXAMPLE_PAGE}` } },
    },
  });

const JsonRpcMessageSchema = z
  .union([JsonRpcRequestSchema, JsonRpcNotificationSchema, JsonRpcResultSchema, JsonRpcErrorSchema])
  .openapi("JsonRpcMessage");

/** At most this many messages in one batch (the SDK's own limit). */
export const MAX_BATCH_MESSAGES = 100;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "example-agent", version: "1.0.0" },
  },
};
const getPage = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "get_page", arguments: { id: EXAMPLE_PAGE } },
};

export const McpRequestBody = z
  .union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema).min(1).max(MAX_BATCH_MESSAGES)])
  .openapi("McpRequest", {
    description: `One JSON-RPC 2.0 message, or a batch of 1 to ${MAX_BATCH_MESSAGES} (clients of revisions before 2025-06-18 send them)`,
    example: initialize,
    examples: [initialize, getPage],
  });

const initialized = {
  jsonrpc: "2.0",
  id: 1,
  result: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    serverInfo: { name: "workspace-api", title: "Workspace API", version: "1.0.0" },
    instructions: "A workspace of pages, databases (with rows) and blocks. …",
  },
};
const readPage = {
  id: EXAMPLE_PAGE,
  type: "page",
  title: "Launch plan",
  parent_id: null,
  markdown: "# Launch plan\n\nShip on Friday.\n",
  child_pages: [],
};
const pageRead = {
  jsonrpc: "2.0",
  id: 2,
  result: {
    content: [
      {
        type: "text",
        text: `# Launch plan\n\nShip on Friday.\n\n---\nid ${EXAMPLE_PAGE} · page · updated 2026-11-23T09:30:00.000Z`,
      },
      { type: "text", text: JSON.stringify(readPage) },
    ],
    structuredContent: readPage,
  },
};

export const McpResponseBody = z
  .union([JsonRpcResultSchema, JsonRpcErrorSchema, z.array(z.union([JsonRpcResultSchema, JsonRpcErrorSchema]))])
  .openapi("McpResponse", {
    description: "The response to each request the POST carried: one for one, an array for a batch",
    example: initialized,
    examples: [initialized, pageRead],
  });
