import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { Backlink } from "../../schemas/mentions";
import { isPageLike, pageOfBlock, shownOnItsPage } from "../blocks/page-scope";
import { visibleTo } from "../blocks/visibility";
import { propertyPathOfColumn } from "../databases/property-path";
import { titleText } from "../pages/pages";

// Backlinks of a page: the blocks whose content mentions it or links to its id (and API
// mentions of it), read from the mentions table at request time. Only sources the
// caller can see and that its page shows (it, and every block above it up to its page,
// visible and active) are listed or counted, so trashing or archiving a source (or a
// block or page above it) hides its backlinks, restoring brings them back, and
// deleting it deletes its mentions. One entry per source block (its first mention);
// a page's own blocks referring to it are not backlinks. One round trip after auth.

interface BacklinkRow {
  source_block_id: string;
  source_page_id: string | null;
  /** The source page's title value as JSON (a string or rich text). */
  title_json: string | null;
  snippet: string;
  kind: "mention" | "link";
  created_at: string;
}

/** `first_mentions`: each source block's first mention of the page. */
const firstMentions = (pageId: string): SQL => sql`WITH first_mentions AS (
  SELECT block_id, kind, snippet, created_at FROM (
    SELECT m.block_id, m.kind, m.snippet, m.created_at,
      row_number() OVER (PARTITION BY m.block_id ORDER BY m.created_at, m.id) AS n
    FROM mentions m WHERE m.target_type = 'page' AND m.target_id = ${pageId}
  ) WHERE n = 1
)`;

/** FROM and WHERE of the sources the caller may see, for `firstMentions`. */
const visibleSources = (ctx: UserContext, pageId: string): { from: SQL; where: SQL } => ({
  from: sql`
  FROM first_mentions f
  JOIN blocks b ON b.id = f.block_id
  LEFT JOIN blocks p ON p.id = ${pageOfBlock(ctx.actor, sql.raw("b.id"))}`,
  where: sql`${visibleTo(ctx.actor)} AND ${shownOnItsPage(ctx.actor, sql.raw("b.id"))} = 1
    AND coalesce(p.id, b.id) <> ${pageId}`,
});

/** A row's title is the value of its database's title property; other pages have `properties.title`. */
const TITLE_JSON = sql.raw(`CASE WHEN p.type = 'database_row' THEN (
    SELECT p.properties -> (${propertyPathOfColumn("dp.id")}) FROM database_properties dp
    WHERE dp.database_id = p.database_id AND dp.type = 'title' LIMIT 1
  ) ELSE p.properties -> '$.title' END`);

const targetPage = (ctx: UserContext, pageId: string) =>
  sql`SELECT b.id FROM blocks b WHERE b.id = ${pageId} AND ${visibleTo(ctx.actor)} AND ${isPageLike("b")}`;

const pageNotFound = (id: string) => notFound("Page not found", { id });

function present(row: BacklinkRow): Backlink {
  let title: unknown = null;
  try {
    title = row.title_json === null ? null : JSON.parse(row.title_json);
  } catch {
    title = null;
  }
  return {
    source_block_id: row.source_block_id,
    source_page_id: row.source_page_id,
    source_page_title: titleText(title),
    snippet: row.snippet,
    kind: row.kind,
    created_at: row.created_at,
  };
}

export async function listBacklinks(
  ctx: UserContext,
  pageId: string,
  window: PageWindow,
): Promise<ResultPage<Backlink>> {
  const select = sql`SELECT f.block_id AS source_block_id, p.id AS source_page_id, ${TITLE_JSON} AS title_json,
    f.snippet, f.kind, f.created_at`;
  const listing: Listing = {
    name: "backlinks",
    filters: { pageId },
    keys: [
      { expression: sql`f.created_at`, direction: "asc" },
      { expression: sql`f.block_id`, direction: "asc" },
    ],
  };
  const [page, count] = await listingQueries(
    ctx,
    listing,
    { with: firstMentions(pageId), select, ...visibleSources(ctx, pageId) },
    window,
  );
  const [pages, rows, counts] = await batchAll<[{ id: string }, BacklinkRow, { total: number }]>(ctx.db, [
    targetPage(ctx, pageId),
    page,
    count,
  ]);
  if (pages.length === 0) throw pageNotFound(pageId);
  return readPage(ctx, listing, rows, counts, window, present);
}

/** How many sources the caller may see link to or mention the page. */
export async function countBacklinks(ctx: UserContext, pageId: string): Promise<number> {
  const sources = visibleSources(ctx, pageId);
  const [pages, counts] = await batchAll<[{ id: string }, { total: number }]>(ctx.db, [
    targetPage(ctx, pageId),
    sql`${firstMentions(pageId)} SELECT count(*) AS total ${sources.from} WHERE ${sources.where}`,
  ]);
  if (pages.length === 0) throw pageNotFound(pageId);
  return counts[0]?.total ?? 0;
}
