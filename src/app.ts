import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { requireUser } from "./auth/middleware";
import { createDatabase } from "./db/client";
import { meterD1, type RoundTripMeter, serverTimingValue } from "./db/round-trips";
import type { AppEnv } from "./lib/context";
import { ApiError, type ErrorBody } from "./lib/errors";
import { findAllowedMethods } from "./lib/method-not-allowed";
import { validationHook } from "./openapi/validation";
import { blocksRouter } from "./routes/blocks/blocks.index";
import { databaseViewsRouter } from "./routes/database-views/database-views.index";
import { databasesRouter } from "./routes/databases/databases.index";
import { registerDocumentation } from "./routes/documentation/documentation.index";
import { pagesRouter } from "./routes/pages/pages.index";
import { systemRouter } from "./routes/system/system.index";

/** Request bodies above this are refused with 413 before they are read. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  // Per-request services: one metered D1 handle, so every route reports its round trips.
  app.use("*", async (c, next) => {
    const meter: RoundTripMeter = { count: 0, milliseconds: 0 };
    c.set("meter", meter);
    c.set("db", createDatabase(meterD1(c.env.DB, meter)));
    await next();
    c.res.headers.append("Server-Timing", serverTimingValue(meter));
    const authSource = c.get("authSource");
    if (authSource) c.res.headers.append("Server-Timing", `auth;desc="${authSource}"`);
  });
  app.use(
    "/api/*",
    cors({ origin: "*", exposeHeaders: ["X-Total-Count", "X-Pagination-Limit", "X-Pagination-Offset", "X-Has-More"] }),
  );
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(413, "Request body too large", { max_bytes: MAX_BODY_BYTES });
      },
    }),
  );
  app.use("/api/v1/*", requireUser);
  app.use("/api/database-views/*", requireUser);
  // Unversioned creation aliases named by the contract.
  app.use("/api/blocks", requireUser);
  app.use("/api/pages", requireUser);

  app.route("/", systemRouter);
  app.route("/", blocksRouter);
  app.route("/", pagesRouter);
  app.route("/", databasesRouter);
  app.route("/", databaseViewsRouter);
  registerDocumentation(app);

  app.notFound((c) => {
    const allowed = findAllowedMethods(app.routes, c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return c.json<ErrorBody>({ error: `Method ${c.req.method} not allowed`, details: { allowed } }, 405);
    }
    return c.json<ErrorBody>({ error: "Route not found", details: { method: c.req.method, path: c.req.path } }, 404);
  });

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="workspace-api"');
      return c.json(error.body, error.status);
    }
    if (error instanceof HTTPException && error.status < 500) {
      // Hono's own refusals, such as malformed JSON in a request body.
      return c.json<ErrorBody>({ error: error.message || "Invalid request" }, error.status);
    }
    console.error(`Unhandled error on ${c.req.method} ${c.req.path}:`, error);
    return c.json<ErrorBody>({ error: "Internal server error" }, 500);
  });

  return app;
}
