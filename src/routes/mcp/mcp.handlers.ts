import type { Hook } from "@hono/zod-openapi";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { countCredentialTimes, credentialRefused } from "../../auth/credential-limit";
import { validationDetails } from "../../lib/errors";
import {
  answerMcp,
  invalidRequest,
  refuseBatchOfLaterRevisions,
  refuseInvalidMessages,
  refuseUnacceptable,
} from "../../mcp/http";
import type { Handler } from "../../openapi/define-route";
import { validationHook } from "../../openapi/validation";
import type * as routes from "./mcp.routes";

export const call: Handler<typeof routes.call> = async (c) => {
  const body = c.req.valid("json");
  const ctx = c.get("ctx");
  refuseUnacceptable(c.req.raw);
  refuseInvalidMessages(body);
  if (Array.isArray(body)) {
    const version = c.req.header("MCP-Protocol-Version");
    refuseBatchOfLaterRevisions(version);
    // Each request of a batch counts against the credential's quota, as that many POSTs would (the
    // access middleware counted the first), once nothing else refuses the batch (an unsupported
    // revision is the transport's 400): a batch is no way past the quota.
    const requests = body.filter((message) => "method" in message && "id" in message).length;
    if (requests > 1 && (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))) {
      const limit = await countCredentialTimes(c.env, ctx.actor, ctx.now(), requests - 1);
      if (limit) {
        c.set("rateLimit", limit);
        if (!limit.admitted) throw credentialRefused(limit);
      }
    }
  }
  return answerMcp(ctx, c.req.raw, body);
};

/**
 * The body's validation hook: JSON that is no JSON-RPC message or batch of them, as the contract
 * describes them, is `invalidRequest` with the issues; the rest is every route's hook.
 */
// biome-ignore lint/suspicious/noExplicitAny: the route's hook, as validationHook is typed
export const refuseNoJsonRpc: Hook<any, any, any, any> = (result, c) => {
  if (!result.success && result.target === "json") {
    throw invalidRequest(
      "the body is no JSON-RPC 2.0 message, nor a batch of them",
      validationDetails(result.error, "request body"),
    );
  }
  return validationHook(result, c);
};
