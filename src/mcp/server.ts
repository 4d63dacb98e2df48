import { z } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { missingScope } from "../auth/policies";
import type { UserContext } from "../lib/context";
import { badRequest, validationDetails } from "../lib/errors";
import { toolListing } from "./listing";
import { registerPageResources } from "./resources";
import { type ToolDefinition, toolError, toolResult } from "./tool";
import { getBlockTreeTool } from "./tools/blocks";
import { addCommentTool, listCommentsTool } from "./tools/comments";
import { addRowsTool, queryDatabaseTool } from "./tools/databases";
import { createPageTool, getPageTool, updatePageTool } from "./tools/pages";
import { captureTaskTool } from "./tools/quick-tasks";
import { searchTool } from "./tools/search";

// The MCP server (modelcontextprotocol.io, revision 2025-11-25) of one request: built for the
// caller's UserContext, so every tool and resource acts as them, through the services their REST
// twins call. Stateless: nothing outlives the request.

/** Every tool, read tools first: tools/list names them in this order. */
export const TOOLS: readonly ToolDefinition[] = [
  searchTool,
  getPageTool,
  getBlockTreeTool,
  queryDatabaseTool,
  listCommentsTool,
  createPageTool,
  updatePageTool,
  addRowsTool,
  addCommentTool,
  captureTaskTool,
];

const TOOLS_BY_NAME = new Map<string, ToolDefinition>(TOOLS.map((tool) => [tool.name, tool]));

const SERVER_INFO = { name: "workspace-api", title: "Workspace API", version: "1.0.0" };

const INSTRUCTIONS =
  "A workspace of pages, databases (with rows) and blocks. Find things with search, read a page as markdown with get_page (or its structure with get_block_tree), read a database's rows with query_database, and comment with add_comment. Writing (create_page, update_page, add_rows, add_comment, capture_task) needs an API key with the `write` scope; a read-only key lists only the read tools. Ids are strings; an id of something you cannot see answers not found.";

/**
 * The server's JSON Schema validator, the SDK's one for Workers (tool arguments are checked by each
 * tool's zod schema): its default (Ajv) compiles validators with `new Function`, which Workers forbid.
 */
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/**
 * tools/call accepted as any request of that method: the SDK's server checks its params itself and
 * answers a malformed one with -32602 Invalid params (JSON-RPC 2.0 §5.1), where a stricter schema
 * here would fail first, as -32603.
 */
const ToolCallRequest = z.object({ method: z.literal("tools/call"), params: z.unknown() });

/**
 * The MCP server acting for `ctx`'s caller. tools/list lists the tools the credential's scopes
 * allow, with the contract's schemas (listing.ts). tools/call runs a tool through its service call:
 * an unknown tool is a JSON-RPC error (-32602, MCP 2025-11-25, Tools, Error Handling); a tool the
 * scopes do not allow answers a tool error naming the missing scope before its arguments are read,
 * as a REST route refuses before validating; invalid arguments, and anything a tool throws, are tool
 * errors too (`isError`, with the REST error's body), which the agent reads and may correct.
 */
export function createMcpServer(ctx: UserContext): Server {
  // The SDK's low-level Server (its "advanced use cases"): McpServer would answer tools and
  // resources its own way, and announce list changes.
  const server = new Server(SERVER_INFO, {
    // Stateless, the server never sends a message unasked: no list changes to announce.
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => toolListing(TOOLS, ctx.actor.scopes));
  server.setRequestHandler(ToolCallRequest, async (request) => {
    const { name, arguments: args } = CallToolRequestSchema.parse(request).params;
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { tool: name });
    const refusal = missingScope(ctx.actor, tool.scope);
    if (refusal) return toolError(ctx, refusal, name);
    const input = tool.input.safeParse(args ?? {});
    if (!input.success) {
      return toolError(
        ctx,
        badRequest(`Invalid arguments for tool ${name}`, validationDetails(input.error, "arguments")),
        name,
      );
    }
    try {
      return toolResult(await tool.run(ctx, input.data));
    } catch (thrown) {
      return toolError(ctx, thrown, name);
    }
  });
  registerPageResources(server, ctx);
  return server;
}
