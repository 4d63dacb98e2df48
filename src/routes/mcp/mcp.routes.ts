import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { TOOLS } from "../../mcp/server";
import { defineRoute, errorResponse } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { CREATE_ROWS_BODY_LIMIT } from "../databases/databases.schemas";
import { McpRequestBody, McpResponseBody } from "./mcp.schemas";

const toolNames = (scope: "read" | "write") =>
  TOOLS.filter((tool) => tool.scope === scope)
    .map((tool) => `\`${tool.name}\``)
    .join(", ");

const DESCRIPTION = [
  `The workspace as a Model Context Protocol server, for AI agents: MCP revision ${LATEST_PROTOCOL_VERSION} over its Streamable HTTP transport, with the official TypeScript SDK. Connect an MCP client to this URL with \`Authorization: Bearer <API key or session token>\`, as for every other operation.`,
  "",
  `**Tools**: read ${toolNames("read")}; write ${toolNames("write")}. Each runs what the REST operation it mirrors runs (the same visibility, validation and limits) and answers text an agent reads (markdown for pages) and \`structuredContent\`. A key with the \`read\` scope alone lists only the read tools; calling a write tool with it answers a tool error naming the missing scope \`write\`. **Resources**: pages as \`workspace://page/{id}\` (markdown), with that URI template.`,
  "",
  "**Stateless**: no session (`Mcp-Session-Id` is never sent), and each POST answers its requests in one `application/json` body; a POST of notifications or responses only is a 202. The server sends nothing unasked, so `GET /mcp` (the stream for server messages) and `DELETE /mcp` (the end of a session) answer 405. Send `Accept: application/json, text/event-stream` as MCP asks (an Accept that admits JSON is enough; one that does not is a 406) and, after `initialize`, `MCP-Protocol-Version` (an unsupported one is a 400).",
  "",
  "**Errors**: an HTTP error is about the HTTP request (401 credential, 403 origin or scope, 400 a body that is no JSON-RPC message, 406, 413, 415, 429), in the API's error envelope (`details.jsonrpc_error_code` when JSON-RPC or the MCP transport names the refusal: JSON that is no JSON-RPC message, such as a request whose `id` is null, is -32600 Invalid Request, with `details.jsonrpc_id` null). Inside a 200, a tool that failed (a page not found or not visible to the caller, invalid arguments, a value its database refuses) is a result with `isError: true` whose text gives the message and `code` of the REST error; a protocol failure (an unknown method, params the method does not take: -32602, a resource not found: -32002) is a JSON-RPC error.",
  "",
  "**Origin** (MCP's transport: servers validate it, against DNS rebinding): a request without `Origin` (an agent, curl, a server-side client) is served; one with an `Origin` only when it is this service's own origin (deployed: under `wrangler dev` the host is the client's to write), an `http://localhost`, `127.0.0.1` or `[::1]` origin (any port) under local development, or one the deployment lists in `MCP_ALLOWED_ORIGINS`. Any other `Origin` is a 403 (`code` forbidden, `details.origin`) before anything else, its CORS preflight included, with no CORS headers.",
  "",
  "JSON-RPC messages carry their own ids, so this operation takes no `Idempotency-Key`: retrying a write tool runs it again.",
].join("\n");

export const call = defineRoute({
  operationId: "callMcp",
  method: "post",
  path: "/mcp",
  tags: ["MCP"],
  access: "user",
  // Read tools are open to read keys; each write tool checks the `write` scope itself.
  scope: "read",
  idempotencyKey: false,
  // The largest tool input: add_rows takes what POST /api/v1/databases/{id}/rows/batch takes.
  bodyLimit: CREATE_ROWS_BODY_LIMIT,
  summary: "MCP server for AI agents (Streamable HTTP, JSON-RPC 2.0)",
  description: DESCRIPTION,
  request: {
    body: {
      required: true,
      description: "A JSON-RPC 2.0 message (or a batch): `initialize`, `tools/list`, `tools/call`, `resources/read`...",
      content: { "application/json": { schema: McpRequestBody } },
    },
  },
  responses: {
    200: jsonContent(McpResponseBody, "The JSON-RPC response to each request of the POST"),
    202: { description: "Accepted: the POST carried only notifications or responses, which are not answered" },
    403: errorResponse(
      "The `Origin` header names an origin that may not call the MCP server (`code` forbidden, `details.origin`), or the API key lacks the `read` scope (`code` forbidden)",
    ),
    406: errorResponse("The Accept header admits no JSON (`code` not_acceptable)"),
  },
});
