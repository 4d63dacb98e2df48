import type { Handler } from "../../openapi/define-route";
import type * as routes from "./system.routes";

export const root: Handler<typeof routes.root> = (c) =>
  c.json(
    { message: "Workspace API is running", environment: c.env.ENVIRONMENT ?? "development", isVercel: false },
    200,
  );

export const test: Handler<typeof routes.test> = (c) => c.json({ message: "Test endpoint is working" }, 200);
