import { swaggerUI } from "@hono/swagger-ui";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { ContentItemSchema } from "../../services/content/editor-content";

export const OPENAPI_PATH = "/documentation/openapi.json";
/** The explorer's scripts and styles come from this Worker's own assets (the swagger-ui-dist package). */
const EXPLORER_ASSET_BASE = "/documentation/assets";
const EXPLORER_FILES = new Set([
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "favicon-16x16.png",
  "favicon-32x32.png",
]);

/** Registers the OpenAPI 3.1 document and, when API_EXPLORER is "true", the explorer. */
export function registerDocumentation(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "`Bearer sr_...`: an API key",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "An app-session token from /auth/complete",
  });

  // Request bodies document content items by reference (they are validated by validateContent).
  app.openAPIRegistry.register("ContentItem", ContentItemSchema);

  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Workspace API",
      version: "1.0.0",
      description:
        "Pages, databases and editor blocks as one block resource. Authenticate every /api/v1 request with `Authorization: Bearer <API key or session token>`. Errors are `{error, details?}`.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));

  const explorer = swaggerUI<AppEnv>({ url: OPENAPI_PATH, baseUrl: EXPLORER_ASSET_BASE, title: "Workspace API" });
  app.get("/documentation", async (c, next) => {
    if (c.env.API_EXPLORER !== "true") throw notFound("The API explorer is disabled on this deployment");
    return explorer(c, next);
  });
  app.get(`${EXPLORER_ASSET_BASE}/swagger-ui-dist/:file`, async (c) => {
    const file = c.req.param("file");
    if (c.env.API_EXPLORER !== "true" || !EXPLORER_FILES.has(file)) throw notFound();
    const asset = await c.env.ASSETS.fetch(new URL(`/${file}`, c.req.url));
    if (!asset.ok) throw notFound();
    const response = new Response(asset.body, asset);
    response.headers.set("Cache-Control", "public, max-age=86400");
    return response;
  });
}
