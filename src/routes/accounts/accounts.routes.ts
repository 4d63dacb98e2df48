import { z } from "@hono/zod-openapi";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";

const CompleteSignInBody = z
  .object({
    sessionId: z.string().trim().min(1).max(512).openapi({
      description:
        "The session id the identity provider's front end produced (Clerk: `sess_...`). With the development provider (local use), `dev:<email>`.",
      example: "dev:ada@example.com",
    }),
  })
  .openapi("CompleteSignInRequest");

const SessionUser = z
  .object({
    id: z.string().openapi({ example: "5f0c6f9e-8a53-4c4b-9d67-0b7d1f2a3c4d" }),
    email: z.string().openapi({ example: "ada@example.com" }),
    name: z.string().nullable().openapi({ example: "Ada Lovelace" }),
  })
  .openapi("SessionUser");

const CompleteSignInResponse = z
  .object({
    success: z.boolean().openapi({ example: true }),
    sessionData: z
      .object({
        token: z.string().openapi({
          description:
            "The app-session token: send it as `Authorization: Bearer <token>` (API keys are managed with it)",
          example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI1ZjBjNmY5ZSJ9.c2lnbmF0dXJl",
        }),
        expires_at: z.string().openapi({ example: "2026-11-30T12:00:00.000Z" }),
        user: SessionUser,
      })
      .openapi("SessionData"),
  })
  .openapi("CompleteSignInResponse");

export const completeSignIn = defineRoute({
  operationId: "completeSignIn",
  method: "post",
  path: "/auth/complete",
  tags: ["Authentication"],
  access: "open",
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
