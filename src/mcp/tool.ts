import type { z } from "@hono/zod-openapi";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKeyScope } from "../auth/scopes";
import type { UserContext } from "../lib/context";
import type { ErrorBody } from "../lib/errors";
import { failureAnswer, logFailure, refusalIn } from "../lib/failures";

// A tool of the MCP server: its name and words for the agent, the scope its REST twin needs, its
// input schema (built from the zod schemas of the routes it mirrors) and what it runs: the same
// service functions as those routes' handlers, so visibility, validation and limits are theirs.

/** What a tool answers: text an agent reads (markdown for pages), and the same facts as structured content. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The API-key scope it needs: the one the REST route it mirrors needs. */
  scope: ApiKeyScope;
  input: S;
  annotations: ToolAnnotations;
  run(ctx: UserContext, input: z.output<S>): Promise<ToolOutput>;
}

/** A tool, typed from its input schema. */
export const defineTool = <S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition<S> => tool;

/**
 * The answer to a call that ran: the text, then the structured content serialized as JSON (MCP
 * 2025-11-25, Tools, Structured Content: a tool that returns structured content SHOULD also return
 * it serialized in a TextContent block, for clients that read only `content`).
 */
export const toolResult = (output: ToolOutput): CallToolResult => ({
  content: [
    { type: "text", text: output.text },
    { type: "text", text: JSON.stringify(output.structured) },
  ],
  structuredContent: output.structured,
});

/**
 * What anything a tool or resource threw says, as the REST API would answer it (`{error, code,
 * details?, request_id}`, lib/failures.ts); a failure no code refused is logged with the request id.
 */
export function errorBodyOf(ctx: UserContext, thrown: unknown, where: string): ErrorBody {
  const refusal = refusalIn(thrown);
  if (refusal) return { ...refusal.body, request_id: ctx.requestId };
  const failure = failureAnswer(thrown instanceof Error ? thrown : new Error(String(thrown)));
  if (failure.log) logFailure(ctx, { mcp: where, ...failure.log });
  return { ...failure.body, request_id: ctx.requestId };
}

/** An error as text: the message, its code, and its details when it has some. */
export const errorText = (body: ErrorBody): string =>
  `${body.error} (code ${body.code})${body.details ? `: ${JSON.stringify(body.details)}` : ""}`;

/**
 * A refusal or failure as a tool error (`isError`: the agent reads it and may correct its call),
 * never a JSON-RPC error: the message with its code, and the error body as structured content.
 */
export function toolError(ctx: UserContext, thrown: unknown, tool: string): CallToolResult {
  const body = errorBodyOf(ctx, thrown, tool);
  return { isError: true, content: [{ type: "text", text: errorText(body) }], structuredContent: body };
}
