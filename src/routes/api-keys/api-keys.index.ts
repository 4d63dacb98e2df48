import { createRouter } from "../../openapi/define-route";
import * as handlers from "./api-keys.handlers";
import * as routes from "./api-keys.routes";

export const apiKeysRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.rename, handlers.rename)
  .openapi(routes.revoke, handlers.revoke);
