import { createRouter } from "../../openapi/define-route";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

export const webhooksRouter = createRouter()
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.rotateSecret, handlers.rotateSecret)
  .openapi(routes.listDeliveries, handlers.listDeliveries)
  .openapi(routes.retryDelivery, handlers.retryDelivery);
