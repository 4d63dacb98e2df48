import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/context";
import { jsonContent } from "../../openapi/responses";

const ServiceInfo = z
  .object({
    message: z.string(),
    environment: z.string(),
    isVercel: z.boolean().openapi({ description: "Hosting flag; always false on Cloudflare Workers" }),
  })
  .openapi("ServiceInfo");

const root = createRoute({
  operationId: "getServiceInfo",
  method: "get",
  path: "/",
  tags: ["System"],
  summary: "Service information (open)",
  responses: { 200: jsonContent(ServiceInfo, "About this deployment") },
});

const test = createRoute({
  operationId: "getTest",
  method: "get",
  path: "/test",
  tags: ["System"],
  summary: "Liveness check (open)",
  responses: { 200: jsonContent(z.object({ message: z.string() }).openapi("TestResponse"), "The service is up") },
});

export const systemRouter = new OpenAPIHono<AppEnv>()
  .openapi(root, (c) =>
    c.json(
      { message: "Workspace API is running", environment: c.env.ENVIRONMENT ?? "development", isVercel: false },
      200,
    ),
  )
  .openapi(test, (c) => c.json({ message: "Test endpoint is working" }, 200));
