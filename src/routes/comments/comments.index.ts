import { createRouter } from "../../openapi/define-route";
import * as handlers from "./comments.handlers";
import * as routes from "./comments.routes";

export const commentsRouter = createRouter()
  .openapi(routes.listByBlock, handlers.listByBlock)
  .openapi(routes.listByPage, handlers.listByPage)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.resolve, handlers.resolve)
  .openapi(routes.unresolve, handlers.unresolve);
