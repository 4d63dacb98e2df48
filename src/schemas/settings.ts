import { z } from "@hono/zod-openapi";
import { AI_PROVIDERS } from "../domain/ai-providers";
import { MODEL_PATTERN } from "./ai";

// The caller's workspace settings: the one zod source of their TypeScript types and OpenAPI
// components. Field names are the contract's (camelCase), as clients already store them.

const EXAMPLE_DATABASE_ID = "3c1d7e2a-5b4f-4e8a-9c6d-2f1e0a9b8c7d";

export const QuickTaskParserStatusSchema = z
  .object({
    provider: z.enum(AI_PROVIDERS).nullable().openapi({
      description: "The provider quick-task text goes to: the setting, else TASK_CAPTURE_PROVIDER; null: none",
      example: "openai",
    }),
    model: z.string().nullable().openapi({
      description: "The structured-output model it is parsed with: the setting, else TASK_CAPTURE_MODEL",
      example: "gpt-4.1-mini",
    }),
    ready: z.boolean().openapi({
      description: "True when the model parser will be tried; false: the local parser answers (`reason` says why)",
      example: true,
    }),
    reason: z.string().nullable().openapi({
      description: "Why the model parser is not ready (no provider, no model, no server key...)",
      example: null,
    }),
  })
  .openapi("QuickTaskParserStatus");

export const SettingsSchema = z
  .object({
    quickTaskProvider: z.enum(AI_PROVIDERS).nullable().openapi({
      description: "Quick-task capture: the parsing provider, overriding the server's TASK_CAPTURE_PROVIDER",
      example: "anthropic",
    }),
    quickTaskModel: z.string().nullable().openapi({
      description:
        "Quick-task capture: the structured-output model, overriding TASK_CAPTURE_MODEL (never the chat model)",
      example: "claude-haiku-4-5",
    }),
    quickTaskDatabaseId: z.string().nullable().openapi({
      description:
        "Where quick tasks go when a request names no database; null: the built-in Tasks database. A database later deleted or trashed falls back to it too",
      example: EXAMPLE_DATABASE_ID,
    }),
    quickTaskSkipPreview: z.boolean().openapi({
      description:
        "When true, a request to the preview route marked `preview=1` (query or body) creates the task at once",
      example: false,
    }),
    quickTaskTemplateDatabaseId: z.string().nullable().openapi({
      description: "Read-only: the built-in Tasks database, once installed by a first quick task",
      example: null,
    }),
    quickTaskParser: QuickTaskParserStatusSchema,
    updatedAt: z.string().nullable().openapi({
      format: "date-time",
      description: "When the settings last changed; null: never set",
      example: "2026-11-23T09:30:00.000Z",
    }),
  })
  .openapi("Settings");

export type Settings = z.infer<typeof SettingsSchema>;
export type QuickTaskParserStatus = z.infer<typeof QuickTaskParserStatusSchema>;

export const UpdateSettingsBody = z
  .strictObject({
    quickTaskProvider: z.enum(AI_PROVIDERS).nullable().optional().openapi({
      description:
        "openai, anthropic, gemini, mistral or groq; openai-compatible where the server has OPENAI_COMPATIBLE_BASE_URL. null clears",
      example: "openai",
    }),
    quickTaskModel: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(MODEL_PATTERN, { message: "A model name (letters, digits and . _ : / @ + -)" })
      .nullable()
      .optional()
      .openapi({
        description:
          "A model of that provider with structured output; null clears. Changing the provider without naming a model clears it (a model name means nothing to another provider)",
        example: "gpt-4.1-mini",
      }),
    quickTaskDatabaseId: z.string().min(1).max(200).nullable().optional().openapi({
      description: "A database the caller can see, not archived or in the trash (404 otherwise); null clears",
      example: EXAMPLE_DATABASE_ID,
    }),
    quickTaskSkipPreview: z.boolean().optional().openapi({ example: true }),
  })
  .superRefine((value, ctx) => {
    if (Object.keys(value).length === 0) ctx.addIssue({ code: "custom", path: [], message: "Give at least one field" });
  })
  .openapi("UpdateSettings", {
    example: { quickTaskDatabaseId: EXAMPLE_DATABASE_ID, quickTaskSkipPreview: true },
  });

export type UpdateSettingsInput = z.infer<typeof UpdateSettingsBody>;
