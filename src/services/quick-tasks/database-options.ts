import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { DatabaseOption } from "../../schemas/quick-tasks";
import { parseProperties } from "../blocks/presenter";
import { isActive, visibleTo } from "../blocks/visibility";
import { titleText } from "../pages/pages";
import type { SettingsRecord } from "../settings/settings";

// Where a quick task could go: every database the caller can use, and every page that wraps one
// (is its parent, embeds it, or links to or mentions it: people know a database by the page it
// sits in). Each option saves the real database id, and says when the page's title differs from
// the database's, so a picker never saves a page as the target.

/** The last path segment of a URL in SQL, without query, fragment or trailing slashes (as mentions read links). */
const lastSegment = (
  url: SQL,
): SQL => sql`(SELECT replace(u.v, rtrim(u.v, replace(u.v, '/', '')), '') FROM (SELECT rtrim(
  CASE WHEN instr(q.v, '#') > 0 THEN substr(q.v, 1, instr(q.v, '#') - 1) ELSE q.v END, '/') AS v
  FROM (SELECT CASE WHEN instr(${url}, '?') > 0 THEN substr(${url}, 1, instr(${url}, '?') - 1) ELSE ${url} END AS v) q) u)`;

/** A page that may wrap a database: the caller's (or shared), active. */
const wrapperPage = (ctx: UserContext, alias: string): SQL =>
  sql`${sql.raw(alias)}.type = 'page' AND ${visibleTo(ctx.actor, alias)} AND ${isActive(alias)}`;

interface OptionRow {
  database_id: string;
  page_id: string | null;
  relation: DatabaseOption["relation"];
  database_properties: string;
  page_properties: string | null;
}

const titleOf = (properties: string | null): string => (properties ? titleText(parseProperties(properties).title) : "");

const comparable = (title: string) => title.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * One page of the caller's options: the saved default first, then the built-in Tasks database,
 * then by database title; each database before its wrappers. A page that wraps a database in
 * several ways is listed once, by the closest (parent, then embed, then link).
 */
export async function listDatabaseOptions(ctx: UserContext, window: PageWindow): Promise<ResultPage<DatabaseOption>> {
  const databases = sql`SELECT d.id, d.parent_id FROM blocks d
    WHERE d.type = 'database' AND ${visibleTo(ctx.actor, "d")} AND ${isActive("d")}`;
  const options = sql`
    WITH dbs AS (${databases})
    SELECT database_id, page_id, min(rank) AS rank FROM (
      SELECT id AS database_id, NULL AS page_id, 0 AS rank FROM dbs
      UNION ALL
      SELECT dbs.id, p.id, 1 FROM dbs JOIN blocks p ON p.id = dbs.parent_id WHERE ${wrapperPage(ctx, "p")}
      UNION ALL
      SELECT dbs.id, p.id, 2 FROM blocks p, json_tree(CASE WHEN json_valid(p.content) THEN p.content ELSE 'null' END) t
        JOIN dbs ON dbs.id = ${lastSegment(sql`json_extract(t.value, '$.url')`)}
        -- instr first: only bodies holding an embed are walked.
        WHERE ${wrapperPage(ctx, "p")} AND instr(p.content, '"embed"') > 0
          AND t.type = 'object' AND json_extract(t.value, '$.type') = 'embed'
          AND typeof(json_extract(t.value, '$.url')) = 'text'
      UNION ALL
      -- Links and mentions in the page's own content or in its editor blocks.
      SELECT dbs.id, p.id, 3 FROM mentions m JOIN dbs ON dbs.id = m.target_id
        JOIN blocks s ON s.id = m.block_id
        JOIN blocks p ON p.id = CASE WHEN s.type = 'page' THEN s.id ELSE s.parent_id END
        WHERE m.target_type IN ('page', 'block') AND ${wrapperPage(ctx, "p")}
    ) GROUP BY database_id, page_id`;
  const userId = ctx.actor.userId;
  const select = sql`SELECT o.database_id, o.page_id,
    CASE o.rank WHEN 0 THEN 'database' WHEN 1 THEN 'parent' WHEN 2 THEN 'embed' ELSE 'link' END AS relation,
    d.properties AS database_properties, p.properties AS page_properties`;
  const from = sql`FROM (${options}) o JOIN blocks d ON d.id = o.database_id LEFT JOIN blocks p ON p.id = o.page_id
    LEFT JOIN user_settings s ON s.user_id = ${userId}`;
  // (database, page) is unique, so the keys order the options totally; only the last may be NULL.
  const listing: Listing = {
    name: "tasks.database-options",
    filters: {},
    keys: [
      { expression: sql`(o.database_id IS s.quick_task_database_id)`, direction: "desc" },
      { expression: sql`(o.database_id IS s.tasks_database_id)`, direction: "desc" },
      { expression: sql`coalesce(d.properties ->> '$.title', '') COLLATE NOCASE`, direction: "asc" },
      { expression: sql`o.database_id`, direction: "asc" },
      { expression: sql`(o.page_id IS NOT NULL)`, direction: "asc" },
      { expression: sql`o.rank`, direction: "asc" },
      { expression: sql`o.page_id`, direction: "asc", nulls: "first" },
    ],
  };
  const [pageQuery, countQuery] = await listingQueries(ctx, listing, { select, from, where: sql`1` }, window);
  const [rows, counts, settings] = await batchAll<
    [OptionRow, { total: number }, Pick<SettingsRecord, "quick_task_database_id" | "tasks_database_id">]
  >(ctx.db, [
    pageQuery,
    countQuery,
    sql`SELECT quick_task_database_id, tasks_database_id FROM user_settings WHERE user_id = ${userId}`,
  ]);
  const saved = settings[0];
  return readPage(ctx, listing, rows, counts, window, (row): DatabaseOption => {
    const databaseTitle = titleOf(row.database_properties);
    const pageTitle = row.page_id ? titleOf(row.page_properties) : null;
    return {
      database_id: row.database_id,
      database_title: databaseTitle,
      page_id: row.page_id,
      page_title: pageTitle,
      title_mismatch: pageTitle !== null && comparable(pageTitle) !== comparable(databaseTitle),
      relation: row.relation,
      is_default: saved?.quick_task_database_id === row.database_id,
      is_template: saved?.tasks_database_id === row.database_id,
    };
  });
}
