import { createRouter } from "../../openapi/define-route";
import * as handlers from "./system.handlers";
import * as routes from "./system.routes";

export const systemRouter = createRouter()
  .openapi(routes.root, handlers.root)
  .openapi(routes.test, handlers.test)
  .openapi(routes.health, handlers.health);
