import { createRouter } from "../../openapi/define-route";
import * as handlers from "./changes.handlers";
import * as routes from "./changes.routes";

export const changesRouter = createRouter()
  .openapi(routes.feed, handlers.feed)
  .openapi(routes.history, handlers.history)
  .openapi(routes.restore, handlers.restore);
