import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { type Expected, type Preconditions, type Validator, validatorOf, withValidator } from "../../lib/entity-tags";
import { ApiError, badRequest } from "../../lib/errors";
import type { PageWindow, ResultPage } from "../../lib/pagination";
import type { Block } from "../../schemas/blocks";
import { PAGE_TYPES, type Page, type PageSummary, type PageType } from "../../schemas/pages";
import { PAGE_LIKE_TYPES } from "../block-writes/typed-fields";
import { createTypedBlock, findVisibleBlockWithSchema, updateTypedBlock } from "../block-writes/writes";
import { deleteBlock, updateBlock } from "../blocks/commands";
import { blockVersionOf, parseProperties } from "../blocks/presenter";
import { blockNotFound, getActiveBlock, listBlocks } from "../blocks/queries";
import { visibleTo } from "../blocks/visibility";
import { refuseUnsafeLinks } from "../content/editor-content";
import { markdownToContent } from "../content/markdown";
import { MAX_MARKDOWN_NESTING } from "../content/markdown-tokens";
import type { DatabaseSchema } from "../databases/property-types";
import { propertiesByName } from "../databases/row-values";
import {
  loadDatabaseSchema,
  parseInlineSchema,
  schemaVersionColumns,
  schemaVersionParts,
} from "../databases/schema-records";

export { PAGE_TYPES, type Page, type PageSummary, type PageType };

/** Plain text of a title value: a string, or rich text (`[{text}]` / `[{plain_text}]`). */
export function titleText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value
      .map((span) =>
        span && typeof span === "object"
          ? String(
              (span as { text?: unknown; plain_text?: unknown }).text ??
                (span as { plain_text?: unknown }).plain_text ??
                "",
            )
          : "",
      )
      .join("");
  }
  return "";
}

/** The schema of a row's database, or null when that database is not visible to the caller. */
async function schemaForRow(ctx: UserContext, row: Block): Promise<DatabaseSchema | null> {
  if (row.type !== "database_row" || !row.database_id) return null;
  try {
    return await loadDatabaseSchema(ctx, row.database_id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The title a person sees: `properties.title`, or for a row the value of its database's title property. */
export async function pageTitle(ctx: UserContext, block: Block): Promise<string> {
  const schema = await schemaForRow(ctx, block);
  const titleProperty = schema?.properties.find((property) => property.type === "title");
  return titleText(titleProperty ? block.properties[titleProperty.id] : block.properties.title);
}

/**
 * A page's entity tag names its block's version and creation time (as a block's tag does) and, for a row, its database's schema version
 * (schemaVersionParts): `properties_by_name` changes with the schema (a renamed property) while
 * the row stays as it is.
 */
const PAGE_TAG = "p";

/** The page's version columns in SQL (alias `b`), as its validator names them: what a write of it expects. */
const expectPage = (ctx: UserContext, id: string, preconditions: Preconditions): Expected => {
  const database = sql`FROM blocks d WHERE b.type = 'database_row' AND d.id = b.database_id
    AND d.type = 'database' AND ${visibleTo(ctx.actor, "d")}`;
  return {
    preconditions,
    versioned: {
      kind: PAGE_TAG,
      id,
      columns: [
        sql`b.version`,
        sql`b.created_at`,
        ...schemaVersionColumns("d").map((column) => sql`(SELECT ${column} ${database})`),
      ],
    },
  };
};

export async function presentPage(ctx: UserContext, block: Block, known?: DatabaseSchema): Promise<Page> {
  // Only a row shows its database's schema (a page's own database_id names nothing it shows).
  const schema = block.type === "database_row" ? (known ?? (await schemaForRow(ctx, block))) : null;
  const page = schema
    ? { ...block, properties_by_name: propertiesByName(schema, block.properties, block) }
    : { ...block };
  return withValidator(page, {
    kind: PAGE_TAG,
    id: block.id,
    parts: [blockVersionOf(block), block.created_at, ...schemaVersionParts(schema)],
  });
}

const assertPageLike = (block: Block): Block => {
  if (!PAGE_LIKE_TYPES.has(block.type)) throw blockNotFound(block.id);
  return block;
};

export async function getPage(ctx: UserContext, id: string): Promise<Page> {
  return presentPage(ctx, assertPageLike(await getActiveBlock(ctx, id)));
}

export interface PageListQuery extends PageWindow {
  type?: PageType;
  parentId?: string;
  databaseId?: string;
  q?: string;
  archived: boolean;
  inTrash: boolean;
}

/** The lightweight page listing: page-like blocks with their titles (rows' from their title property). */
export async function listPages(ctx: UserContext, query: PageListQuery): Promise<ResultPage<PageSummary>> {
  const page = await listBlocks(ctx, {
    ...query,
    listing: "pages",
    types: query.type ? [query.type] : PAGE_TYPES,
    sortOrder: "desc",
  });
  const databaseIds = [
    ...new Set(
      page.items.flatMap((block) => (block.type === "database_row" && block.database_id ? [block.database_id] : [])),
    ),
  ];
  const titleProperties = new Map<string, string>();
  if (databaseIds.length > 0) {
    // One batch: the title records, and the inline schema of older databases without records.
    // The ids travel as one JSON parameter: a page of 100 rows of 100 databases stays under D1's 100.
    const ids = sql`SELECT value FROM json_each(${JSON.stringify(databaseIds)})`;
    const [records, databases] = await batchAll<
      [{ database_id: string; id: string }, { id: string; properties: string }]
    >(ctx.db, [
      // Only databases the caller sees: a row may be visible while its database is not.
      sql`SELECT p.database_id, p.id FROM database_properties p
        WHERE p.type = 'title' AND p.database_id IN (${ids})
          AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = p.database_id AND ${visibleTo(ctx.actor)})`,
      sql`SELECT b.id, b.properties FROM blocks b WHERE b.id IN (${ids}) AND b.type = 'database' AND ${visibleTo(ctx.actor)}
        AND NOT EXISTS (SELECT 1 FROM database_properties p WHERE p.database_id = b.id)`,
    ]);
    for (const record of records) titleProperties.set(record.database_id, record.id);
    for (const database of databases) {
      const inline = parseProperties(database.properties).schema;
      const title = parseInlineSchema(inline).find((property) => property.type === "title");
      if (title) titleProperties.set(database.id, title.id);
    }
  }
  const summaries: PageSummary[] = page.items.map((block) => {
    const titleKey = (block.database_id && titleProperties.get(block.database_id)) || "title";
    return {
      id: block.id,
      type: block.type as PageType,
      title: titleText(block.properties[titleKey] ?? block.properties.title),
      parent_id: block.parent_id,
      database_id: block.database_id,
      icon: block.properties.icon ?? null,
      archived: block.archived,
      in_trash: block.in_trash,
      created_by: block.created_by,
      created_at: block.created_at,
      updated_at: block.updated_at,
    };
  });
  return { items: summaries, total: page.total, hasMore: page.hasMore, nextCursor: page.nextCursor };
}

/** `content` or `content_markdown` (converted to canonical items); never both. */
function bodyContent(input: { content?: unknown; contentMarkdown?: string }): unknown {
  if (input.content !== undefined && input.contentMarkdown !== undefined) {
    throw badRequest("Give content or content_markdown, not both", { fields: ["content", "content_markdown"] });
  }
  if (input.contentMarkdown === undefined) return input.content;
  let content: unknown;
  try {
    content = markdownToContent(input.contentMarkdown);
  } catch (error) {
    // Blocks nested past the parser's limit (MarkdownNestingError, a RangeError) are refused.
    if (error instanceof RangeError) {
      throw badRequest("content_markdown is nested too deeply to convert", {
        field: "content_markdown",
        max_nesting: MAX_MARKDOWN_NESTING,
      });
    }
    throw error;
  }
  // Checked here as well as with every body, to name the field the links came from.
  refuseUnsafeLinks(content, "content_markdown");
  return content;
}

export interface CreatePageInput {
  id?: string;
  type: PageType;
  title?: string;
  parentId: string | null;
  databaseId: string | null;
  properties?: Record<string, unknown>;
  content?: unknown;
  contentMarkdown?: string;
}

export async function createPage(ctx: UserContext, input: CreatePageInput): Promise<Page> {
  if (input.type === "database_row" && !input.databaseId) {
    throw badRequest("database_id is required for database rows", { field: "database_id" });
  }
  const { block, schema } = await createTypedBlock(ctx, {
    id: input.id,
    type: input.type,
    title: input.title,
    properties: input.properties ?? {},
    parentId: input.parentId,
    databaseId: input.databaseId,
    teamspaceId: null,
    content: bodyContent(input),
  });
  return presentPage(ctx, block, schema);
}

export interface UpdatePageInput {
  title?: string;
  /** Deep-merged into the stored properties. */
  properties?: Record<string, unknown>;
  /** Replaces the body when given (or with `contentMode` `append`, goes after it). */
  content?: unknown;
  contentMarkdown?: string;
  /**
   * `append`: the given body goes after the stored one (MCP's update_page). PUT only replaces: an
   * append repeated is not the same write, and a PUT must be idempotent (RFC 9110 §9.2.2).
   */
  contentMode?: "replace" | "append";
}

/**
 * PUT semantics of the contract: properties deep-merge (in SQL, in the UPDATE
 * itself, so concurrent writers of different keys never lose each other's
 * changes), content replaces (or is appended, in the same UPDATE).
 */
export async function updatePage(
  ctx: UserContext,
  id: string,
  input: UpdatePageInput,
  preconditions: Preconditions = {},
): Promise<Page> {
  // The page and (for a row) its database's schema in one read: a row's PUT is one read and one write.
  const stored = await findVisibleBlockWithSchema(ctx, id);
  assertPageLike(stored.block);
  const { block, schema } = await updateTypedBlock(
    ctx,
    id,
    { properties: input.properties, title: input.title, content: bodyContent(input), contentMode: input.contentMode },
    stored,
    expectPage(ctx, id, preconditions),
  );
  return presentPage(ctx, block, schema ?? stored.schema);
}

/** Trash by default; `permanent` deletes the page and its subtree for good. */
export async function deletePage(
  ctx: UserContext,
  id: string,
  permanent: boolean,
  preconditions: Preconditions = {},
): Promise<{ trashed: boolean; deletedCount: number; validator?: Validator }> {
  // The page and (for a row) its database's schema in one read, so its new tag needs no read after the write.
  const stored = await findVisibleBlockWithSchema(ctx, id);
  assertPageLike(stored.block);
  const expected = expectPage(ctx, id, preconditions);
  if (permanent) return { trashed: false, deletedCount: await deleteBlock(ctx, id, expected) };
  const trashed = await updateBlock(ctx, id, { inTrash: true }, { expected });
  // Still there, in the trash: its new tag goes with the answer, for a permanent delete that holds
  // only while nobody changed it since.
  const page = await presentPage(ctx, trashed, stored.schema);
  return { trashed: true, deletedCount: 0, validator: validatorOf(page) };
}
