import { defineRoute } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { ServiceInfo, TestResponse } from "./system.schemas";

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
