import { createRouter } from "../../openapi/define-route";
import * as handlers from "./payments.handlers";
import * as routes from "./payments.routes";

export const paymentsRouter = createRouter()
  .openapi(routes.webhook, handlers.webhook)
  .openapi(routes.cancel, handlers.cancel)
  .openapi(routes.me, handlers.me);
