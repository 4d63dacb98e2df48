import { createRouter } from "../../openapi/define-route";
import * as handlers from "./me.handlers";
import * as routes from "./me.routes";

export const meRouter = createRouter().openapi(routes.get, handlers.get);
