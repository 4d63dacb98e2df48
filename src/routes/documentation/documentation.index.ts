import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { registerHeaderComponents } from "../../openapi/headers";
import { TAGS } from "../../openapi/tags";
import { AiStreamEvent } from "../../schemas/ai";
import { ContentItemSchema } from "../../services/content/editor-content";

// The contract itself and its explorer. No operation of the contract is declared here, so this
// folder has no routes, handlers or schemas files: only what it registers on the app.

export const OPENAPI_PATH = "/documentation/openapi.json";
/** Registers the OpenAPI 3.1 document (the explorer is registered apart: explorer.ts). */
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

  // Response headers that many operations carry (the quota fields, Retry-After), by reference.
  registerHeaderComponents(app);

  // Request bodies document content items by reference (they are validated by validateContent).
  app.openAPIRegistry.register("ContentItem", ContentItemSchema);
  // The AI stream's events, which its text/event-stream content names (schemas/ai.ts).
  app.openAPIRegistry.register("AiStreamEvent", AiStreamEvent);

  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Workspace API",
      version: "1.0.0",
      license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" },
      contact: { name: "Workspace API maintainers", url: `${new URL(c.req.url).origin}/documentation` },
      description:
        "Pages, databases and editor blocks as one block resource. Each operation declares its access in `security`: most take `Authorization: Bearer <API key or session token>`; open ones declare none. Errors are `{error, code, details?}` with a stable `code` (see the Error schema); every response carries `X-Request-Id`. Every answer to a valid credential carries its quota, `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11; past it, a 429 with `Retry-After`), and a 201 the new resource's `Location`. Reads may be served by the nearest read replica: a response that touched the database carries `X-D1-Bookmark`; send the last one you received back as the `X-D1-Bookmark` request header and the request sees at least what that response saw, your own writes included (a malformed one is a 400 `validation_failed` with `details.header`). Listings page by cursor: while more items follow, an answer carries `X-Next-Cursor`; send it back as the `cursor` parameter (the same user, the same filters) for the next page, which costs what the first costs. `limit` sets the page size (default 50, at most 100); `offset` skips items instead (not together with a cursor). Every listing also sends X-Total-Count (left out above a cap), X-Pagination-Limit, X-Pagination-Offset and X-Has-More.\n\n" +
        "**Try it out in this explorer.** Press Authorize and paste an API key under apiKeyAuth (for a local server, `npm run key -- you@example.com` prints one); the explorer keeps it across reloads, in this browser's local storage, until you log out there. Every field is pre-filled with values that work on an empty account: run a listing or a create as it stands. An id in a path (and a body field naming an existing object, such as a comment's `block_id`) is yours to choose: with the example id the answer is a 404. Cursors, searches, id filters and per-request headers (`Idempotency-Key`, `If-Match`, `Range`...) are left empty; their forms are shown as JSON Schema `examples` (OpenAPI 3.1), which the explorer does not pre-fill.",
    },
    servers: [{ url: new URL(c.req.url).origin, description: "The deployment that served this document" }],
    tags: TAGS,
  }));
}
