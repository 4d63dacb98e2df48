import { z } from "@hono/zod-openapi";
import { issuesRefused, joinPath, type PathIssue } from "../../lib/errors";
import { OptionNameSchema, PropertyNameSchema } from "../../schemas/databases";
import { isAddressable } from "./property-path";
import {
  DEFAULT_PROPERTIES,
  MAX_OPTIONS,
  MAX_PROPERTIES,
  newOptionId,
  newPropertyId,
  OPTION_COLORS,
  PROPERTY_TYPES,
  type PropertyDefinition,
  SELECT_LIKE_TYPES,
  type SelectOption,
} from "./property-types";
import { nameKey } from "./schema-records";

// A new database's schema records (contract, Block rule 8): the default columns, and the
// properties of an inline `properties.schema` written with it, their ids kept (rule 4 names
// what rows store). Read strictly, unlike an older database's inline schema (parseInlineSchema,
// which skips what it cannot read): what is refused here is a 400 before anything is written.

const FIELD = "properties.schema";

/** An id as an inline schema gives it: any string a JSON path can address (rows are keyed by it). */
const InlineId = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => id.trim() !== "", "An id may not be blank")
  .refine(isAddressable, "An id may not hold NUL or a lone surrogate")
  .refine((id) => id !== "__proto__", "This id is reserved");

const InlineOption = z.union([
  OptionNameSchema,
  z.strictObject({ id: InlineId.optional(), name: OptionNameSchema, color: z.enum(OPTION_COLORS).optional() }),
]);

const InlineProperty = z.strictObject({
  id: InlineId.optional(),
  name: PropertyNameSchema.optional(),
  // `rich_text` is an older name of `text`, as older inline schemas use it.
  type: z.enum([...PROPERTY_TYPES, "rich_text"]),
  options: z.array(InlineOption).max(MAX_OPTIONS).optional(),
});

/** One entry of the inline schema as written: where it is, and the key naming it in the object form. */
interface Entry {
  path: string;
  key: string | undefined;
  raw: unknown;
}

function entriesOf(inline: unknown, issues: PathIssue[]): Entry[] {
  if (Array.isArray(inline)) return inline.map((raw, index) => ({ path: `${FIELD}[${index}]`, key: undefined, raw }));
  if (inline && typeof inline === "object") {
    return Object.entries(inline).map(([key, raw]) => ({ path: joinPath(FIELD, [key]), key, raw }));
  }
  issues.push({
    path: FIELD,
    code: "invalid_schema",
    message:
      'must be an array of properties like [{"id": "status", "name": "Status", "type": "select", "options": ["Todo"]}], or an object keyed by property id',
  });
  return [];
}

/** A property of the inline schema with the path it was read at. */
interface Read {
  path: string;
  property: PropertyDefinition;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * An entry as the array form writes it: in the object form, the key is the id, and the name when
 * the entry gives none. So both forms are read by one schema (InlineProperty: the id rules,
 * PropertyNameSchema), and a key breaking them is refused at the key's own path.
 */
function asArrayEntry(entry: Entry, issues: PathIssue[]): { raw: unknown; fromKey: Set<string> } | undefined {
  const fromKey = new Set<string>();
  if (entry.key === undefined || !isRecord(entry.raw)) return { raw: entry.raw, fromKey };
  const raw: Record<string, unknown> = { ...entry.raw };
  if (raw.id !== undefined && raw.id !== entry.key) {
    issues.push({ path: `${entry.path}.id`, code: "id_mismatch", message: `differs from its key "${entry.key}"` });
    return undefined;
  }
  for (const field of ["id", "name"]) {
    if (raw[field] === undefined) {
      raw[field] = entry.key;
      fromKey.add(field);
    }
  }
  return { raw, fromKey };
}

function readEntry(entry: Entry, issues: PathIssue[]): Read | undefined {
  const given = asArrayEntry(entry, issues);
  if (!given) return undefined;
  const parsed = InlineProperty.safeParse(given.raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0]);
      issues.push(
        given.fromKey.has(field)
          ? { path: entry.path, code: issue.code, message: `the key, as the property's ${field}: ${issue.message}` }
          : { path: joinPath(entry.path, issue.path), code: issue.code, message: issue.message },
      );
    }
    return undefined;
  }
  const { id, name, options } = parsed.data;
  const type = parsed.data.type === "rich_text" ? "text" : parsed.data.type;
  if (name === undefined) {
    issues.push({ path: `${entry.path}.name`, code: "missing_name", message: "is required" });
    return undefined;
  }
  if (options !== undefined && !SELECT_LIKE_TYPES.has(type)) {
    issues.push({
      path: `${entry.path}.options`,
      code: "options_not_allowed",
      message: "only select, multi_select and status properties have options",
    });
    return undefined;
  }
  const read = (options ?? []).map((option): SelectOption => {
    const given = typeof option === "string" ? { name: option } : option;
    return { id: given.id ?? newOptionId(), name: given.name, color: given.color ?? "default" };
  });
  checkOptions(read, `${entry.path}.options`, issues);
  return { path: entry.path, property: { id: id ?? newPropertyId(), name, type, options: read, position: 0 } };
}

/** The first index of each key, in one pass: what a later item repeating it meets. */
function firstIndexes<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const first = new Map<string, number>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (!first.has(key)) first.set(key, index);
  });
  return first;
}

/**
 * Option names and ids identify one option each, and a name is not another option's id (options
 * are named by either). Linear: each check is a look-up in a map of first places.
 */
function checkOptions(options: SelectOption[], path: string, issues: PathIssue[]): void {
  const names = firstIndexes(options, (option) => option.name);
  const ids = firstIndexes(options, (option) => option.id);
  options.forEach((option, index) => {
    const at = `${path}[${index}]`;
    if ((names.get(option.name) ?? index) < index) {
      issues.push({ path: `${at}.name`, code: "duplicate_name", message: `repeats the option name "${option.name}"` });
    } else if ((ids.get(option.id) ?? index) < index) {
      issues.push({ path: `${at}.id`, code: "duplicate_id", message: `repeats the option id "${option.id}"` });
    }
    const shadowed = ids.get(option.name);
    if (shadowed !== undefined && shadowed !== index) {
      issues.push({ path: `${at}.name`, code: "name_is_an_id", message: `is the id of ${path}[${shadowed}]` });
    }
  });
}

/**
 * Ids and names identify one property each (names whatever their case), a name is not another
 * property's id (properties are named by either), and one property at most is the title. Linear,
 * as checkOptions.
 */
function checkProperties(read: Read[], issues: PathIssue[]): void {
  const ids = firstIndexes(read, ({ property }) => property.id);
  const names = firstIndexes(read, ({ property }) => nameKey(property.name));
  const title = read.findIndex(({ property }) => property.type === "title");
  read.forEach(({ path, property }, index) => {
    const sameId = ids.get(property.id) ?? index;
    if (sameId < index) {
      issues.push({ path: `${path}.id`, code: "duplicate_id", message: `repeats the id of ${read[sameId]?.path}` });
    }
    const sameName = names.get(nameKey(property.name)) ?? index;
    if (sameName < index) {
      issues.push({
        path: `${path}.name`,
        code: "duplicate_name",
        message: `repeats the name of ${read[sameName]?.path}`,
      });
    }
    const shadowed = ids.get(property.name);
    if (shadowed !== undefined && shadowed !== index) {
      issues.push({ path: `${path}.name`, code: "name_is_an_id", message: `is the id of ${read[shadowed]?.path}` });
    }
    if (property.type === "title" && title < index) {
      issues.push({ path: `${path}.type`, code: "second_title", message: "a database has exactly one title property" });
    }
  });
}

/**
 * The default columns the inline schema does not have: a property of a default column's type
 * is that column (an inline title property is the database's title, whatever its name). A
 * default column added may not meet an inline property by name or id: which one a row's key
 * meant could not be told.
 */
function missingDefaults(read: Read[], issues: PathIssue[]): PropertyDefinition[] {
  const missing = DEFAULT_PROPERTIES.filter((column) => !read.some(({ property }) => property.type === column.type));
  for (const column of missing) {
    for (const { path, property } of read) {
      const clash =
        nameKey(property.name) === nameKey(column.name) ? "name" : property.id === column.name ? "id" : undefined;
      if (clash) {
        issues.push({
          path: `${path}.${clash}`,
          code: "default_column",
          message: `"${column.name}" names the default ${column.type} column every database has: give this property that type, or another ${clash}`,
        });
      }
    }
  }
  return missing.map((column) => ({
    id: newPropertyId(),
    name: column.name,
    type: column.type,
    options: [],
    position: 0,
  }));
}

/**
 * The schema records of a new database, in order: the default title column unless the inline
 * schema has a title, the inline properties as given (ids kept; an array entry without one,
 * and options without one, get new ids), then the default columns it lacks. Refused with a 400
 * listing every problem at its path (`details.field` is `properties.schema`).
 */
export function newDatabaseProperties(inline: unknown): PropertyDefinition[] {
  const issues: PathIssue[] = [];
  const entries = inline === undefined ? [] : entriesOf(inline, issues);
  if (entries.length > MAX_PROPERTIES) throw tooManyProperties(entries.length);
  const read = entries.flatMap((entry) => {
    const one = readEntry(entry, issues);
    return one ? [one] : [];
  });
  checkProperties(read, issues);
  const defaults = missingDefaults(read, issues);
  if (issues.length > 0) throw issuesRefused(FIELD, issues, { field: FIELD });
  if (read.length + defaults.length > MAX_PROPERTIES) throw tooManyProperties(read.length + defaults.length);
  const given = read.map(({ property }) => property);
  const title = defaults.filter((column) => column.type === "title");
  const computed = defaults.filter((column) => column.type !== "title");
  return [...title, ...given, ...computed].map((property, position) => ({ ...property, position }));
}

/** A 400 for an inline schema with more properties than a database may have (its default columns count). */
const tooManyProperties = (count: number) =>
  issuesRefused(
    FIELD,
    [
      {
        path: FIELD,
        code: "too_many_properties",
        message: `would give the database at least ${count} properties (its default columns included); a database has at most ${MAX_PROPERTIES}`,
      },
    ],
    { field: FIELD, maximum: MAX_PROPERTIES },
  );
