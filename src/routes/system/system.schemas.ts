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

const ComponentCheck = z
  .object({
    componentType: z.enum(["datastore", "component"]).openapi({ example: "datastore" }),
    status: z.enum(["pass", "fail"]).openapi({ example: "pass" }),
    observedValue: z
      .union([z.string(), z.number()])
      .optional()
      .openapi({ description: "What was observed: a response time, or the latest migration applied", example: 4 }),
    observedUnit: z.string().optional().openapi({ example: "ms" }),
    time: z.string().openapi({ description: "When it was observed (ISO 8601)", example: "2026-11-26T19:40:00.000Z" }),
    output: z.string().optional().openapi({
      description: "Why it failed",
      example: "expected 0019_idempotency_keys.sql: run wrangler d1 migrations apply",
    }),
  })
  .openapi("HealthComponentCheck");

export const HealthResponse = z
  .object({
    status: z.enum(["pass", "fail"]).openapi({ description: "`pass` (200) or `fail` (503)", example: "pass" }),
    description: z.string().openapi({ example: "Every dependency answers" }),
    checks: z.record(z.string(), z.array(ComponentCheck)).openapi({
      description:
        "Per `component:measurement`: `database:responseTime`, `database:migration` (the latest applied against the one this code expects), `storage:responseTime` (R2), `reminderQueue:responseTime` (the Durable Object namespace)",
      example: {
        "database:responseTime": [
          {
            componentType: "datastore",
            status: "pass",
            observedValue: 3,
            observedUnit: "ms",
            time: "2026-11-26T19:40:00.000Z",
          },
        ],
        "database:migration": [
          {
            componentType: "datastore",
            status: "pass",
            observedValue: "0019_idempotency_keys.sql",
            time: "2026-11-26T19:40:00.000Z",
          },
        ],
        "storage:responseTime": [
          {
            componentType: "datastore",
            status: "pass",
            observedValue: 2,
            observedUnit: "ms",
            time: "2026-11-26T19:40:00.000Z",
          },
        ],
        "reminderQueue:responseTime": [
          {
            componentType: "component",
            status: "pass",
            observedValue: 5,
            observedUnit: "ms",
            time: "2026-11-26T19:40:00.000Z",
          },
        ],
      },
    }),
  })
  .openapi("Health");
