import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
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

/** The page id a `workspace://page/{id}` URI names; null for any other resource. */
function pageIdOf(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, "The resource URI is not a URI", { uri });
  }
  const id = url.protocol === "workspace:" && url.host === "page" ? /^\/([^/]+)$/.exec(url.pathname)?.[1] : undefined;
  if (id === undefined) return null;
  try {
    return decodeURIComponent(id);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, "The page id of the resource URI is not valid percent-encoding", {
      uri,
    });
  }
}

const PAGE_RESOURCE = {
  name: "page",
  title: "Page",
  description: `A page or database row as markdown (its markdown export: body, then child blocks). Listed: the caller's ${PAGE_MAX_LIMIT} most recently updated pages; search finds the others.`,
  mimeType: MARKDOWN,
};

/**
 * resources/list, resources/templates/list and resources/read, answered here rather than by the
 * SDK's McpServer: a URI of no resource of ours is -32002 Resource not found (MCP 2025-11-25,
 * Resources, Error Handling), one that is no URI or holds a malformed id -32602 Invalid params.
 */
export function registerPageResources(server: Server, ctx: UserContext): void {
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ ...PAGE_RESOURCE, uriTemplate: PAGE_URI_TEMPLATE }],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
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
        description: PAGE_RESOURCE.description,
        mimeType: MARKDOWN,
      })),
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
    const id = pageIdOf(uri);
    if (id === null) throw new McpError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
    try {
      const { markdown } = await exportMarkdown(ctx, id);
      return { contents: [{ uri, mimeType: MARKDOWN, text: markdown }] };
    } catch (thrown) {
      throw resourceError(ctx, thrown, uri);
    }
  });
}
