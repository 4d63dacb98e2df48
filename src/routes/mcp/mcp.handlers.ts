import { answerMcp } from "../../mcp/http";
import type { Handler } from "../../openapi/define-route";
import type * as routes from "./mcp.routes";

export const call: Handler<typeof routes.call> = async (c) => answerMcp(c.get("ctx"), c.req.raw, c.req.valid("json"));
