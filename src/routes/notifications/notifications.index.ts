import { createRouter } from "../../openapi/define-route";
import * as handlers from "./notifications.handlers";
import * as routes from "./notifications.routes";

export const notificationsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.read, handlers.read);
