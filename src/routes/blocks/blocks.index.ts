import { createRouter } from "../../openapi/define-route";
import * as handlers from "./blocks.handlers";
import * as routes from "./blocks.routes";

export const blocksRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.createUnversioned, handlers.create)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.children, handlers.children)
  .openapi(routes.hierarchy, handlers.hierarchy)
  .openapi(routes.duplicate, handlers.duplicate)
  .openapi(routes.convert, handlers.convert)
  .openapi(routes.archive, handlers.archive)
  .openapi(routes.trash, handlers.trash)
  .openapi(routes.restore, handlers.restore)
  .openapi(routes.move, handlers.move);
