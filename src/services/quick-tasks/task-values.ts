import { Temporal } from "temporal-polyfill";
import { REMINDER_EARLIEST, REMINDER_LATEST } from "../../schemas/reminders";
import type { PropertyDefinition, PropertyType, SelectOption } from "../databases/property-types";
import type { QuickTaskAmbiguity, QuickTaskParse, ReminderOffset } from "./local-parser";

// From a parse to a row of the chosen database: which of its properties take the title, status,
// due date, priority, notes and reminder (found by type and name, never invented), and the values
// written to their ids. A value the database cannot hold (an option it lacks, a field it has no
// property for) is reported as an ambiguity and left out.

export const TASK_FIELDS = ["title", "status", "due", "priority", "notes", "reminder"] as const;
export type TaskField = (typeof TASK_FIELDS)[number];

export interface MappedProperty {
  /** The property's canonical id; null for the built-in Tasks database before it is installed. */
  id: string | null;
  name: string;
  type: PropertyType;
}

export type PropertyMapping = Record<TaskField, MappedProperty | null>;

/** The reminder offsets a quick task may carry, in order, with the names people read. */
const REMINDER_OFFSET_LABELS: [Exclude<ReminderOffset, "none" | "inherit">, string, Temporal.DurationLike][] = [
  ["at_time", "At time", { minutes: 0 }],
  ["5_minutes_before", "5 minutes before", { minutes: 5 }],
  ["10_minutes_before", "10 minutes before", { minutes: 10 }],
  ["15_minutes_before", "15 minutes before", { minutes: 15 }],
  ["30_minutes_before", "30 minutes before", { minutes: 30 }],
  ["1_hour_before", "1 hour before", { hours: 1 }],
  ["2_hours_before", "2 hours before", { hours: 2 }],
  ["1_day_before", "1 day before", { days: 1 }],
  ["2_days_before", "2 days before", { days: 2 }],
  ["1_week_before", "1 week before", { weeks: 1 }],
];

/** The built-in Tasks database's Reminder options. */
export const REMINDER_LABELS = REMINDER_OFFSET_LABELS.map(([, label]) => label);

/** An all-day task's reminder is counted back from this local time of its day. */
export const ALL_DAY_REMINDER_TIME = "09:00";

const normalized = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, " ");

/** The first property of one of `types` whose name matches, else (when `anyName`) the first of the first type. */
function find(
  properties: PropertyDefinition[],
  types: PropertyType[],
  names: RegExp,
  anyName: boolean,
  taken: Set<string>,
): PropertyDefinition | undefined {
  const candidates = properties.filter((property) => types.includes(property.type) && !taken.has(property.id));
  const named = candidates.find((property) => names.test(normalized(property.name)));
  if (named) return named;
  return anyName ? candidates.find((property) => property.type === types[0]) : undefined;
}

/**
 * Which properties take each part of a task. By type first and name second: the title property;
 * a status property (or a select named status); a date property named like a due date, else
 * the first date property; a select, status or text named priority; a text named notes or
 * description; a property named reminder. Each property takes at most one part.
 */
export function mapTaskProperties(properties: PropertyDefinition[]): PropertyMapping {
  const taken = new Set<string>();
  const pick = (property: PropertyDefinition | undefined): MappedProperty | null => {
    if (!property) return null;
    taken.add(property.id);
    return { id: property.id, name: property.name, type: property.type };
  };
  const title = pick(properties.find((property) => property.type === "title"));
  const priority = pick(
    find(properties, ["select", "status", "multi_select", "text"], /^(priority|prio)$/, false, taken),
  );
  const status = pick(
    find(properties, ["status"], /^(status|state)$/, true, taken) ??
      find(properties, ["select"], /^(status|state)$/, false, taken),
  );
  const reminderName = /^(reminder|remind|remind me|reminders)$/;
  // The due date first, and not from a date named Reminder unless it is the only one.
  const notReminders = properties.filter((property) => !reminderName.test(normalized(property.name)));
  const due = pick(
    find(properties, ["date"], /^(due|due date|due on|deadline|date|when|do date|scheduled)$/, false, taken) ??
      find(notReminders, ["date"], /$^/, true, taken) ??
      find(properties, ["date"], /$^/, true, taken),
  );
  const reminder = pick(find(properties, ["select", "text", "checkbox", "date"], reminderName, false, taken));
  const notes = pick(find(properties, ["text"], /^(notes?|description|details|comments?)$/, false, taken));
  return { title, status, due, priority, notes, reminder };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The option of `property` a wanted value names: exactly (ignoring case and spacing), else as a
 * word in it ("🔴 High"), but never negated ("Not high").
 */
function optionFor(property: PropertyDefinition, wanted: string[]): SelectOption | undefined {
  const keys = wanted.map(normalized);
  const asWord = (name: string, key: string) =>
    new RegExp(`(^|\\W)${escaped(key)}(\\W|$)`).test(name) &&
    !new RegExp(`(^|\\W)(not|no|non)\\W+${escaped(key)}`).test(name);
  return (
    property.options.find((option) => keys.includes(normalized(option.name))) ??
    property.options.find((option) => keys.some((key) => asWord(normalized(option.name), key)))
  );
}

/** A reminder a created task gets, computed from its due date (see `taskWrite`). */
export interface PlannedReminder {
  scheduleId: string;
  offset: ReminderOffset;
  /** ISO instant with the caller's offset. */
  remindAt: string;
  dueAt: string;
  /** For an all-day task: the local time the reminder is counted back from. */
  time: string | null;
}

export interface TaskWrite {
  /** Row values by property id (the title included). */
  properties: Record<string, unknown>;
  /** The page body: the notes, when the database has no notes property. */
  content: unknown[] | undefined;
  /** What the database could not take, beside the parser's own. */
  ambiguities: QuickTaskAmbiguity[];
  reminder: PlannedReminder | null;
}

const fmt = (zdt: Temporal.ZonedDateTime) => zdt.toString({ timeZoneName: "never", smallestUnit: "second" });

/** When the reminder of a due date fires: the due time (or 09:00 of an all-day date) less the offset, on the local clock. */
function plannedReminder(
  parse: QuickTaskParse,
  timeZone: string,
  scheduleId: string,
): PlannedReminder | "out_of_range" | null {
  const offset = parse.reminder_offset;
  const entry = REMINDER_OFFSET_LABELS.find(([key]) => key === offset);
  if (!entry || !offset) return null;
  let due: Temporal.ZonedDateTime;
  let anchor: Temporal.ZonedDateTime;
  if (parse.due_at) {
    due = Temporal.Instant.from(parse.due_at).toZonedDateTimeISO(timeZone);
    anchor = due;
  } else if (parse.due_date) {
    const day = Temporal.PlainDate.from(parse.due_date);
    due = day.toZonedDateTime({ timeZone });
    anchor = day.toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from(ALL_DAY_REMINDER_TIME) });
  } else {
    return null;
  }
  const remind = anchor.subtract(entry[2]);
  if (remind.epochMilliseconds < REMINDER_EARLIEST || remind.epochMilliseconds >= REMINDER_LATEST)
    return "out_of_range";
  return {
    scheduleId,
    offset,
    remindAt: fmt(remind),
    dueAt: fmt(due),
    time: parse.due_at ? null : ALL_DAY_REMINDER_TIME,
  };
}

/** The value a select-like or text property takes for one of a few wanted names, or an ambiguity. */
function choiceValue(
  field: TaskField,
  property: PropertyDefinition,
  said: string,
  wanted: string[],
): { value?: unknown; ambiguity?: QuickTaskAmbiguity } {
  if (property.type === "text") return { value: said };
  const option = optionFor(property, wanted);
  if (!option) {
    return {
      ambiguity: {
        field,
        text: `'${said}' is not an option of ${property.name}: left out`,
        alternatives: property.options.map((candidate) => candidate.name),
      },
    };
  }
  return { value: property.type === "multi_select" ? [{ id: option.id }] : { id: option.id } };
}

/**
 * The row a parse makes in a database with these properties. `scheduleId` names the reminder's
 * schedule (in the date value and the reminder record alike).
 */
export function taskWrite(
  parse: QuickTaskParse,
  properties: PropertyDefinition[],
  mapping: PropertyMapping,
  timeZone: string,
  scheduleId: string,
  options: { remindersAllowed: boolean } = { remindersAllowed: true },
): TaskWrite {
  const byId = (mapped: MappedProperty | null) =>
    mapped
      ? properties.find(
          (property) => property.id === mapped.id || (mapped.id === null && property.name === mapped.name),
        )
      : undefined;
  const values: Record<string, unknown> = {};
  const ambiguities: QuickTaskAmbiguity[] = [];
  const keyOf = (property: PropertyDefinition) => property.id;
  const missing = (field: TaskField, said: string) =>
    ambiguities.push({
      field,
      text: `The database has no ${field} property for '${said}': left out`,
      alternatives: [],
    });

  const title = byId(mapping.title);
  if (title) values[keyOf(title)] = parse.title;
  else missing("title", parse.title);

  const status = byId(mapping.status);
  if (status) {
    const todo = optionFor(status, ["todo", "to do", "not started", "backlog", "open"]);
    if (todo) values[keyOf(status)] = { id: todo.id };
  }

  const due = byId(mapping.due);
  const dueText = parse.due_at ?? parse.due_date;
  const planned = dueText && due && options.remindersAllowed ? plannedReminder(parse, timeZone, scheduleId) : null;
  if (dueText && due && !options.remindersAllowed && parse.reminder_offset && parse.reminder_offset !== "none") {
    ambiguities.push({
      field: "reminder_offset",
      text: "Reminders need a database with schema records (this one has an older inline schema): no reminder made",
      alternatives: [],
    });
  }
  const reminder = planned === "out_of_range" ? null : planned;
  if (planned === "out_of_range") {
    ambiguities.push({
      field: "reminder_offset",
      text: "The reminder would fall outside 1970 to 2099: no reminder made",
      alternatives: [],
    });
  }
  if (dueText) {
    if (!due) missing("due", dueText);
    else {
      values[keyOf(due)] = reminder
        ? {
            start: dueText,
            reminder: reminder.offset,
            reminder_schedules: [
              { id: reminder.scheduleId, offset: reminder.offset, ...(reminder.time ? { time: reminder.time } : {}) },
            ],
          }
        : { start: dueText };
    }
  } else if (parse.reminder_offset && parse.reminder_offset !== "none") {
    ambiguities.push({
      field: "reminder_offset",
      text: "A reminder without a due date: no reminder made",
      alternatives: [],
    });
  }

  if (parse.priority) {
    const property = byId(mapping.priority);
    if (!property) missing("priority", parse.priority);
    else {
      const { value, ambiguity } = choiceValue("priority", property, capitalized(parse.priority), [parse.priority]);
      if (ambiguity) ambiguities.push(ambiguity);
      else values[keyOf(property)] = value;
    }
  }

  let content: unknown[] | undefined;
  if (parse.notes) {
    const property = byId(mapping.notes);
    if (property) values[keyOf(property)] = parse.notes;
    else content = [{ type: "paragraph", children: [{ text: parse.notes }] }];
  }

  const reminderProperty = byId(mapping.reminder);
  if (reminder && reminderProperty) {
    const label = REMINDER_OFFSET_LABELS.find(([key]) => key === reminder.offset)?.[1] ?? reminder.offset;
    if (reminderProperty.type === "checkbox") values[keyOf(reminderProperty)] = true;
    else if (reminderProperty.type === "date") values[keyOf(reminderProperty)] = { start: reminder.remindAt };
    else {
      const { value, ambiguity } = choiceValue("reminder", reminderProperty, label, [label, reminder.offset]);
      if (ambiguity) ambiguities.push(ambiguity);
      else values[keyOf(reminderProperty)] = value;
    }
  }
  return { properties: values, content, ambiguities, reminder };
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
