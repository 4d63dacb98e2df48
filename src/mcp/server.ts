import { z } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type AnyObjectSchema, type SchemaOutput, safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Notification,
  type Request,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { missingScope } from "../auth/policies";
import type { UserContext } from "../lib/context";
import { badRequest, issuesRefused, joinPath, validationDetails } from "../lib/errors";
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
 * `request` as its method's schema reads it, or -32602 Invalid params (JSON-RPC 2.0 §5.1): a
 * sentence naming the method and the first problem at its path (`params.uri: ...`), as a REST 400
 * names a body's, and the issues in `data`.
 */
function checkedRequest<T extends AnyObjectSchema>(method: string, schema: T, request: unknown): SchemaOutput<T> {
  const parsed = safeParse(schema, request);
  if (parsed.success) return parsed.data;
  const issues = (parsed.error as z.ZodError).issues.map((issue) => ({
    path: joinPath(String(issue.path[0] ?? "params"), issue.path.slice(1)),
    message: issue.message,
    code: issue.code,
  }));
  const refusal = issuesRefused(`params for ${method}`, issues);
  throw new McpError(ErrorCode.InvalidParams, refusal.message, refusal.details);
}

/** What a handler of the SDK's Server is given besides the request (its `extra`). */
type HandlerExtra = RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>;

type RequestHandler<T extends AnyObjectSchema> = (
  request: SchemaOutput<T>,
  extra: HandlerExtra,
) => ServerResult | Result | Promise<ServerResult | Result>;

/**
 * The SDK's Server, but a request whose params its method's schema refuses is -32602 Invalid params
 * (`checkedRequest`), for every method, the SDK's own included (initialize, ping: its constructors
 * register them through this). The SDK lets such a schema's ZodError through its dispatch, and a
 * thrown error without a code answers -32603 Internal error with the issues' JSON as its message
 * (modelcontextprotocol/typescript-sdk#2284). Each handler is registered on Protocol, for any
 * request of its method: Server's own registration of tools/call checks the params first, answering
 * a malformed one with the issues' JSON as its message, and else adds only a check of our results.
 */
class ParamsCheckingServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(schema: T, handler: RequestHandler<T>): void {
    const method = getMethodLiteral(schema);
    Protocol.prototype.setRequestHandler.call(
      this,
      z.looseObject({ method: z.literal(method) }),
      (request: unknown, extra: HandlerExtra) => handler(checkedRequest(method, schema, request), extra),
    );
  }
}

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
  const server = new ParamsCheckingServer(SERVER_INFO, {
    // Stateless, the server never sends a message unasked: no list changes to announce.
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => toolListing(TOOLS, ctx.actor.scopes));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
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
