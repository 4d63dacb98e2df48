import type { Database } from "../../db/client";
import { badRequest } from "../../lib/errors";
import { validateContent } from "../content/editor-content";
import { normalizeRowProperties } from "../databases/row-values";
import { loadDatabaseSchema } from "../databases/schema-records";

/** Pages, databases and rows: blocks whose `content` is a body of editor items. */
export const PAGE_LIKE_TYPES: ReadonlySet<string> = new Set(["page", "database", "database_row"]);

export interface TypedFields {
  properties?: Record<string, unknown>;
  content?: unknown;
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
): Promise<TypedFields> {
  let { properties, content } = fields;
  if (target.type === "database_row") {
    if (!target.databaseId) {
      throw badRequest("A database_row needs database_id: the id of its database block", { field: "database_id" });
    }
    const schema = await loadDatabaseSchema(db, userId, target.databaseId);
    if (properties !== undefined) properties = normalizeRowProperties(schema, properties);
  }
  if (content !== undefined && content !== null && PAGE_LIKE_TYPES.has(target.type)) {
    content = validateContent(content);
  }
  return { properties, content };
}
