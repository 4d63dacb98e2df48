import type { Database } from "../../db/client";
import { badRequest } from "../../lib/errors";
import { validateContent } from "../content/editor-content";
import type { DatabaseSchema } from "../databases/property-types";
import { normalizeRowProperties } from "../databases/row-values";
import { loadDatabaseSchema } from "../databases/schema-records";
import { refuseInternalType } from "./commands";
import { findVisibleBlock } from "./queries";
import type { Block } from "./record";

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
  /** A row's database schema, as loaded to validate it (reused to present the row). */
  schema?: DatabaseSchema;
  /**
   * True for rows: each given property value replaces the stored one whole
   * (a date object is one value), instead of being deep-merged into it.
   */
  replacePropertyValues?: boolean;
}

function placeTitle(properties: Record<string, unknown> | undefined, key: string, title: string | undefined) {
  if (title === undefined) return properties;
  if (properties && key in properties && properties[key] !== title) {
    throw badRequest("Give the title once: either title or the title property", { fields: ["title", key] });
  }
  return { ...properties, [key]: title };
}

/**
 * Applies the rules that depend on a block's type before anything is written:
 * a row needs its database and its properties are translated to canonical ids
 * and validated against that database's schema; a page-like block's content
 * must be canonical editor items. Throws a 400 (or 404 for an invisible
 * database) so a refused write stores nothing.
 */
export async function normalizeTypedFields(
  db: Database,
  userId: string,
  target: { type: string; databaseId: string | null },
  fields: TypedFields,
): Promise<NormalizedFields> {
  let properties = fields.properties;
  let content = fields.content;
  let schema: DatabaseSchema | undefined;
  const isRow = target.type === "database_row";
  if (isRow) {
    if (!target.databaseId) {
      throw badRequest("A database_row needs database_id: the id of its database block", { field: "database_id" });
    }
    schema = await loadDatabaseSchema(db, userId, target.databaseId);
    if (properties !== undefined) properties = normalizeRowProperties(schema, properties);
    if (fields.title !== undefined) {
      const titleProperty = schema.properties.find((property) => property.type === "title");
      if (!titleProperty) throw badRequest("This database has no title property", { field: "title" });
      properties = placeTitle(properties, titleProperty.id, fields.title);
    }
  } else {
    properties = placeTitle(properties, "title", fields.title);
  }
  if (content !== undefined && content !== null && PAGE_LIKE_TYPES.has(target.type)) {
    content = validateContent(content);
  }
  return { properties, content, ...(isRow ? { replacePropertyValues: true, schema } : {}) };
}

export interface BlockChange {
  type?: string;
  databaseId?: string | null;
  properties?: Record<string, unknown>;
  content?: unknown;
  title?: string;
}

/**
 * Validates the type-dependent fields of a change to a stored block against the
 * block as it will be (its new or current type and database). Reads the stored
 * block, unless given, only when the change touches those fields.
 */
export async function normalizeBlockChange(
  db: Database,
  userId: string,
  id: string,
  { title, ...change }: BlockChange,
  known?: Block,
): Promise<Omit<BlockChange, "title"> & NormalizedFields & { becomesDatabase?: boolean }> {
  const touched =
    change.properties !== undefined || change.content !== undefined || change.type !== undefined || title !== undefined;
  if (!touched) return change;
  refuseInternalType(change.type);
  const stored = known ?? (await findVisibleBlock(db, userId, id));
  const target = {
    type: change.type ?? stored.type,
    databaseId: change.databaseId !== undefined ? change.databaseId : stored.database_id,
  };
  return {
    ...change,
    ...(await normalizeTypedFields(db, userId, target, { ...change, title })),
    becomesDatabase: target.type === "database" && stored.type !== "database",
  };
}
