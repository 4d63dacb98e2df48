import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { countCredentialTimes, credentialRefused } from "../../auth/credential-limit";
import { answerMcp, refuseBatchOfLaterRevisions, refuseUnacceptable } from "../../mcp/http";
import type { Handler } from "../../openapi/define-route";
import type * as routes from "./mcp.routes";

export const call: Handler<typeof routes.call> = async (c) => {
  const body = c.req.valid("json");
  const ctx = c.get("ctx");
  refuseUnacceptable(c.req.raw);
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
