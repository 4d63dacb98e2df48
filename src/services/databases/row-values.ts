import { badRequest } from "../../lib/errors";
import { LINK_SCHEMES, safeUrl } from "../content/links";
import { DateValue, DateValueObject } from "./date-value";
import {
  COMPUTED_PROPERTY_COLUMNS,
  COMPUTED_PROPERTY_TYPES,
  type DatabaseSchema,
  isComputedType,
  type PropertyDefinition,
  type SelectOption,
} from "./property-types";

/** A record keyed by names and ids from users: no prototype, so no key (`__proto__`) is special. */
const emptyRecord = (): Record<string, unknown> => Object.create(null);

export interface RowPropertyProblem {
  property: string;
  name?: string;
  message: string;
  allowed?: string[];
}

/**
 * Finds the property a row key names: its canonical id, else its display name
 * (exact, then case-insensitive when that is unambiguous), else `title` for the
 * title property.
 */
export function resolvePropertyKey(schema: DatabaseSchema, key: string): PropertyDefinition | undefined {
  const byId = schema.properties.find((property) => property.id === key);
  if (byId) return byId;
  const byName = schema.properties.find((property) => property.name === key);
  if (byName) return byName;
  const folded = schema.properties.filter((property) => property.name.toLowerCase() === key.toLowerCase());
  if (folded.length === 1) return folded[0];
  return key === "title" ? schema.properties.find((property) => property.type === "title") : undefined;
}

type Normalized = { ok: true; value: unknown } | { ok: false; message: string; allowed?: string[] };

function matchOption(property: PropertyDefinition, given: unknown): Normalized {
  const allowed = property.options.map((option) => option.name);
  let wanted: { id?: string; name?: string } | undefined;
  if (typeof given === "string") wanted = { name: given };
  else if (given && typeof given === "object" && !Array.isArray(given)) {
    const { id, name } = given as { id?: unknown; name?: unknown };
    wanted = {
      ...(typeof id === "string" ? { id } : {}),
      ...(typeof name === "string" ? { name } : {}),
    };
  }
  if (!wanted || (wanted.id === undefined && wanted.name === undefined)) {
    return { ok: false, message: "Expected an option: {name, color}, {id} or the option's name", allowed };
  }
  const option: SelectOption | undefined =
    (wanted.id !== undefined && property.options.find((candidate) => candidate.id === wanted.id)) ||
    (wanted.name !== undefined ? property.options.find((candidate) => candidate.name === wanted.name) : undefined);
  if (option) return { ok: true, value: { id: option.id, name: option.name, color: option.color } };
  const label = wanted.name ?? wanted.id;
  const nearMiss = property.options.find((candidate) => candidate.name.toLowerCase() === label?.toLowerCase());
  return {
    ok: false,
    message: nearMiss
      ? `'${label}' does not match an option exactly (did you mean '${nearMiss.name}'? Options are case-sensitive)`
      : `'${label}' is not an option of this property`,
    allowed,
  };
}

function normalizeValue(property: PropertyDefinition, value: unknown): Normalized {
  if (value === null) return { ok: true, value: null };
  switch (property.type) {
    case "title":
    case "text":
    case "email":
    case "phone_number":
      return typeof value === "string" ? { ok: true, value } : { ok: false, message: "Expected a string" };
    case "url":
      // A url value is a link: held to the rule of links in bodies (and exports).
      if (typeof value !== "string") return { ok: false, message: "Expected a string" };
      return safeUrl(value) === undefined
        ? { ok: false, message: `Expected a link: ${LINK_SCHEMES.join(", ")} or without a scheme` }
        : { ok: true, value };
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? { ok: true, value }
        : { ok: false, message: "Expected a finite number" };
    case "checkbox":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, message: "Expected true or false" };
    case "select":
    case "status":
      return matchOption(property, value);
    case "multi_select": {
      if (!Array.isArray(value)) return { ok: false, message: "Expected an array of options" };
      const matched: { id: string }[] = [];
      for (const item of value) {
        const result = matchOption(property, item);
        if (!result.ok) return result;
        const option = result.value as { id: string };
        if (!matched.some((existing) => existing.id === option.id)) matched.push(option);
      }
      return { ok: true, value: matched };
    }
    case "date": {
      // Parsed by the form given, so a problem inside the object names its field.
      const parsed = (typeof value === "object" ? DateValueObject : DateValue).safeParse(value);
      if (parsed.success) return { ok: true, value: parsed.data };
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      return {
        ok: false,
        message: `Expected an ISO date (YYYY-MM-DD) or a date object {start, end?, reminder?, recurrence?, ...}${where}: ${issue?.message ?? "invalid"}`,
      };
    }
    default:
      return { ok: false, message: `Properties of type ${property.type} are computed and cannot be written` };
  }
}

/**
 * Translates a row's property keys to canonical ids and validates each value
 * against the schema. Any problem refuses the whole write (400 naming every
 * property at fault and, for options, the allowed values), so nothing partial
 * is stored. `null` clears a value.
 */
export function normalizeRowProperties(
  schema: DatabaseSchema,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const canonical = emptyRecord();
  const problems: RowPropertyProblem[] = [];
  for (const [key, value] of Object.entries(input)) {
    const property = resolvePropertyKey(schema, key);
    if (!property) {
      problems.push({
        property: key,
        message: "No such property in this database's schema",
        allowed: schema.properties.filter((p) => !COMPUTED_PROPERTY_TYPES.has(p.type)).map((p) => p.name),
      });
      continue;
    }
    if (property.id in canonical) {
      problems.push({
        property: key,
        name: property.name,
        message: `Given more than once (as ${property.id} and an alias)`,
      });
      continue;
    }
    if (COMPUTED_PROPERTY_TYPES.has(property.type)) {
      problems.push({ property: key, name: property.name, message: `${property.type} is computed and read-only` });
      continue;
    }
    const result = normalizeValue(property, value);
    if (result.ok) canonical[property.id] = result.value;
    else {
      problems.push({
        property: key,
        name: property.name,
        message: result.message,
        ...(result.allowed ? { allowed: result.allowed } : {}),
      });
    }
  }
  if (problems.length > 0) {
    throw badRequest("Invalid row properties", { database_id: schema.databaseId, errors: problems });
  }
  return canonical;
}

/** The row's own columns that computed properties show (COMPUTED_PROPERTY_COLUMNS). */
export interface RowFacts {
  created_at: string;
  updated_at: string;
  created_by: string | null;
  last_edited_by: string | null;
}

/**
 * Row properties keyed by display name, regenerated from the canonical ids and
 * the schema (aliases are never stored). Computed properties come from the row.
 */
export function propertiesByName(
  schema: DatabaseSchema,
  stored: Record<string, unknown>,
  row: RowFacts,
): Record<string, unknown> {
  const named = emptyRecord();
  for (const property of schema.properties) {
    named[property.name] = isComputedType(property.type)
      ? row[COMPUTED_PROPERTY_COLUMNS[property.type]]
      : (stored[property.id] ?? null);
  }
  return named;
}

/**
 * The values a block brings along when it becomes a row of the database of
 * `schema` (a page turned into a row, a row moved to another database): each
 * value whose key names a property here (by id, display name, or `title` for
 * the title property) and that the property accepts. A row holds only values
 * its schema explains, so the rest stay behind.
 */
export function carriedValues(
  schema: DatabaseSchema,
  entries: [key: string, value: unknown][],
): Record<string, unknown> {
  const carried = emptyRecord();
  for (const [key, value] of entries) {
    const property = resolvePropertyKey(schema, key);
    if (!property || COMPUTED_PROPERTY_TYPES.has(property.type) || property.id in carried) continue;
    const result = normalizeValue(property, value);
    if (result.ok && result.value !== null) carried[property.id] = result.value;
  }
  return carried;
}
