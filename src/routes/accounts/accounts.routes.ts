import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { EmptyBody, jsonBody, jsonContent } from "../../openapi/responses";
import { CompleteSignInBody, CompleteSignInResponse, SignedOutResponse } from "./accounts.schemas";

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

export const signOut = defineRoute({
  operationId: "signOut",
  method: "post",
  path: "/auth/sign-out",
  tags: ["Authentication"],
  access: "session",
  // Nothing to replay: the session that would send the retry has ended (a 401), and a second
  // sign-out does what the first did.
  idempotencyKey: false,
  summary: "Sign out everywhere: end every app session of the caller",
  description:
    "Ends every app session of the caller issued up to now, the one sending this included: each one's next request is refused with 401 everywhere, at once (for a stolen session token, say). A sign-in after it gets a session that works. The caller's API keys are not touched: they stay valid until revoked on their own (`DELETE /api/v1/api-keys/{id}`). Needs an app session (an API key gets 403). Takes no `Idempotency-Key`: a retry with the ended session is a 401, and signing out again changes nothing more.",
  request: { body: jsonBody(EmptyBody, false) },
  responses: { 200: jsonContent(SignedOutResponse, "Every session of the caller has ended") },
});
