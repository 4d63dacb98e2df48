import { z } from "@hono/zod-openapi";
import { ACCEPTED_AUDIO_NAMES, AUDIO_FIELD } from "../domain/transcription-audio";

/** The answer of a transcription. */
export const TranscriptionResultSchema = z
  .object({
    transcriptionData: z.string().openapi({
      description: "The text spoken in the recording, without leading or trailing white space (empty for silence)",
      example: "Remind me to call the dentist tomorrow at nine, and add milk to the shopping list.",
    }),
  })
  .openapi("TranscriptionResult");

export type TranscriptionResult = z.infer<typeof TranscriptionResultSchema>;

/**
 * The request body: multipart with one file part. A JSON Schema object rather than zod, so the
 * body is read by the handler (with its limit held), not parsed by a validator.
 */
export const audioUploadBody = (maxBytes: number) => ({
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object" as const,
        required: [AUDIO_FIELD],
        additionalProperties: false,
        properties: {
          [AUDIO_FIELD]: {
            type: "string" as const,
            format: "binary",
            description: `The recording: one file part named \`${AUDIO_FIELD}\`, at most ${maxBytes} bytes (TRANSCRIPTION_MAX_BYTES), in ${ACCEPTED_AUDIO_NAMES.join(", ")}. Its bytes decide the format; the part's declared type and file name are not used`,
          },
        },
      },
      encoding: { [AUDIO_FIELD]: { contentType: "audio/*, video/webm, video/mp4" } },
    },
  },
});
