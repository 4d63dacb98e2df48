import { createRouter } from "../../openapi/define-route";
import * as handlers from "./media.handlers";
import * as routes from "./media.routes";

// Fixed paths (upload, search, url, resolve, download) before `{id}` ones.
export const mediaRouter = createRouter()
  .openapi(routes.upload, handlers.upload)
  .openapi(routes.list, handlers.list)
  .openapi(routes.search, handlers.search)
  .openapi(routes.urlByPath, handlers.urlByPath)
  .openapi(routes.resolve, handlers.resolve)
  .openapi(routes.downloadByQuery, handlers.downloadByQuery)
  .openapi(routes.downloadByBody, handlers.downloadByBody)
  .openapi(routes.urlById, handlers.urlById)
  .openapi(routes.getMetadata, handlers.getMetadata)
  .openapi(routes.patchMetadata, handlers.patchMetadata)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.serveSigned, handlers.serveSigned);
