import { createRouter } from "../../openapi/define-route";
import * as handlers from "./mentions.handlers";
import * as routes from "./mentions.routes";

// `sync` is registered before `/{id}` so that its path is never read as an id.
export const mentionsRouter = createRouter()
  .openapi(routes.listByBlock, handlers.listByBlock)
  .openapi(routes.listByPage, handlers.listByPage)
  .openapi(routes.create, handlers.create)
  .openapi(routes.sync, handlers.sync)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.backlinkCount, handlers.backlinkCount)
  .openapi(routes.backlinks, handlers.backlinks);
