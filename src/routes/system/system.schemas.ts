import { z } from "@hono/zod-openapi";

export const ServiceInfo = z
  .object({
    message: z.string().openapi({ example: "Workspace API is running" }),
    environment: z.string().openapi({ example: "development" }),
    isVercel: z.boolean().openapi({ description: "Hosting flag; always false on Cloudflare Workers", example: false }),
  })
  .openapi("ServiceInfo");

export const TestResponse = z
  .object({ message: z.string().openapi({ example: "Test endpoint is working" }) })
  .openapi("TestResponse");
