import type { UserContext } from "../../lib/context";
import { ApiError, badRequest } from "../../lib/errors";
import type { Block } from "../../schemas/blocks";
import { refuseUnsafeLinks, refuseUnsafeMediaUrl, validateContent } from "../content/editor-content";
import { asPageContent } from "../content/page-content";
import { newDatabaseProperties } from "../databases/inline-schema";
import type { DatabaseSchema, PropertyDefinition } from "../databases/property-types";
import { carriedValues, normalizeRowProperties } from "../databases/row-values";
import { loadDatabaseSchema } from "../databases/schema-records";

/** Pages, databases and rows: blocks whose `content` is a body of editor items. */
export const PAGE_LIKE_TYPES: ReadonlySet<string> = new Set(["page", "database", "database_row"]);

export interface TypedFields {
  properties?: Record<string, unknown>;
  content?: unknown;
  /**
   * A page's title. For a row it goes to its database's title property, whatever
   * that property is named; for other blocks to `properties.title`.
   */
  title?: string;
}

export interface NormalizedFields {
  properties?: Record<string, unknown>;
  content?: unknown;
  /** A row's database schema, as read to validate it: the write must land against this version. */
  schema?: DatabaseSchema;
  /**
   * The schema a stored row's values were carried by (named by its properties, into a page or a
   * row of another database): the write must land against this version too.
   */
  carriedSchema?: DatabaseSchema;
  /**
   * The schema records of a block that is a database from this write on (created as one, or
   * becoming one): for the same batch, which writes them unless the block has records already.
   */
  databaseProperties?: PropertyDefinition[];
  /**
   * How the properties apply: `values` for rows (each given value replaces the
   * stored one whole), `all` when a block becomes a row (its whole validated
   * properties replace the stored ones), else `merge` (RFC 7396).
   */
  propertiesMode: "merge" | "values" | "all";
}

function placeTitle(properties: Record<string, unknown> | undefined, key: string, title: string | undefined) {
  if (title === undefined) return properties;
  if (properties && key in properties && properties[key] !== title) {
    throw badRequest("Give the title once: either title or the title property", { fields: ["title", key] });
  }
  return { ...properties, [key]: title };
}

/**
 * The stored values of a block about to become a row of `schema`, keyed so
 * the new schema can recognise them: a row's values by their old property's
 * name (`title` for its title), anything else by its own key.
 */
async function valuesToCarry(
  ctx: UserContext,
  schema: DatabaseSchema,
  stored: Block,
  storedSchema: DatabaseSchema | undefined,
): Promise<{ values: Record<string, unknown>; from: DatabaseSchema | null }> {
  const from = stored.type === "database_row" ? await schemaOfRow(ctx, stored, storedSchema) : null;
  const { title, others } = namedValues(from, stored);
  // The block's title goes to the new schema's title property whatever that is named, and first:
  // a value whose name matches the title property (or a property named `title` there) comes after.
  const titleId = schema.properties.find((property) => property.type === "title")?.id;
  const entries: [string, unknown][] = others.map(({ name, value }) => [name, value]);
  if (title) entries.unshift([titleId ?? "title", title.value]);
  return { values: carriedValues(schema, entries), from };
}

/**
 * The schema of the database a stored row belongs to: `known` when it was read with the row, else
 * read; null when the row has no database the caller can see (a deleted one's row keeps its ids).
 */
async function schemaOfRow(ctx: UserContext, row: Block, known?: DatabaseSchema): Promise<DatabaseSchema | null> {
  if (!row.database_id) return null;
  if (known?.databaseId === row.database_id) return known;
  try {
    return await loadDatabaseSchema(ctx, row.database_id);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    return null;
  }
}

/**
 * A block's title and its other values, each named by its property in `schema` (its database's,
 * when it is a row of one); a key the schema does not hold is its own name.
 */
function namedValues(
  schema: DatabaseSchema | null,
  block: Block,
): { title: { value: unknown } | undefined; others: { name: string; key: string; value: unknown }[] } {
  let title: { value: unknown } | undefined;
  const others: { name: string; key: string; value: unknown }[] = [];
  for (const [key, value] of Object.entries(block.properties)) {
    const property = schema?.properties.find((candidate) => candidate.id === key);
    if (property ? property.type === "title" : schema === null && key === "title") title = { value };
    else others.push({ name: property?.name ?? key, key, value });
  }
  return { title, others };
}

/**
 * A row's values as a page holds them: its title as `title`, every other value under its
 * property's name. A property named as a page's own key (`title` beside a title property named
 * otherwise, or `schema`, which would read as an inline schema) keeps its id: no value is lost or
 * misread.
 */
function valuesOfPage(schema: DatabaseSchema | null, row: Block): Record<string, unknown> {
  const { title, others } = namedValues(schema, row);
  const named: Record<string, unknown> = {};
  for (const { name, key, value } of others) named[PAGE_KEYS.has(name) ? key : name] = value;
  if (title) named.title = title.value;
  return named;
}

/** Keys a page-like block's properties give a meaning of their own. */
const PAGE_KEYS: ReadonlySet<string> = new Set(["title", "schema"]);

const withoutNulls = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));

export interface TypedTarget {
  type: string;
  databaseId: string | null;
  /** The request named `databaseId` (in its `database_id`): a database it cannot see is a 404 naming that field. */
  databaseNamed?: boolean;
}

/**
 * Applies the rules that depend on a block's type before anything is written:
 * a row needs its database and its properties are translated to canonical ids
 * and validated against that database's schema; a page-like block's content
 * must be canonical editor items. `stored` is the block being changed: when it
 * becomes a row (or a row of another database), it keeps the values the new
 * schema has a property for (matched by name) and accepts, and the change's
 * values are validated; when it becomes page-like, its content is carried over
 * as canonical items. Links the content gives must be ones an export would link
 * (safeUrl). Throws a 400 (or 404 for an invisible database) so a refused write
 * stores nothing.
 */
export async function normalizeTypedFields(
  ctx: UserContext,
  target: TypedTarget,
  fields: TypedFields,
  stored?: Block,
  /** The stored block's database schema when it was read with the block (saves a round trip). */
  storedSchema?: DatabaseSchema,
): Promise<NormalizedFields> {
  let properties = fields.properties;
  let content = fields.content;
  let schema: DatabaseSchema | undefined;
  let carriedSchema: DatabaseSchema | undefined;
  let propertiesMode: NormalizedFields["propertiesMode"] = "merge";
  if (target.type === "database_row") {
    if (!target.databaseId) {
      throw badRequest("A database_row needs database_id: the id of its database block", { field: "database_id" });
    }
    schema =
      storedSchema?.databaseId === target.databaseId
        ? storedSchema
        : await loadDatabaseSchema(ctx, target.databaseId, target.databaseNamed ? "database_id" : undefined);
    if (properties !== undefined) properties = normalizeRowProperties(schema, properties);
    const becomesRow = stored && (stored.type !== "database_row" || stored.database_id !== target.databaseId);
    if (becomesRow) {
      const carried = await valuesToCarry(ctx, schema, stored, storedSchema);
      properties = { ...carried.values, ...properties };
      carriedSchema = carried.from ?? undefined;
      propertiesMode = "all";
    } else {
      propertiesMode = "values";
    }
    if (fields.title !== undefined) {
      const titleProperty = schema.properties.find((property) => property.type === "title");
      if (!titleProperty) throw badRequest("This database has no title property", { field: "title" });
      properties = placeTitle(properties, titleProperty.id, fields.title);
    }
  } else {
    properties = placeTitle(properties, "title", fields.title);
    if (stored?.type === "database_row") {
      // A row that stops being one keeps its values under names a page can be read by (its title
      // as `title`), so it reads as the page it was, and becomes a row again by the same names.
      // The change's own properties apply to them as a merge patch, as to any page's.
      carriedSchema = (await schemaOfRow(ctx, stored, storedSchema)) ?? undefined;
      properties = mergePatch(valuesOfPage(carriedSchema ?? null, stored), properties ?? {}) as Record<string, unknown>;
      propertiesMode = "all";
    }
  }
  let databaseProperties: PropertyDefinition[] | undefined;
  if (target.type === "database" && stored?.type !== "database") {
    // A new database (contract, Block rule 8): the default columns, and the properties of the
    // inline schema it is written with or already holds, become its schema records. The inline
    // schema is not kept beside them: the records are the schema from now on.
    const inline = inlineSchemaAfter(properties, stored);
    databaseProperties = newDatabaseProperties(inline ?? undefined);
    if (inline !== undefined || (properties !== undefined && "schema" in properties)) {
      properties = withoutInlineSchema(properties, stored);
    }
  }
  if (PAGE_LIKE_TYPES.has(target.type)) {
    if (content !== undefined && content !== null) content = validateContent(content);
    else if (content === undefined && stored && !PAGE_LIKE_TYPES.has(stored.type)) {
      content = asPageContent(stored.content);
    }
  }
  // Links written are links an export would link: in a body, in an editor block's own content, and
  // the `properties.url` of an editor media block (its exported source).
  if (fields.content !== undefined) refuseUnsafeLinks(content, "content", target.type);
  if (fields.properties !== undefined) refuseUnsafeMediaUrl(fields.properties, target.type);
  // Replacing the whole object, a key is removed by leaving it out (a removed inline schema's null).
  if (propertiesMode === "all" && properties) properties = withoutNulls(properties);
  return { properties, content, schema, carriedSchema, propertiesMode, databaseProperties };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** RFC 7396, as SQLite's json_patch applies a properties patch: the value `patch` makes of `target`. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * The inline `properties.schema` a block will hold after this write: as given on create; on an
 * update, the stored one with the patch's applied (null or absent: none).
 */
function inlineSchemaAfter(properties: Record<string, unknown> | undefined, stored: Block | undefined): unknown {
  if (!stored) return properties?.schema ?? undefined;
  const patched = properties && "schema" in properties;
  return (patched ? mergePatch(stored.properties.schema, properties.schema) : stored.properties.schema) ?? undefined;
}

/** The properties to write without the inline schema: left out of a create, removed by an update's patch. */
function withoutInlineSchema(properties: Record<string, unknown> | undefined, stored: Block | undefined) {
  if (stored) return { ...properties, schema: null };
  const { schema: _inline, ...rest } = properties ?? {};
  return rest;
}
