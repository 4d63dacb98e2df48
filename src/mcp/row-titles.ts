import { sql } from "drizzle-orm";
import type { UserContext } from "../lib/context";
import type { Block } from "../schemas/blocks";
import { visibleTo } from "../services/blocks/visibility";
import { titleText } from "../services/pages/pages";

// A row keeps its title under its database's title property (`prop_...`), not `properties.title`:
// tool answers name rows by it, as GET /api/v1/pages/{id} and the markdown export do.

type Titled = Pick<Block, "id" | "type" | "database_id" | "properties">;

/**
 * The title of each row among `blocks`, by block id: the value of its database's title property.
 * One read for all their databases (one a tool's answer could not otherwise afford per database).
 * A title is only a label: a database the caller cannot see, one of the older inline schemas, or a
 * failed read names none, and the block is labelled as any other.
 */
export async function rowTitles(ctx: UserContext, blocks: readonly Titled[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  const rows = blocks.filter((block) => block.type === "database_row" && block.database_id);
  if (rows.length === 0) return titles;
  const databases = [...new Set(rows.map((row) => row.database_id))];
  let titleProperties: { database_id: string; id: string }[];
  try {
    titleProperties = await ctx.db.all<{ database_id: string; id: string }>(sql`
      SELECT p.database_id, p.id FROM database_properties p JOIN blocks d ON d.id = p.database_id
      WHERE p.type = 'title' AND p.database_id IN (SELECT value FROM json_each(${JSON.stringify(databases)}))
        AND ${visibleTo(ctx.actor, "d")}`);
  } catch {
    return titles;
  }
  const titleOf = new Map(titleProperties.map((property) => [property.database_id, property.id]));
  for (const row of rows) {
    const property = titleOf.get(row.database_id as string);
    if (property) titles.set(row.id, titleText(row.properties[property]));
  }
  return titles;
}
