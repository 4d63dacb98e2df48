import type { Handler } from "../../openapi/define-route";
import { completeSignIn } from "../../services/accounts/sign-in";
import type * as routes from "./accounts.routes";

export const complete: Handler<typeof routes.complete> = async (c) => {
  const sessionData = await completeSignIn(c.get("ctx"), c.req.valid("json").sessionId);
  return c.json({ success: true, sessionData }, 200);
};
