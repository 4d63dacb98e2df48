import { createRouter } from "../../openapi/define-route";
import * as handlers from "./databases.handlers";
import * as routes from "./databases.routes";
import { BatchRowSchema } from "./databases.schemas";

export const databasesRouter = createRouter()
  .openapi(routes.getSchema, handlers.getSchema)
  .openapi(routes.addProperty, handlers.addProperty)
  .openapi(routes.updateProperty, handlers.updateProperty)
  .openapi(routes.removeProperty, handlers.removeProperty)
  .openapi(routes.addOption, handlers.addOption)
  .openapi(routes.updateOption, handlers.updateOption)
  .openapi(routes.removeOption, handlers.removeOption)
  .openapi(routes.queryRows, handlers.queryRows)
  .openapi(routes.createRows, handlers.createRows);

// Bulk rows document each row by reference (the handler validates them one by one).
databasesRouter.openAPIRegistry.register("DatabaseRowInput", BatchRowSchema);
