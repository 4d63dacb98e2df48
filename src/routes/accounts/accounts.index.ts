import { createRouter } from "../../openapi/define-route";
import { completeSignIn as completeSignInService } from "../../services/accounts/sign-in";
import * as routes from "./accounts.routes";

export const accountsRouter = createRouter().openapi(routes.completeSignIn, async (c) => {
  const { sessionId } = c.req.valid("json");
  const sessionData = await completeSignInService(c.var.ctx, sessionId);
  return c.json({ success: true, sessionData }, 200);
});
