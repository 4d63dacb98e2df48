import { z } from "@hono/zod-openapi";
import { createRouter, defineRoute } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";

const ServiceInfo = z
  .object({
    message: z.string().openapi({ example: "Workspace API is running" }),
    environment: z.string().openapi({ example: "development" }),
    isVercel: z.boolean().openapi({ description: "Hosting flag; always false on Cloudflare Workers", example: false }),
  })
  .openapi("ServiceInfo");

const root = defineRoute({
  operationId: "getServiceInfo",
  method: "get",
  path: "/",
  tags: ["System"],
  access: "open",
  summary: "Service information (open)",
  description: "Which deployment answers: its environment name. Needs no credential.",
  responses: { 200: jsonContent(ServiceInfo, "About this deployment") },
});

const test = defineRoute({
  operationId: "getTest",
  method: "get",
  path: "/test",
  tags: ["System"],
  access: "open",
  summary: "Liveness check (open)",
  description: "Answers while the service is up. Needs no credential.",
  responses: {
    200: jsonContent(
      z.object({ message: z.string().openapi({ example: "Test endpoint is working" }) }).openapi("TestResponse"),
      "The service is up",
    ),
  },
});

export const systemRouter = createRouter()
  .openapi(root, (c) =>
    c.json(
      { message: "Workspace API is running", environment: c.env.ENVIRONMENT ?? "development", isVercel: false },
      200,
    ),
  )
  .openapi(test, (c) => c.json({ message: "Test endpoint is working" }, 200));
