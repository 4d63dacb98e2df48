import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { UserContext } from "../lib/context";
import { PAGE_MAX_LIMIT } from "../lib/pagination";
import { exportMarkdown } from "../services/exports/export";
import { listPages } from "../services/pages/pages";
import { errorBodyOf, errorText } from "./tool";

// Pages as resources, `workspace://page/{id}`: read as their markdown export
// (GET /api/v1/pages/{id}/export), listed as GET /api/v1/pages?type=page lists them.

export const PAGE_URI_TEMPLATE = "workspace://page/{id}";
const MARKDOWN = "text/markdown";

/** MCP 2025-11-25, Resources, Error Handling: a resource that does not exist (or is not the caller's to see). */
const RESOURCE_NOT_FOUND = -32002;

const pageUri = (id: string) => `workspace://page/${encodeURIComponent(id)}`;

/** A refusal or failure of a resource request as the JSON-RPC error MCP gives it: not found, else invalid params or internal. */
function resourceError(ctx: UserContext, thrown: unknown, uri: string): McpError {
  const body = errorBodyOf(ctx, thrown, "resources/read");
  if (body.code === "not_found") return new McpError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
  const code =
    body.code === "internal" || body.code === "unavailable" ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(code, errorText(body), { uri, ...body });
}

export function registerPageResources(server: McpServer, ctx: UserContext): void {
  const template = new ResourceTemplate(PAGE_URI_TEMPLATE, {
    list: async () => {
      const page = await listPages(ctx, {
        limit: PAGE_MAX_LIMIT,
        offset: 0,
        type: "page",
        archived: false,
        inTrash: false,
      });
      return {
        resources: page.items.map((summary) => ({
          uri: pageUri(summary.id),
          name: summary.title || "Untitled",
          title: summary.title || "Untitled",
          mimeType: MARKDOWN,
        })),
      };
    },
  });
  server.registerResource(
    "page",
    template,
    {
      title: "Page",
      description: `A page or database row as markdown (its markdown export: body, then child blocks). Listed: the caller's ${PAGE_MAX_LIMIT} most recently updated pages; search finds the others.`,
      mimeType: MARKDOWN,
    },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables.id ?? ""));
      try {
        const { markdown } = await exportMarkdown(ctx, id);
        return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text: markdown }] };
      } catch (thrown) {
        throw resourceError(ctx, thrown, uri.href);
      }
    },
  );
}
