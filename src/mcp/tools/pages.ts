import { z } from "@hono/zod-openapi";
import type { UserContext } from "../../lib/context";
import { entityTag, parseTagCondition, validatorOf } from "../../lib/entity-tags";
import { CreatePageBody, PageIdParams, UpdatePageBody } from "../../routes/pages/pages.schemas";
import type { Page } from "../../schemas/pages";
import { PAGE_LIKE_TYPES } from "../../services/block-writes/typed-fields";
import { exportMarkdown } from "../../services/exports/export";
import { createPage, getPage, pageTitle, titleText, updatePage } from "../../services/pages/pages";
import { valuesLine } from "../text";
import { defineTool, type ToolOutput } from "../tool";

// Pages as GET/POST/PUT /api/v1/pages and GET /api/v1/pages/{id}/export serve them.

/**
 * A page's fields an agent works with: the body goes as markdown, not as editor items; `etag` is
 * the page's entity tag (as GET /api/v1/pages/{id} answers it), for update_page's `if_match`.
 */
function pageFields(page: Page, title: string) {
  const { content: _body, ...fields } = page;
  const validator = validatorOf(page);
  return { ...fields, title, etag: validator ? entityTag(validator) : null };
}

/** What a write answers: the page's id and title (a row's from its database's title property), where it is, and when it changed. */
async function written(ctx: UserContext, verb: string, page: Page): Promise<ToolOutput> {
  // The write has landed: a row's title the answer cannot read is named by its block's own.
  const title = await pageTitle(ctx, page).catch(() => titleText(page.properties.title));
  const under = page.parent_id ? ` under ${page.parent_id}` : "";
  return {
    text: `${verb} page "${title || "Untitled"}" (id ${page.id})${under}, updated ${page.updated_at}.`,
    structured: pageFields(page, title),
  };
}

export const getPageTool = defineTool({
  name: "get_page",
  title: "Read a page",
  description:
    "One page, database or database row by id: its title, properties (a row's values by column name) and its body as markdown (the page's markdown export: body, then its child blocks, sub-pages as headings), with its child pages listed by id. A database has no markdown body: read its rows with query_database. Another user's page, or an editor block's id, is not found.",
  scope: "read",
  input: z.strictObject({ id: PageIdParams.shape.id }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, { id }) {
    // What GET /api/v1/pages/{id} answers, then what its markdown export writes.
    const page = await getPage(ctx, id);
    const values = page.properties_by_name ? valuesLine(page.properties_by_name) : "";
    if (page.type === "database") {
      const title = titleText(page.properties.title);
      return {
        text: `# ${title || "Untitled"}\n\nA database (id ${page.id}): query its rows with query_database.`,
        structured: { ...pageFields(page, title), markdown: null, child_pages: [] },
      };
    }
    const { markdown, title, tree } = await exportMarkdown(ctx, id);
    const childPages = tree.children
      .filter((child) => PAGE_LIKE_TYPES.has(child.type))
      .map((child) => ({ id: child.id, type: child.type, title: titleText(child.properties.title) }));
    const lines = [
      markdown.trimEnd(),
      "",
      "---",
      `id ${page.id} · ${page.type}${page.parent_id ? ` · parent ${page.parent_id}` : ""} · updated ${page.updated_at}`,
      ...(values ? [`Values: ${values}`] : []),
      ...(childPages.length > 0
        ? [
            "Child pages:",
            ...childPages.map((child) => `- ${child.title || "Untitled"} (${child.type}, id ${child.id})`),
          ]
        : []),
    ];
    return {
      text: lines.join("\n"),
      structured: { ...pageFields(page, title), markdown, child_pages: childPages },
    };
  },
});

export const createPageTool = defineTool({
  name: "create_page",
  title: "Create a page",
  description:
    "Creates a page with a title and, optionally, a markdown body (converted to editor blocks) under a parent page. Answers its id.",
  scope: "write",
  input: z.strictObject({
    title: CreatePageBody.shape.title.unwrap(),
    markdown: CreatePageBody.shape.content_markdown,
    parent_id: CreatePageBody.shape.parent_id,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    // What POST /api/v1/pages does with {type: "page", title, parent_id, content_markdown}.
    const page = await createPage(ctx, {
      type: "page",
      title: input.title,
      parentId: input.parent_id ?? null,
      databaseId: null,
      contentMarkdown: input.markdown,
    });
    return written(ctx, "Created", page);
  },
});

export const updatePageTool = defineTool({
  name: "update_page",
  title: "Change a page",
  description:
    "Changes a page's title and/or body. `mode` `replace`: the markdown becomes the whole body; `append`: it goes after the body, which stays as it is (two appends at once both land). A row's title goes to its title column. With `if_match` (the `etag` get_page answered), the change applies only while the page is still that version: otherwise a precondition_failed error, nothing written (read it again and redo the change).",
  scope: "write",
  input: z.strictObject({
    id: PageIdParams.shape.id,
    title: UpdatePageBody.shape.title,
    markdown: UpdatePageBody.shape.content_markdown,
    mode: z.enum(["replace", "append"]).openapi({
      description: "`replace`: the markdown is the new body; `append`: it is added after the body",
      example: "append",
    }),
    if_match: z.string().max(4096).optional().openapi({
      description:
        "The page's `etag` from get_page or an earlier update (RFC 9110 If-Match): written only while the page is still that version",
      example: '"p.WyIzZjFjOWI3ZSIsMiwiMjAyNi0xMS0yNlQxOTo0MDowMC4wMDBaIixudWxsLG51bGxd"',
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    // What PUT /api/v1/pages/{id} does with {title, content_markdown}; append is the same write's other mode.
    const preconditions = input.if_match ? { ifMatch: parseTagCondition(input.if_match, "if_match") } : {};
    const page = await updatePage(
      ctx,
      input.id,
      { title: input.title, contentMarkdown: input.markdown, contentMode: input.mode },
      preconditions,
    );
    return written(ctx, "Updated", page);
  },
});
