import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { validationHook } from "../../openapi/validation";
import * as handlers from "./database-views.handlers";
import * as routes from "./database-views.routes";

export const databaseViewsRouter = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove);
