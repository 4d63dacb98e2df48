import { createRouter } from "../../openapi/define-route";
import * as handlers from "./settings.handlers";
import * as routes from "./settings.routes";

export const settingsRouter = createRouter().openapi(routes.get, handlers.get).openapi(routes.update, handlers.update);
