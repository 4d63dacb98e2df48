import { createRouter } from "../../openapi/define-route";
import * as handlers from "./mcp.handlers";
import * as routes from "./mcp.routes";

export const mcpRouter = createRouter().openapi(routes.call, handlers.call, handlers.refuseNoJsonRpc);
