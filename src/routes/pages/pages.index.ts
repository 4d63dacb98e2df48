import { createRouter } from "../../openapi/define-route";
import * as handlers from "./pages.handlers";
import * as routes from "./pages.routes";

// exportBatch is registered before get so `/pages/export/batch` is never read as a page id.
export const pagesRouter = createRouter()
  .openapi(routes.exportBatch, handlers.exportBatch)
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.createUnversioned, handlers.create)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.exportOne, handlers.exportOne);
