import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  type JSONRPCResponse,
  JSONRPCResultResponseSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { UserContext } from "../lib/context";
import { ApiError, badRequest, codeForStatus, validationDetails } from "../lib/errors";
import { createMcpServer } from "./server";

// One HTTP request of MCP's Streamable HTTP transport (MCP 2025-11-25, Transports), answered by
// the SDK's transport in its stateless form: no session (no Mcp-Session-Id), and every answer a
// single JSON body, never a server-sent event stream, as the server sends nothing unasked.

/** What the SDK's transport requires a POST to accept: MCP asks clients to send both. */
const MCP_ACCEPT = "application/json, text/event-stream";

/** The media ranges that match `application/json`, most specific first. */
const JSON_RANGES = ["application/json", "application/*", "*/*"];

/**
 * True when `accept` admits a JSON answer (RFC 9110 §12.5.1): no Accept at all, or the most
 * specific range that matches `application/json` has a weight above 0.
 */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  const weights = new Map<string, number>();
  for (const range of accept.split(",")) {
    const [mediaRange = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    weights.set(mediaRange, q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = JSON_RANGES.map((range) => weights.get(range)).find((found) => found !== undefined);
  return weight !== undefined && weight > 0;
}

/** A request that accepts no JSON is a 406: every answer of this server is JSON. */
export function refuseUnacceptable(request: Request): void {
  const accept = request.headers.get("Accept");
  if (!acceptsJson(accept)) {
    throw new ApiError("not_acceptable", "This operation answers application/json: accept it", {
      accept,
      available: ["application/json"],
    });
  }
}

/**
 * The first revision whose transport takes one JSON-RPC message per POST: batches were removed in
 * 2025-06-18 ("The body of the POST request MUST be a single JSON-RPC request, notification, or
 * response"). A client says its revision in MCP-Protocol-Version; one that says none is taken to
 * speak 2025-03-26 (Transports, Protocol Version Header), which allowed them.
 */
const FIRST_REVISION_WITHOUT_BATCHES = "2025-06-18";

/** A batch from a client of a revision that has no batches is a 400 (JSON-RPC's Invalid Request). */
export function refuseBatchOfLaterRevisions(protocolVersion: string | undefined): void {
  if (protocolVersion !== undefined && protocolVersion >= FIRST_REVISION_WITHOUT_BATCHES) {
    throw badRequest(`MCP ${protocolVersion} takes one JSON-RPC message per POST, not a batch`, {
      jsonrpc_error_code: ErrorCode.InvalidRequest,
      protocol_version: protocolVersion,
    });
  }
}

/**
 * JSON that is no JSON-RPC message (or batch of them) is a 400 with JSON-RPC's -32600 Invalid
 * Request in `details`, and the null id JSON-RPC answers it with (§5: the request's id cannot be
 * known). The transport would call it -32700 Parse error, which JSON-RPC keeps for text that is no JSON.
 */
export const invalidRequest = (why: string, details?: Record<string, unknown>) =>
  badRequest(`Invalid Request: ${why}`, { ...details, jsonrpc_error_code: ErrorCode.InvalidRequest, jsonrpc_id: null });

const isRequestId = (id: unknown) => typeof id === "string" || Number.isSafeInteger(id);

/** The SDK's schema of the kind of message `message` has the members of. */
function messageSchemaOf(message: object) {
  if ("method" in message) return "id" in message ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  return "error" in message ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
}

/**
 * Each message of `body` (checked against the contract's schema, which describes them loosely) is
 * one as the SDK reads it, else `invalidRequest`: a request whose id is null (MCP: never null), a
 * fraction or an object, a malformed `_meta`, a member no message has...
 */
export function refuseInvalidMessages(body: unknown): void {
  const messages: object[] = Array.isArray(body) ? body : [body as object];
  for (const [place, message] of messages.entries()) {
    const parsed = messageSchemaOf(message).safeParse(message);
    if (parsed.success) continue;
    const where = Array.isArray(body) ? `message ${place} of the batch` : "the body";
    const id = (message as { id?: unknown }).id;
    const [first] = parsed.error.issues.map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`);
    const why =
      id !== undefined && !isRequestId(id)
        ? `${where} has an id that is neither a string nor an integer (MCP: never null)`
        : `${where} is no JSON-RPC 2.0 message as MCP takes them (${first})`;
    throw invalidRequest(why, {
      ...(Array.isArray(body) ? { batch_index: place } : {}),
      ...validationDetails(parsed.error),
    });
  }
}

/** A refusal of the transport (an unsupported MCP-Protocol-Version, a batch of initializations...) as the API's error. */
async function transportRefusal(response: Response): Promise<ApiError> {
  let message = `The MCP request was refused (HTTP ${response.status})`;
  let rpcCode: unknown;
  try {
    const answer = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof answer.error?.message === "string") message = answer.error.message;
    rpcCode = answer.error?.code;
  } catch {
    // Not JSON: the status says it all.
  }
  return new ApiError(codeForStatus(response.status), message, {
    ...(typeof rpcCode === "number" ? { jsonrpc_error_code: rpcCode } : {}),
  });
}

/**
 * Answers one POST of JSON-RPC messages (`body`, already parsed and checked as JSON-RPC, its Accept
 * by `refuseUnacceptable`) for the caller of `ctx`. One the transport refuses (an unsupported
 * MCP-Protocol-Version...) is the API's error envelope, with its JSON-RPC code in `details`. A
 * request with only notifications or responses is a 202; a batch is answered by `answerBatch`.
 */
export function answerMcp(ctx: UserContext, request: Request, body: unknown): Promise<Response> {
  return Array.isArray(body) ? answerBatch(ctx, request, body) : answerMessages(ctx, request, body);
}

/**
 * A batch answered as JSON-RPC 2.0 §6 says: an array of one response per request, a batch of one
 * request included, and no body (a 202) for one of notifications only. The transport files answers
 * by request id and sends a lone one bare: two requests of the same id would get one answer
 * between them, and a batch of one an object. So each request goes to it under an id of its own,
 * its place in the batch, which its answer gives back for the request's own.
 */
async function answerBatch(ctx: UserContext, request: Request, batch: unknown[]): Promise<Response> {
  const ids = new Map<RequestId, RequestId>();
  const renumbered = batch.map((message, place) => {
    if (!isJSONRPCRequest(message)) return message;
    ids.set(place, message.id);
    return { ...message, id: place };
  });
  const response = await answerMessages(ctx, request, renumbered);
  if (response.status !== 200) return response;
  const answered = (await response.json()) as JSONRPCResponse | JSONRPCResponse[];
  const answers = (Array.isArray(answered) ? answered : [answered]).map((answer) => ({
    ...answer,
    id: answer.id === undefined ? answer.id : ids.get(answer.id),
  }));
  return new Response(JSON.stringify(answers), { status: 200, headers: response.headers });
}

/** `body` (a message, or a batch's) through the SDK's transport, for the caller of `ctx`. */
async function answerMessages(ctx: UserContext, request: Request, body: unknown): Promise<Response> {
  // The answer is JSON whatever the client accepts besides (enableJsonResponse): a client that
  // accepts JSON alone is served as one that also lists text/event-stream.
  const headers = new Headers(request.headers);
  headers.set("Accept", MCP_ACCEPT);
  const server = createMcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(new Request(request.url, { method: request.method, headers }), {
      parsedBody: body,
    });
    if (response.status >= 400) throw await transportRefusal(response);
    return response;
  } finally {
    await server.close();
  }
}
