import { z } from "@hono/zod-openapi";
import { PAGE_MAX_LIMIT, PaginationBody, pageWindow } from "../../lib/pagination";
import { ListBlocksQuery } from "../../routes/blocks/blocks.schemas";
import { listBlocks } from "../../services/blocks/queries";
import { rowTitles } from "../row-titles";
import { blockLabel, searchableText, snippet } from "../text";
import { defineTool } from "../tool";

// Full-text search as GET /api/v1/blocks?q= serves it (the same query, ranked by relevance).

export const searchTool = defineTool({
  name: "search",
  title: "Search the workspace",
  description:
    "Full-text search over the titles, values and bodies of every page, database, row and block the caller can see (each word must occur; the last also as a prefix), most relevant first. Each result has its id, type, title, parent and a snippet of the text around the match: read a page with get_page, a block's surroundings with get_block_tree on its parent.",
  scope: "read",
  input: z.strictObject({ query: ListBlocksQuery.shape.q.unwrap(), limit: PaginationBody.shape.limit }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, { query, limit }) {
    const window = pageWindow({ limit });
    const page = await listBlocks(ctx, { ...window, q: query, archived: false, inTrash: false, sortOrder: "desc" });
    const titles = await rowTitles(ctx, page.items);
    const results = page.items.map((block) => ({
      id: block.id,
      type: block.type,
      title: blockLabel(block, titles.get(block.id)),
      parent_id: block.parent_id,
      database_id: block.database_id,
      snippet: snippet(searchableText(block), query),
    }));
    const lines = results.map(
      (result) =>
        `- ${result.title || "(untitled)"} (${result.type}, id ${result.id}${result.parent_id ? `, in ${result.parent_id}` : ""})\n  ${result.snippet}`,
    );
    const more = !page.hasMore
      ? ""
      : window.limit < PAGE_MAX_LIMIT
        ? `\n(more match: ask for a higher limit, up to ${PAGE_MAX_LIMIT})`
        : "\n(more match: narrow the query)";
    return {
      text: results.length > 0 ? `${lines.join("\n")}${more}` : `Nothing matches "${query}".`,
      structured: { results, has_more: page.hasMore },
    };
  },
});
