import { digitGroups } from "../../lib/digit-groups";
import { defineRoute, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import { NOTES_TEXT_MAX_CHARACTERS, NotesImportBody, NotesImportResultSchema } from "../../schemas/notes-import";

export const importNotes = defineRoute({
  operationId: "importNotes",
  method: "post",
  path: "/notes-import",
  tags: ["Notes import"],
  // The service signs what it delivers: only a user's credential with the `write` scope (the
  // default for a POST) may have it deliver something.
  access: "user",
  // Each call pushes to a third party: counted per user.
  rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "user", retryAfterSeconds: 60 },
  summary: "Send a transcription to the notes tool",
  description: `Pushes \`{transcriptionText, title}\` to the configured notes tool: one JSON POST to its webhook (NOTES_WEBHOOK_URL), signed with NOTES_WEBHOOK_SECRET (\`X-Notes-Timestamp\` and \`X-Notes-Signature: sha256=<hex of HMAC-SHA256(secret, "<timestamp>.<body>")>\`), carrying \`id\`, \`type: "transcription"\`, \`title\`, \`transcriptionText\`, \`user_id\` (the caller) and \`created_at\`. Answers 200 when the tool accepts it (any 2xx). Needs an API key with the \`write\` scope or an app session, and is rate limited per user (429 with \`Retry-After\`). 400 when \`transcriptionText\` is missing, empty, only white space or longer than ${digitGroups(NOTES_TEXT_MAX_CHARACTERS)} characters (\`title\` is optional); 500 \`upstream_failed\` when the tool refuses it (any other status, a redirect), times out or cannot be reached; 503 \`unavailable\` when no notes tool is configured (\`details.setting\` names what to set; nothing is sent).`,
  request: { body: jsonBody(NotesImportBody) },
  responses: {
    200: jsonContent(NotesImportResultSchema, "The notes tool accepted the note"),
    400: errorResponse(
      "No transcription text (missing, empty or only white space), or another invalid field; malformed JSON is `code` malformed_json",
      {
        error: "Invalid request body",
        code: "validation_failed",
        details: {
          source: "request body",
          issues: [
            {
              path: "transcriptionText",
              message: "transcriptionText must not be empty or only white space",
              code: "custom",
            },
          ],
        },
      },
    ),
    500: errorResponse(
      "Sending failed: the notes tool answered with another status than 2xx, timed out or could not be reached (`code` upstream_failed; never its URL or answer), or an unexpected failure (`code` internal). X-Request-Id identifies it",
      { error: "notes tool answered with HTTP 502", code: "upstream_failed" },
    ),
    503: errorResponse(
      "No notes tool is configured on this server: NOTES_WEBHOOK_URL or NOTES_WEBHOOK_SECRET is missing or unusable (`code` unavailable; `details.setting` names what to set). Nothing was sent",
      {
        error: "Notes import is not configured on this server: set NOTES_WEBHOOK_URL, the notes tool's webhook",
        code: "unavailable",
        details: { setting: "NOTES_WEBHOOK_URL" },
      },
    ),
  },
});
