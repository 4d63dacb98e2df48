import { countCredential, credentialRefused } from "../../auth/credential-limit";
import { answerMcp, refuseBatchOfLaterRevisions } from "../../mcp/http";
import type { Handler } from "../../openapi/define-route";
import type * as routes from "./mcp.routes";

export const call: Handler<typeof routes.call> = async (c) => {
  const body = c.req.valid("json");
  if (Array.isArray(body)) {
    refuseBatchOfLaterRevisions(c.req.header("MCP-Protocol-Version"));
    // Each request of a batch counts against the credential's quota, as that many POSTs would (the
    // access middleware counted the first): a batch is no way past the quota.
    const ctx = c.get("ctx");
    const requests = body.filter((message) => "method" in message && "id" in message).length;
    for (let counted = 1; counted < requests; counted++) {
      const limit = await countCredential(c.env, ctx.actor, ctx.now());
      if (!limit) break;
      c.set("rateLimit", limit);
      if (!limit.admitted) throw credentialRefused(limit);
    }
  }
  return answerMcp(c.get("ctx"), c.req.raw, body);
};
