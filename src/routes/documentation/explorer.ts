import { swaggerUI } from "@hono/swagger-ui";
import type { OpenAPIHono } from "@hono/zod-openapi";
import swaggerCss from "swagger-ui-dist/swagger-ui.css";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js";
import type { AppEnv } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { OPENAPI_PATH } from "./documentation.index";

// The API explorer: Swagger UI over the contract, its script and stylesheet served by this Worker
// from the swagger-ui-dist package (offline). Only the development entry (src/index.ts) registers
// it; the production entry leaves it out, so a deployment without the explorer uploads none of its
// 480 KB (gzip). API_EXPLORER = "false" turns it off where it is built in.

const EXPLORER_ASSET_BASE = "/documentation/assets";
/** The only files served from the package: the explorer's script and stylesheet. */
const EXPLORER_FILES = new Map([
  ["swagger-ui-bundle.js", { body: swaggerBundle, contentType: "text/javascript; charset=utf-8" }],
  ["swagger-ui.css", { body: swaggerCss, contentType: "text/css; charset=utf-8" }],
]);

/** Registers `/documentation` (the explorer) and its assets. */
export function registerExplorer(app: OpenAPIHono<AppEnv>): void {
  // persistAuthorization: the key pasted in Authorize survives a reload (Swagger UI keeps it in localStorage).
  const explorer = swaggerUI<AppEnv>({
    url: OPENAPI_PATH,
    baseUrl: EXPLORER_ASSET_BASE,
    title: "Workspace API",
    persistAuthorization: true,
  });
  app.get("/documentation", async (c, next) => {
    if (c.env.API_EXPLORER !== "true") throw notFound("The API explorer is disabled on this deployment");
    return explorer(c, next);
  });
  app.get(`${EXPLORER_ASSET_BASE}/swagger-ui-dist/:file`, (c) => {
    const file = EXPLORER_FILES.get(c.req.param("file"));
    if (c.env.API_EXPLORER !== "true" || !file) throw notFound();
    return c.body(file.body, 200, { "Content-Type": file.contentType, "Cache-Control": "public, max-age=86400" });
  });
}
