import { createRouter } from "../../openapi/define-route";
import { completeSignIn as completeSignInService } from "../../services/accounts/sign-in";
import * as routes from "./auth.routes";

export const authRouter = createRouter().openapi(routes.completeSignIn, async (c) => {
  const { sessionId } = c.req.valid("json");
  const sessionData = await completeSignInService(c.var.ctx, sessionId);
  return c.json({ success: true, sessionData }, 200);
});
