import { z } from "@hono/zod-openapi";
import { REMINDER_OFFSETS } from "../domain/reminder-offsets";
import { isTimeZone } from "../domain/time-zones";
import { PROPERTY_TYPES } from "./databases";
import { PageSchema } from "./pages";
import { ReminderSchema } from "./reminders";

// Quick-task capture's requests and answers: the one zod source of their types and OpenAPI
// components. Beside `target_database` (the contract's name) the field names are ours.

export const QUICK_TASK_TEXT_MAX = 2000;
const EXAMPLE_DATABASE_ID = "3c1d7e2a-5b4f-4e8a-9c6d-2f1e0a9b8c7d";

const requestFields = {
  text: z
    .string()
    .min(1)
    .max(QUICK_TASK_TEXT_MAX)
    .refine((text) => text.trim().length > 0, { message: "Must not be blank" })
    .openapi({
      description: `The task as a person would say it, 1 to ${QUICK_TASK_TEXT_MAX} characters. Text after \` -- \` (or a new line) is the notes`,
      example: "Pay rent tomorrow at 9am, high priority, remind me 30 minutes before",
    }),
  timezone: z
    .string()
    .min(1)
    .max(100)
    .refine(isTimeZone, { message: "Not an IANA time zone name (e.g. Europe/Berlin)" })
    .openapi({ description: "The caller's IANA time zone: dates and times are read in it", example: "Europe/Berlin" }),
  reference_at: z.iso.datetime({ offset: true }).optional().openapi({
    description: "The instant 'tomorrow' and 'in 2 hours' count from (ISO-8601 with an offset); default now",
    example: "2026-03-02T10:00:00+01:00",
  }),
  database_id: z.string().min(1).max(200).optional().openapi({
    description:
      "Where the task goes: a database the caller can see, neither archived nor in the trash (404 otherwise). Default: the saved quickTaskDatabaseId, else the built-in Tasks database",
    example: EXAMPLE_DATABASE_ID,
  }),
};

export const QuickTaskBody = z.strictObject(requestFields).openapi("QuickTaskRequest", {
  example: {
    text: "Pay rent tomorrow at 9am, high priority",
    timezone: "Europe/Berlin",
    reference_at: "2026-03-02T10:00:00+01:00",
  },
});
export type QuickTaskBodyInput = z.infer<typeof QuickTaskBody>;

/** `preview=1` as the shortcut apps send it: 1 / true mark it, 0 / false do not. */
export const PreviewMarker = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(["1", "0", "true", "false"])])
  .transform((value) => value === true || value === 1 || value === "1" || value === "true");

export const QuickTaskPreviewBody = z
  .strictObject({
    ...requestFields,
    preview: PreviewMarker.optional().openapi({
      type: "integer",
      enum: [0, 1],
      description:
        "Sent by shortcuts that skip the preview step: with the caller's quickTaskSkipPreview set, `1` creates the task at once (201). Also accepted as a query parameter",
      example: 1,
    }),
  })
  .openapi("QuickTaskPreviewRequest", {
    example: { text: "Call the dentist friday 3pm", timezone: "America/New_York" },
  });

export const AmbiguitySchema = z
  .object({
    field: z.string().openapi({
      description: "What was unclear: due_at, due_date, reminder_offset, priority, ...",
      example: "due_date",
    }),
    text: z.string().openapi({ description: "The words in question, or what happened to them", example: "friday" }),
    alternatives: z.array(z.string()).openapi({
      description: "The other readings considered (dates, instants, option names)",
      example: ["2026-03-13"],
    }),
  })
  .openapi("QuickTaskAmbiguity");

export const QuickTaskParseSchema = z
  .object({
    title: z.string().openapi({ example: "Pay rent" }),
    due_at: z.string().nullable().openapi({
      description: "When a time was given: ISO-8601 with the caller's UTC offset on that day",
      example: "2026-03-03T09:00:00+01:00",
    }),
    due_date: z.string().nullable().openapi({ description: "When only a day was given: YYYY-MM-DD", example: null }),
    all_day: z.boolean().openapi({ example: false }),
    reminder_offset: z.enum(REMINDER_OFFSETS).nullable().openapi({ example: "30_minutes_before" }),
    priority: z.enum(["low", "medium", "high"]).nullable().openapi({ example: "high" }),
    notes: z.string().nullable().openapi({ example: null }),
    ambiguities: z.array(AmbiguitySchema).openapi({
      description:
        "What was unclear, with the alternatives considered; also what the database could not take (an option it lacks: left out)",
    }),
  })
  .openapi("QuickTaskParse");

const MappedPropertySchema = z
  .object({
    id: z.string().nullable().openapi({
      description: "The canonical property id written to; null in a preview before the built-in Tasks database exists",
      example: "prop_5f2c9a1b3d4e6f70",
    }),
    name: z.string().openapi({ example: "Due" }),
    type: z.enum(PROPERTY_TYPES).openapi({ example: "date" }),
  })
  .nullable()
  .openapi("QuickTaskMappedProperty");

export const TargetDatabaseSchema = z
  .object({
    id: z.string().nullable().openapi({
      description: "The database the task goes to; null in a preview before the built-in Tasks database is installed",
      example: EXAMPLE_DATABASE_ID,
    }),
    title: z.string().openapi({ example: "Tasks" }),
    source: z.enum(["request", "settings", "template"]).openapi({
      description:
        "`request`: the request's database_id; `settings`: the saved quickTaskDatabaseId; `template`: the built-in Tasks database",
      example: "template",
    }),
    installed: z
      .boolean()
      .openapi({ description: "This request installed the built-in Tasks database", example: false }),
    property_mapping: z
      .object({
        title: MappedPropertySchema,
        status: MappedPropertySchema,
        due: MappedPropertySchema,
        priority: MappedPropertySchema,
        notes: MappedPropertySchema,
        reminder: MappedPropertySchema,
      })
      .openapi({
        description: "Which property takes each part of the task (found by type and name); null: none does",
        example: {
          title: { id: "prop_1a2b3c4d5e6f7a8b", name: "title", type: "title" },
          status: { id: "prop_2b3c4d5e6f7a8b9c", name: "Status", type: "status" },
          due: { id: "prop_3c4d5e6f7a8b9c0d", name: "Due", type: "date" },
          priority: { id: "prop_4d5e6f7a8b9c0d1e", name: "Priority", type: "select" },
          notes: { id: "prop_5e6f7a8b9c0d1e2f", name: "Notes", type: "text" },
          reminder: { id: "prop_6f7a8b9c0d1e2f3a", name: "Reminder", type: "select" },
        },
      }),
    note: z.string().nullable().openapi({
      description: "Why the saved quickTaskDatabaseId was not used, when it was not",
      example: null,
    }),
  })
  .openapi("QuickTaskTargetDatabase");
export type QuickTaskTargetDatabase = z.infer<typeof TargetDatabaseSchema>;

const outcomeFields = {
  parse: QuickTaskParseSchema,
  parser: z.enum(["model", "local"]).openapi({
    description: "Which parser answered: the configured structured-output model, or the local one",
    example: "local",
  }),
  parser_fallback_reason: z.string().nullable().openapi({
    description:
      "Why the model parser did not answer (not configured, timed out, invalid answer...), when the local one did",
    example: "No parsing provider: TASK_CAPTURE_PROVIDER is empty",
  }),
  target_database: TargetDatabaseSchema,
  skipped_preview: z.boolean().openapi({
    description: "The preview route created the task: `preview=1` with quickTaskSkipPreview set",
    example: false,
  }),
};

export const QuickTaskPreviewSchema = z
  .object({
    ...outcomeFields,
    created: z.literal(false).openapi({ description: "Nothing was written", example: false }),
  })
  .openapi("QuickTaskPreview");
export type QuickTaskPreview = z.infer<typeof QuickTaskPreviewSchema>;

export const QuickTaskCreatedSchema = z
  .object({
    ...outcomeFields,
    created: z.literal(true).openapi({ description: "The task was written", example: true }),
    // The new row (`properties` keyed by canonical property ids), and the reminder made for the
    // parsed offset or null: described on the component, whose examples are the components' own.
    task: PageSchema,
    // A union, not `.nullable()`: on a component that renders as allOf [Reminder, null], which no null matches.
    reminder: z.union([ReminderSchema, z.null()]).openapi({
      description: "The reminder made for a parsed reminder offset (a Reminder), or null when none was asked for",
      example: null,
    }),
  })
  .openapi("QuickTaskCreated", {
    description:
      "A created task: the parse, the target database, `task` (the new row, values keyed by canonical property ids) and `reminder` (made for a parsed reminder offset, or null)",
  });
export type QuickTaskCreated = z.infer<typeof QuickTaskCreatedSchema>;

export const DatabaseOptionSchema = z
  .object({
    database_id: z.string().openapi({
      description: "The real database id: what to save as quickTaskDatabaseId",
      example: EXAMPLE_DATABASE_ID,
    }),
    database_title: z.string().openapi({ example: "Tasks" }),
    page_id: z.string().nullable().openapi({
      description: "The page that wraps the database (parents, embeds or links to it); null for the database itself",
      example: "8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d",
    }),
    page_title: z.string().nullable().openapi({ example: "Work" }),
    title_mismatch: z.boolean().openapi({
      description: "The wrapper page's title differs from the database's: the option saves the database, not the page",
      example: true,
    }),
    relation: z.enum(["database", "parent", "embed", "link"]).openapi({
      description:
        "`database`: the database itself; `parent`: the page is its parent; `embed`: the page embeds it; `link`: the page links to or mentions it",
      example: "parent",
    }),
    is_default: z.boolean().openapi({ description: "It is the saved quickTaskDatabaseId", example: false }),
    is_template: z.boolean().openapi({ description: "It is the built-in Tasks database", example: false }),
  })
  .openapi("QuickTaskDatabaseOption");
export type DatabaseOption = z.infer<typeof DatabaseOptionSchema>;
