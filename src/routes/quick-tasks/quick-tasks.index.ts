import { createRouter } from "../../openapi/define-route";
import * as handlers from "./quick-tasks.handlers";
import * as routes from "./quick-tasks.routes";

export const quickTasksRouter = createRouter()
  .openapi(routes.preview, handlers.preview)
  .openapi(routes.create, handlers.create)
  .openapi(routes.databaseOptions, handlers.databaseOptions);
