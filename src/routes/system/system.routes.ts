import { defineRoute } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { HealthResponse, ServiceInfo, TestResponse } from "./system.schemas";

/** The media type of the Health Check Response Format (draft-inadarei-api-health-check-06). */
export const HEALTH_MEDIA_TYPE = "application/health+json";

/** A monitor reads the state now: no cache may answer for the service. */
const NO_STORE = {
  "Cache-Control": { schema: { type: "string" as const, enum: ["no-store"] }, description: "Never cached" },
};

export const root = defineRoute({
  operationId: "getServiceInfo",
  method: "get",
  path: "/",
  tags: ["System"],
  access: "open",
  summary: "Service information (open)",
  description: "Which deployment answers: its environment name. Needs no credential.",
  responses: { 200: jsonContent(ServiceInfo, "About this deployment") },
});

export const test = defineRoute({
  operationId: "getTest",
  method: "get",
  path: "/test",
  tags: ["System"],
  access: "open",
  summary: "Liveness check (open)",
  description: "Answers while the service is up. Needs no credential.",
  responses: { 200: jsonContent(TestResponse, "The service is up") },
});

export const health = defineRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: ["System"],
  access: "open",
  rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "client", retryAfterSeconds: 60 },
  summary: "Health of the service and its dependencies (open)",
  description:
    "For monitors and load balancers: touches each dependency once, in parallel, within 3 s each: D1 (one read, which also gives the latest migration applied, compared with the one this code expects), R2 (a HEAD) and the reminders' Durable Object namespace (one call). 200 with `status: pass` when all answer; 503 with `status: fail` and `description` naming what is down (or a database whose migrations are behind: run `wrangler d1 migrations apply`). In the Health Check Response Format for HTTP APIs (draft-inadarei-api-health-check-06), `application/health+json`. Reads nothing of any user. Needs no credential; rate limited per client address (429 with `Retry-After`). `GET /test` stays as the cheaper liveness check that touches nothing.",
  responses: {
    200: {
      description: "Every dependency answers",
      headers: NO_STORE,
      content: { [HEALTH_MEDIA_TYPE]: { schema: HealthResponse } },
    },
    503: {
      description: "A dependency is down, or the database's migrations are behind the code",
      headers: NO_STORE,
      content: {
        [HEALTH_MEDIA_TYPE]: {
          schema: HealthResponse,
          example: {
            status: "fail",
            description: "Failing: database:migration",
            checks: {
              "database:migration": [
                {
                  componentType: "datastore",
                  status: "fail",
                  observedValue: "0018_subscription_states.sql",
                  time: "2026-11-26T19:40:00.000Z",
                  output: "expected 0019_idempotency_keys.sql: run wrangler d1 migrations apply",
                },
              ],
            },
          },
        },
      },
    },
  },
});
