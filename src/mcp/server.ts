import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { missingScope } from "../auth/policies";
import type { UserContext } from "../lib/context";
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

const SERVER_INFO = { name: "workspace-api", title: "Workspace API", version: "1.0.0" };

const INSTRUCTIONS =
  "A workspace of pages, databases (with rows) and blocks. Find things with search, read a page as markdown with get_page (or its structure with get_block_tree), read a database's rows with query_database, and comment with add_comment. Writing (create_page, update_page, add_rows, add_comment, capture_task) needs an API key with the `write` scope; a read-only key lists only the read tools. Ids are strings; an id of something you cannot see answers not found.";

/**
 * The workspace's tools go through the SDK's JSON Schema validator for Workers: the default one
 * (Ajv) compiles validators with `new Function`, which Workers forbid.
 */
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/**
 * The MCP server acting for `ctx`'s caller. A tool the credential's scopes allow is registered
 * with its input schema (the SDK validates arguments against it: invalid ones are a tool error)
 * and runs its service call; one they do not allow is not listed, and a call of it answers a tool
 * error naming the missing scope before its arguments are read, as a REST route refuses before
 * validating. Anything a tool throws is a tool error too (`isError`), never a JSON-RPC error.
 */
export function createMcpServer(ctx: UserContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  for (const tool of TOOLS) {
    const config = { title: tool.title, description: tool.description, annotations: tool.annotations };
    const refusal = missingScope(ctx.actor, tool.scope);
    if (refusal) {
      server.registerTool(tool.name, config, async () => toolError(ctx, refusal, tool.name));
      continue;
    }
    server.registerTool(tool.name, { ...config, inputSchema: tool.input }, async (input) => {
      try {
        return toolResult(await tool.run(ctx, input));
      } catch (thrown) {
        return toolError(ctx, thrown, tool.name);
      }
    });
  }
  // The SDK lists every registered tool, with schemas of its own writing: the listing is the
  // credential's tools, with the contract's schemas (listing.ts).
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolListing(TOOLS, ctx.actor.scopes));
  registerPageResources(server, ctx);
  return server;
}
