import type { Handler } from "../../openapi/define-route";
import { completeSignIn } from "../../services/accounts/sign-in";
import { signOutEverywhere } from "../../services/accounts/sign-out";
import type * as routes from "./accounts.routes";

export const complete: Handler<typeof routes.complete> = async (c) => {
  const sessionData = await completeSignIn(c.get("ctx"), c.req.valid("json").sessionId);
  return c.json({ success: true, sessionData }, 200);
};

export const signOut: Handler<typeof routes.signOut> = async (c) => {
  await signOutEverywhere(c.get("ctx"));
  return c.json({ success: true, message: "Signed out: every app session has ended" }, 200);
};
