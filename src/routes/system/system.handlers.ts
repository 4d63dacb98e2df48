import type { Handler } from "../../openapi/define-route";
import { checkHealth } from "../../services/health/health";
import * as routes from "./system.routes";

export const root: Handler<typeof routes.root> = (c) =>
  c.json(
    { message: "Workspace API is running", environment: c.env.ENVIRONMENT ?? "development", isVercel: false },
    200,
  );

export const test: Handler<typeof routes.test> = (c) => c.json({ message: "Test endpoint is working" }, 200);

export const health: Handler<typeof routes.health> = async (c) => {
  const report = await checkHealth(c.env, c.get("ctx").now());
  // Never kept by a cache between the monitor and the service: each answer is a new observation.
  const headers = { "Content-Type": routes.HEALTH_MEDIA_TYPE, "Cache-Control": "no-store" };
  return report.status === "pass" ? c.json(report, 200, headers) : c.json(report, 503, headers);
};
