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

/** What `taskWrite` turns into a row. */
export interface TaskWriteInput {
  parse: QuickTaskParse;
  /** The target database's properties. */
  properties: PropertyDefinition[];
  /** Which of them take each part of the task (`mapTaskProperties`). */
  mapping: PropertyMapping;
  timeZone: string;
  /** Names the reminder's schedule (in the date value and the reminder record alike). */
  scheduleId: string;
  /** False for a database with an older inline schema: a reminder's source property must be a schema record. */
  remindersAllowed: boolean;
}

/** The row being written: values by property id, and what the database could not take. */
interface RowDraft {
  values: Record<string, unknown>;
  ambiguities: QuickTaskAmbiguity[];
}

/** The row a parse makes in a database with these properties, part by part. */
export function taskWrite(input: TaskWriteInput): TaskWrite {
  const { parse, mapping } = input;
  const propertyOf = (mapped: MappedProperty | null) => mappedProperty(input.properties, mapped);
  const row: RowDraft = { values: {}, ambiguities: [] };
  writeTitle(row, propertyOf(mapping.title), parse.title);
  writeStatusTodo(row, propertyOf(mapping.status));
  const reminder = writeDue(row, propertyOf(mapping.due), input);
  if (parse.priority) writePriority(row, propertyOf(mapping.priority), parse.priority);
  const content = parse.notes ? writeNotes(row, propertyOf(mapping.notes), parse.notes) : undefined;
  if (reminder) writeReminderProperty(row, propertyOf(mapping.reminder), reminder);
  return { properties: row.values, content, ambiguities: row.ambiguities, reminder };
}

/** The database's property a mapping names: by id, or by name before the built-in Tasks database is installed. */
const mappedProperty = (properties: PropertyDefinition[], mapped: MappedProperty | null) =>
  mapped
    ? properties.find((property) => property.id === mapped.id || (mapped.id === null && property.name === mapped.name))
    : undefined;

const leftOutForLackOf = (row: RowDraft, field: TaskField, said: string): void => {
  row.ambiguities.push({
    field,
    text: `The database has no ${field} property for '${said}': left out`,
    alternatives: [],
  });
};

const noReminder = (row: RowDraft, why: string): void => {
  row.ambiguities.push({ field: "reminder_offset", text: `${why}: no reminder made`, alternatives: [] });
};

const asksForReminder = (parse: QuickTaskParse): boolean =>
  Boolean(parse.reminder_offset && parse.reminder_offset !== "none");

function writeTitle(row: RowDraft, property: PropertyDefinition | undefined, title: string): void {
  if (property) row.values[property.id] = title;
  else leftOutForLackOf(row, "title", title);
}

/** A new task starts in the status option that means "to do", when the database has one. */
function writeStatusTodo(row: RowDraft, property: PropertyDefinition | undefined): void {
  const todo = property && optionFor(property, ["todo", "to do", "not started", "backlog", "open"]);
  if (property && todo) row.values[property.id] = { id: todo.id };
}

/**
 * The due date, with its reminder schedule when a reminder is planned; returns that reminder.
 * A reminder is planned only for a due date the database has a property for.
 */
function writeDue(
  row: RowDraft,
  property: PropertyDefinition | undefined,
  input: TaskWriteInput,
): PlannedReminder | null {
  const { parse } = input;
  const dueText = parse.due_at ?? parse.due_date;
  const planned =
    dueText && property && input.remindersAllowed ? plannedReminder(parse, input.timeZone, input.scheduleId) : null;
  if (dueText && property && !input.remindersAllowed && asksForReminder(parse)) {
    noReminder(row, "Reminders need a database with schema records (this one has an older inline schema)");
  }
  if (planned === "out_of_range") noReminder(row, "The reminder would fall outside 1970 to 2099");
  const reminder = planned === "out_of_range" ? null : planned;
  if (!dueText) {
    if (asksForReminder(parse)) noReminder(row, "A reminder without a due date");
  } else if (!property) {
    leftOutForLackOf(row, "due", dueText);
  } else {
    row.values[property.id] = reminder
      ? {
          start: dueText,
          reminder: reminder.offset,
          reminder_schedules: [
            { id: reminder.scheduleId, offset: reminder.offset, ...(reminder.time ? { time: reminder.time } : {}) },
          ],
        }
      : { start: dueText };
  }
  return reminder;
}

function writePriority(row: RowDraft, property: PropertyDefinition | undefined, priority: string): void {
  if (!property) {
    leftOutForLackOf(row, "priority", priority);
    return;
  }
  const { value, ambiguity } = choiceValue("priority", property, capitalized(priority), [priority]);
  if (ambiguity) row.ambiguities.push(ambiguity);
  else row.values[property.id] = value;
}

/** The notes go to the notes property; without one they become the page body, which is returned. */
function writeNotes(row: RowDraft, property: PropertyDefinition | undefined, notes: string): unknown[] | undefined {
  if (!property) return [{ type: "paragraph", children: [{ text: notes }] }];
  row.values[property.id] = notes;
  return undefined;
}

/** A property named like a reminder shows the planned one: checked, its instant, or its offset's option. */
function writeReminderProperty(
  row: RowDraft,
  property: PropertyDefinition | undefined,
  reminder: PlannedReminder,
): void {
  if (!property) return;
  if (property.type === "checkbox") row.values[property.id] = true;
  else if (property.type === "date") row.values[property.id] = { start: reminder.remindAt };
  else {
    const label = REMINDER_OFFSET_LABELS.find(([key]) => key === reminder.offset)?.[1] ?? reminder.offset;
    const { value, ambiguity } = choiceValue("reminder", property, label, [label, reminder.offset]);
    if (ambiguity) row.ambiguities.push(ambiguity);
    else row.values[property.id] = value;
  }
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
