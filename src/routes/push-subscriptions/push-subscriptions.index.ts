import { createRouter } from "../../openapi/define-route";
import * as handlers from "./push-subscriptions.handlers";
import * as routes from "./push-subscriptions.routes";

export const pushSubscriptionsRouter = createRouter()
  .openapi(routes.vapidPublicKey, handlers.vapidPublicKey)
  .openapi(routes.create, handlers.create)
  .openapi(routes.list, handlers.list)
  .openapi(routes.remove, handlers.remove);
