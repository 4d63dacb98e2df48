import { env } from "cloudflare:workers";
import { ACCEPTED_AUDIO_NAMES } from "../../domain/transcription-audio";
import { defineRoute, errorResponse } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { audioUploadBody, TranscriptionResultSchema } from "../../schemas/transcription";
import {
  maxAudioBytes,
  transcriptionBodyLimit,
  transcriptionTimeoutMs,
  WORKERS_AI_WHISPER_MODEL,
} from "../../services/transcription/config";

// The limit is configuration (TRANSCRIPTION_MAX_BYTES), read once when the Worker starts: it is
// the route's own body limit, held before the body is read. The handler holds it per request too.
const MAX_AUDIO_BYTES = maxAudioBytes(env);

export const transcribe = defineRoute({
  operationId: "transcribeAudio",
  method: "post",
  path: "/api/transcription/transcribe",
  tags: ["Transcription"],
  access: "open",
  // Every call costs a transcription: counted per client address.
  rateLimit: { binding: "OPEN_ROUTE_LIMITER", per: "client", retryAfterSeconds: 60 },
  summary: "Transcribe a recording (open)",
  description: `Turns speech into text. Multipart, one file part named \`audio\` (${ACCEPTED_AUDIO_NAMES.join(", ")}: what browsers and phones record); its bytes decide the format. Transcribed by Workers AI (\`${WORKERS_AI_WHISPER_MODEL}\`) when the deployment binds it, else by the OpenAI-compatible endpoint configured in TRANSCRIPTION_BASE_URL (OpenAI's \`whisper-1\` by default, or a local whisper server), within ${transcriptionTimeoutMs(env) / 1000} s (TRANSCRIPTION_TIMEOUT_SECONDS). Needs no credential and is rate limited per client address (429 with \`Retry-After\`). 400 without an \`audio\` file part, for an empty file, other fields, or bytes that are not one of those formats; 413 above ${MAX_AUDIO_BYTES} bytes (TRANSCRIPTION_MAX_BYTES); 415 for a body that is not multipart; 500 \`upstream_failed\` when transcription fails; 503 \`unavailable\` when nothing is configured to transcribe (\`details.setting\` names what to set; checked after the upload, so a caller's mistake is a 400 whatever the configuration).`,
  request: { body: audioUploadBody(MAX_AUDIO_BYTES) },
  bodyLimit: transcriptionBodyLimit(env),
  responses: {
    200: jsonContent(TranscriptionResultSchema, "The transcription"),
    400: errorResponse(
      "No `audio` file part, an empty file, an unknown field, a malformed multipart body, or bytes that are not audio of an accepted format (`code` validation_failed; `details.field`, `details.detected`)",
      {
        error: `The file is not audio this service transcribes: send ${ACCEPTED_AUDIO_NAMES.join(", ")}`,
        code: "validation_failed",
        details: { field: "audio", detected: "image/png", accepted: ACCEPTED_AUDIO_NAMES },
      },
    ),
    413: errorResponse(
      `The file is larger than ${MAX_AUDIO_BYTES} bytes (TRANSCRIPTION_MAX_BYTES) (\`code\` payload_too_large)`,
      {
        error: `The audio file is larger than ${MAX_AUDIO_BYTES} bytes`,
        code: "payload_too_large",
        details: { max_bytes: MAX_AUDIO_BYTES },
      },
    ),
    415: errorResponse("The body is not multipart/form-data (`code` unsupported_media_type)", {
      error: "Send the audio as multipart/form-data, in a file part named `audio`",
      code: "unsupported_media_type",
      details: { accepted: ["multipart/form-data"] },
    }),
    500: errorResponse(
      "Transcription failed: the transcriber answered with an error status, timed out, could not be reached or answered something that is not a transcription (`code` upstream_failed; the message names the transcriber and what happened, never its answer, address or key), or an unexpected failure (`code` internal). X-Request-Id identifies it",
      { error: "transcription service answered with HTTP 429", code: "upstream_failed" },
    ),
    503: errorResponse(
      "Nothing is configured to transcribe on this server: no Workers AI binding and no usable TRANSCRIPTION_BASE_URL (`code` unavailable; `details.setting` names what to set). Nothing was sent anywhere",
      {
        error: "Transcription is not configured on this server: bind Workers AI as AI, or set TRANSCRIPTION_BASE_URL",
        code: "unavailable",
        details: { setting: "TRANSCRIPTION_BASE_URL" },
      },
    ),
  },
});
