import { createRouter } from "../../openapi/define-route";
import * as handlers from "./tasks.handlers";
import * as routes from "./tasks.routes";

export const tasksRouter = createRouter()
  .openapi(routes.preview, handlers.preview)
  .openapi(routes.create, handlers.create)
  .openapi(routes.databaseOptions, handlers.databaseOptions);
