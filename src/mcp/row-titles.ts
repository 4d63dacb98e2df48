import type { UserContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import type { Block } from "../schemas/blocks";
import { loadDatabaseSchema } from "../services/databases/schema-records";
import { titleText } from "../services/pages/pages";

// A row keeps its title under its database's title property (`prop_...`), not `properties.title`:
// tool answers name rows by it, as GET /api/v1/pages/{id} and the markdown export do.

type Titled = Pick<Block, "id" | "type" | "database_id" | "properties">;

/**
 * The title of each row among `blocks`, by block id: the value of its database's title property.
 * One schema read per database the rows belong to; a database the caller cannot see names none.
 */
export async function rowTitles(ctx: UserContext, blocks: readonly Titled[]): Promise<Map<string, string>> {
  const rows = blocks.filter((block) => block.type === "database_row" && block.database_id);
  const databases = [...new Set(rows.map((row) => row.database_id as string))];
  const titleProperties = new Map<string, string | undefined>();
  for (const databaseId of databases) {
    try {
      const schema = await loadDatabaseSchema(ctx, databaseId);
      titleProperties.set(databaseId, schema.properties.find((property) => property.type === "title")?.id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  const titles = new Map<string, string>();
  for (const row of rows) {
    const property = titleProperties.get(row.database_id as string);
    if (property) titles.set(row.id, titleText(row.properties[property]));
  }
  return titles;
}
