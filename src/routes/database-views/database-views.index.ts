import { createRouter } from "../../openapi/define-route";
import * as handlers from "./database-views.handlers";
import * as routes from "./database-views.routes";

export const databaseViewsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove);
