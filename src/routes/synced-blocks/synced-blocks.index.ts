import { createRouter } from "../../openapi/define-route";
import * as handlers from "./synced-blocks.handlers";
import * as routes from "./synced-blocks.routes";

export const syncedBlocksRouter = createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.listInstances, handlers.listInstances)
  .openapi(routes.getInstance, handlers.getInstance)
  .openapi(routes.propagate, handlers.propagate)
  .openapi(routes.unlink, handlers.unlink);
