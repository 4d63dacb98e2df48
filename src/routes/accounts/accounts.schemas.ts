import { z } from "@hono/zod-openapi";
import { SuccessSchema } from "../../openapi/responses";

export const CompleteSignInBody = z
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

export const CompleteSignInResponse = z
  .object({
    success: z.boolean().openapi({ example: true }),
    sessionData: z
      .object({
        token: z.string().openapi({
          description:
            "The app-session token: send it as `Authorization: Bearer <token>` (API keys are managed with it)",
          example:
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJ3b3Jrc3BhY2UtYXBpIiwiYXVkIjoid29ya3NwYWNlLWFwaTphcHAtc2Vzc2lvbiIsInN1YiI6IjVmMGM2ZjllLThhOGUtNGMxZS05YTFlLTJmNmM4ZDBiN2EzMSIsImlhdCI6MTc5NTk1MzYwMCwiaWF0X21zIjoxNzk1OTUzNjAwMDAwLCJleHAiOjE3OTY1NTg0MDB9.c2lnbmF0dXJl",
        }),
        expires_at: z.string().openapi({ example: "2026-12-06T12:00:00.000Z" }),
        user: SessionUser,
      })
      .openapi("SessionData"),
  })
  .openapi("CompleteSignInResponse");

/** The answer of `/auth/sign-out`: the API's `{success, message}` of an action. */
export const SignedOutResponse = SuccessSchema.openapi("SignedOut", {
  example: { success: true, message: "Signed out: every app session has ended" },
});
