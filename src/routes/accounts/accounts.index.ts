import { createRouter } from "../../openapi/define-route";
import * as handlers from "./accounts.handlers";
import * as routes from "./accounts.routes";

export const accountsRouter = createRouter()
  .openapi(routes.complete, handlers.complete)
  .openapi(routes.signOut, handlers.signOut);
