/**
 * Model parser for quick-task capture.
 *
 * One structured-output call turns a line of text into the same QuickTaskParse the local parser
 * produces. The model is asked for local wall-clock values (a date, a 24-hour time) and never for
 * UTC offsets, which models get wrong; the offset comes from the IANA zone here, with the same
 * temporal-polyfill rules as the local parser (a time in a DST gap moves forward, a doubled time
 * takes the earlier). The answer is validated before any of it is used.
 */
import { Temporal } from "temporal-polyfill";
import { z } from "zod";
import { REMINDER_OFFSETS } from "../../domain/reminder-offsets";
import type { RequestContext } from "../../lib/context";
import { ADAPTERS } from "../ai/providers";
import { type JsonSchema, requestStructuredOutput, StructuredOutputError } from "../ai/structured-output";
import type { ProviderTarget } from "../ai/types";
import type { QuickTaskAmbiguity, QuickTaskParse, ReminderOffset } from "./local-parser";

export const QUICK_TASK_SCHEMA_NAME = "quick_task";
export const MAX_TITLE_LENGTH = 2000;
const MAX_NOTES_LENGTH = 10_000;
const MAX_AMBIGUITIES = 10;
const MAX_ALTERNATIVES = 10;
const MAX_SHORT_TEXT = 200;
/** Days listed after the reference date, so the model reads weekdays off a calendar instead of counting. */
const CALENDAR_DAYS = 14;

/** The offsets a task's reminder may take: `none` and `inherit` are settings, not something said. */
export const MODEL_REMINDER_OFFSETS = REMINDER_OFFSETS.filter(
  (offset): offset is Exclude<ReminderOffset, "none" | "inherit"> => offset !== "none" && offset !== "inherit",
);
const PRIORITIES = ["low", "medium", "high"] as const;
const AMBIGUITY_FIELDS = ["title", "due_date", "due_time", "reminder_offset", "priority", "notes"] as const;

const nullableString = (description: string) => ({ type: ["string", "null"], description });
const nullableEnum = (values: readonly string[], description: string) => ({
  anyOf: [{ type: "string", enum: values }, { type: "null" }],
  description,
});

/**
 * What the model must answer, valid for OpenAI's strict mode (every property required, nullable
 * through a type list or `anyOf` with null, no additional properties), and within the keywords
 * Gemini's `responseJsonSchema` and Anthropic's tool schemas read.
 */
export const QUICK_TASK_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    title: { type: "string", description: "The task itself, without the date, time, priority, reminder or notes." },
    due_date: nullableString("Local due date, YYYY-MM-DD; null when no day or time is given."),
    due_time: nullableString("Local wall-clock time, HH:mm on a 24-hour clock; null when no time is given."),
    reminder_offset: nullableEnum(MODEL_REMINDER_OFFSETS, "How long before the due time to remind; null if not asked."),
    priority: nullableEnum(PRIORITIES, "The priority the text states; null if none."),
    notes: nullableString("Extra detail the writer set apart from the task; null if none."),
    ambiguities: {
      type: "array",
      description: "Each reading you had to choose between; empty when there was none.",
      items: {
        type: "object",
        properties: {
          field: { type: "string", enum: AMBIGUITY_FIELDS },
          text: { type: "string", description: "The words that could be read more than one way." },
          alternatives: {
            type: "array",
            items: { type: "string" },
            description: "The other readings, in the field's own format.",
          },
        },
        required: ["field", "text", "alternatives"],
        additionalProperties: false,
      },
    },
  },
  required: ["title", "due_date", "due_time", "reminder_offset", "priority", "notes", "ambiguities"],
  additionalProperties: false,
};

const SYSTEM_PROMPT = `You read one line someone typed to capture a task, and fill in the task's fields.
- title: the task in the writer's own words and language, without the date, time, priority, reminder and notes you take out. Never empty.
- due_date: the local calendar date the task is due, YYYY-MM-DD, worked out from the reference date and the calendar you are given ("tomorrow", "next Friday", "on the 3rd"). null when the text names no day and no time.
- due_time: the local wall-clock time, HH:mm on a 24-hour clock ("9am" is 09:00, "noon" 12:00, "5:30pm" 17:30), exactly as the writer means it in their own time zone: never convert it to UTC or to another zone. null when the text gives no time. With a time but no day, due_date is the next day that time comes: today if it is still ahead of the reference time, otherwise tomorrow.
- reminder_offset: only when the text asks to be reminded ("remind me 30 minutes before"): the allowed offset equal to what is asked, or else the nearest one that reminds earlier. Otherwise null.
- priority: high for urgent, asap, important, high priority, p1 or !!; medium for medium or normal priority, p2; low for low priority, someday, p3. Otherwise null.
- notes: extra detail the writer set apart from the task (after " -- ", "notes:" or a line break). Otherwise null.
- ambiguities: each place where the text could be read more than one way and you chose one reading, with the words involved and the other readings in the field's format (YYYY-MM-DD, HH:mm, or another allowed value). Empty when there is none.`;

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
const weekdayOf = (date: Temporal.PlainDate) => WEEKDAYS[date.dayOfWeek - 1] ?? "";

/** The reference instant as the writer's own calendar and clock show it, and the days that follow. */
function userPrompt(text: string, timeZone: string, reference: Temporal.ZonedDateTime): string {
  const today = reference.toPlainDate();
  const clock = reference.toPlainTime().toString({ smallestUnit: "minute" });
  const calendar = Array.from({ length: CALENDAR_DAYS }, (_, i) => {
    const day = today.add({ days: i + 1 });
    return `${weekdayOf(day)} ${day.toString()}`;
  });
  return [
    `Reference: ${weekdayOf(today)} ${today.toString()}, ${clock} local time (UTC offset ${reference.offset}), time zone ${timeZone}.`,
    `The next ${CALENDAR_DAYS} days: ${calendar.join(", ")}.`,
    `Text: ${JSON.stringify(text)}`,
  ].join("\n");
}

function isRealDate(value: string): boolean {
  try {
    Temporal.PlainDate.from(value, { overflow: "reject" });
    return true;
  } catch {
    return false;
  }
}

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_TIME = /^([01]?\d|2[0-3]):[0-5]\d$/;
const localDate = z.string().trim().regex(LOCAL_DATE, "Expected YYYY-MM-DD").refine(isRealDate, "Not a calendar date");
const localTime = z.string().trim().regex(LOCAL_TIME, "Expected HH:mm");
/** Missing counts as null: providers that do not enforce `required` may leave a null field out. */
const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? null);
/** Trimmed; empty means absent. */
const optionalText = (max: number) =>
  orNull(z.string().trim().max(max)).transform((value) => (value === "" || value === null ? null : value));

/** The model's answer, checked before any of it is used. */
const ModelAnswer = z.object({
  title: z.string().trim().min(1, "Empty title").max(MAX_TITLE_LENGTH),
  due_date: orNull(localDate),
  due_time: orNull(localTime),
  reminder_offset: orNull(z.enum(MODEL_REMINDER_OFFSETS)),
  priority: orNull(z.enum(PRIORITIES)),
  notes: optionalText(MAX_NOTES_LENGTH),
  ambiguities: z
    .array(
      z.object({
        field: z.string().trim().min(1).max(MAX_SHORT_TEXT),
        text: z.string().trim().max(MAX_SHORT_TEXT),
        alternatives: z.array(z.string().trim().max(MAX_SHORT_TEXT)).max(MAX_ALTERNATIVES),
      }),
    )
    .max(MAX_AMBIGUITIES)
    .nullish()
    .transform((value) => value ?? []),
});
type ModelAnswer = z.output<typeof ModelAnswer>;

/** "2026-03-03T09:00:00+01:00": the form the local parser emits. */
const isoWithOffset = (zdt: Temporal.ZonedDateTime) => zdt.toString({ timeZoneName: "never", smallestUnit: "second" });

/** A local wall time placed in the zone: a time in a DST gap moves forward, a doubled time takes the earlier. */
function atWallTime(date: Temporal.PlainDate, time: string, timeZone: string): Temporal.ZonedDateTime {
  const [hour = 0, minute = 0] = time.split(":").map(Number);
  return date.toPlainDateTime({ hour, minute }).toZonedDateTime(timeZone, { disambiguation: "compatible" });
}

/** With a time but no date: the next time that wall time comes, today if still ahead, else tomorrow. */
function nextOccurrence(time: string, timeZone: string, reference: Temporal.ZonedDateTime): Temporal.ZonedDateTime {
  const today = atWallTime(reference.toPlainDate(), time, timeZone);
  return Temporal.ZonedDateTime.compare(today, reference) > 0
    ? today
    : atWallTime(reference.toPlainDate().add({ days: 1 }), time, timeZone);
}

/**
 * The model's ambiguities in the local parser's terms: a time's alternatives become `due_at`
 * instants on the chosen day. Alternatives that are not values of their field are dropped: a
 * malformed hint is not worth losing an otherwise good parse.
 */
function ambiguitiesOf(
  answer: ModelAnswer,
  due: Temporal.ZonedDateTime | null,
  timeZone: string,
): QuickTaskAmbiguity[] {
  const allowed: Record<string, (value: string) => boolean> = {
    due_date: (value) => LOCAL_DATE.test(value) && isRealDate(value),
    due_time: (value) => LOCAL_TIME.test(value),
    reminder_offset: (value) => (MODEL_REMINDER_OFFSETS as readonly string[]).includes(value),
    priority: (value) => (PRIORITIES as readonly string[]).includes(value),
  };
  return answer.ambiguities.map(({ field, text, alternatives }) => {
    const valid = alternatives.filter((value) => value !== "" && (allowed[field]?.(value) ?? true));
    if (field === "due_time" && due) {
      const day = due.toPlainDate();
      return {
        field: "due_at",
        text,
        alternatives: valid.map((time) => isoWithOffset(atWallTime(day, time, timeZone))),
      };
    }
    return { field, text, alternatives: valid };
  });
}

export interface ModelParserInput {
  text: string;
  /** The writer's IANA zone: wall times are read in it. */
  timeZone: string;
  /** "Now" for the writer: "tomorrow" is the day after this instant's date in `timeZone`. */
  referenceAt: Date;
}

/**
 * Parses one line with the model of `target`, as the local parser would: a due time as an
 * instant with the zone's offset on that date, or an all-day date, or neither. Fails with a
 * StructuredOutputError: the call's own reasons, or `invalid_answer` when the model's JSON has
 * the wrong shape or impossible values (an empty title, 2026-02-30, 25:00). An unknown
 * `timeZone` is a RangeError, before any call.
 */
export async function parseQuickTaskWithModel(
  ctx: Pick<RequestContext, "signal" | "confirmCaller" | "now">,
  target: ProviderTarget,
  model: string,
  input: ModelParserInput,
  options: { timeoutMs?: number } = {},
): Promise<QuickTaskParse> {
  const { text, timeZone, referenceAt } = input;
  const reference = Temporal.Instant.fromEpochMilliseconds(referenceAt.getTime()).toZonedDateTimeISO(timeZone);
  const raw = await requestStructuredOutput(
    ctx,
    target,
    {
      model,
      system: SYSTEM_PROMPT,
      prompt: userPrompt(text, timeZone, reference),
      schemaName: QUICK_TASK_SCHEMA_NAME,
      schema: QUICK_TASK_SCHEMA,
    },
    options,
  );
  const parsed = ModelAnswer.safeParse(raw);
  if (!parsed.success) {
    // Field names only: the values are the model's, and may echo the writer's text.
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "answer"))];
    throw new StructuredOutputError(
      target.provider,
      "invalid_answer",
      `The ${ADAPTERS[target.provider].label} model's answer does not fit the quick-task schema (${fields.join(", ")})`,
    );
  }
  const answer = parsed.data;

  let due: Temporal.ZonedDateTime | null = null;
  if (answer.due_time !== null) {
    due =
      answer.due_date !== null
        ? atWallTime(Temporal.PlainDate.from(answer.due_date), answer.due_time, timeZone)
        : nextOccurrence(answer.due_time, timeZone, reference);
  }
  return {
    title: answer.title,
    due_at: due ? isoWithOffset(due) : null,
    due_date: due ? null : answer.due_date,
    all_day: due === null && answer.due_date !== null,
    reminder_offset: answer.reminder_offset,
    priority: answer.priority,
    notes: answer.notes,
    ambiguities: ambiguitiesOf(answer, due, timeZone),
  };
}
