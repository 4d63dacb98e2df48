import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { CompleteSignInBody, CompleteSignInResponse } from "./accounts.schemas";

export const complete = defineRoute({
  operationId: "completeSignIn",
  method: "post",
  path: "/auth/complete",
  tags: ["Authentication"],
  access: "open",
  // The answer carries the session token.
  secretResponse: true,
  // Each call may cost a call to the identity provider.
  rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "client", retryAfterSeconds: 60 },
  summary: "Exchange an identity-provider session for an app session (open)",
  description:
    "The identity provider (AUTH_PROVIDER: Clerk by default in production; locally the development provider, which takes `dev:<email>`) confirms the session id; the user is found by the provider's user id or created, and the answer carries an app-session token (HS256 JWT, lifetime SESSION_TTL_SECONDS, default 7 days) that `/api/v1` accepts and that API-key management requires. 400 for an unknown, expired or ended session (and for `dev:` ids anywhere but the development provider); 500 when the provider cannot be reached, with nothing of its answer; 503 when sign-in is not configured.",
  request: { body: jsonBody(CompleteSignInBody) },
  responses: {
    200: jsonContent(CompleteSignInResponse, "Signed in"),
    409: ERROR_RESPONSES[409],
    503: errorResponse("Sign-in or sessions are not configured on this server (`code` unavailable)"),
  },
});
