import { z } from "@hono/zod-openapi";
import { digitGroups } from "../lib/digit-groups";

/** Longest transcription text a note takes: a recording of two to three hours. */
export const NOTES_TEXT_MAX_CHARACTERS = 200_000;
export const NOTES_TITLE_MAX_CHARACTERS = 300;

export const NotesImportBody = z
  .object({
    transcriptionText: z
      .string()
      .max(NOTES_TEXT_MAX_CHARACTERS)
      .refine((text) => text.trim() !== "", "transcriptionText must not be empty or only white space")
      .openapi({
        description: `The text to send to the notes tool (required; not empty or only white space; at most ${digitGroups(NOTES_TEXT_MAX_CHARACTERS)} characters), sent as given`,
        example: "Remind me to call the dentist tomorrow at nine, and add milk to the shopping list.",
      }),
    title: z
      .string()
      .max(NOTES_TITLE_MAX_CHARACTERS)
      .nullish()
      .openapi({
        description: `The note's title (optional; at most ${NOTES_TITLE_MAX_CHARACTERS} characters), trimmed. Missing, null or blank: \`Transcription <YYYY-MM-DD HH:MM> UTC\` of the moment it is sent`,
        example: "Voice memo: errands",
      }),
  })
  .openapi("NotesImportRequest");

export type NotesImportInput = z.infer<typeof NotesImportBody>;

export const NotesImportResultSchema = z
  .object({
    success: z.literal(true).openapi({ example: true }),
    message: z.string().openapi({ example: "Sent to the notes tool" }),
  })
  .openapi("NotesImportResult");

export type NotesImportResult = z.infer<typeof NotesImportResultSchema>;
