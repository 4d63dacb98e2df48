import { z } from "@hono/zod-openapi";
import { pageWindow, paginationHeaders, setPaginationHeaders } from "../../lib/pagination";
import { createRouter, defineRoute } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { BacklinkSchema } from "../../schemas/mentions";
import { countBacklinks, listBacklinks } from "../../services/mentions/backlinks";
import { ListQuery, TargetPageParams } from "../mentions/mentions.schemas";

const tags = ["Backlinks"];

const list = defineRoute({
  operationId: "listBacklinks",
  method: "get",
  path: "/api/v1/backlinks/{targetPageId}",
  tags,
  access: "user",
  summary: "Blocks and pages that refer to a page",
  description:
    "The blocks and pages the caller can see whose content mentions the page or links to its id (or that hold an API mention of it), one entry per source block, oldest first, with the source's page and title and a snippet around the reference. Trashed or archived sources (or sources on a trashed or archived page) are not listed; the page's own blocks are not backlinks. Paginated like every listing. A page the caller cannot see is a 404.",
  request: { params: TargetPageParams, query: ListQuery },
  responses: { 200: { ...jsonContent(z.array(BacklinkSchema), "One page of backlinks"), headers: paginationHeaders } },
});

const count = defineRoute({
  operationId: "countBacklinks",
  method: "get",
  path: "/api/v1/backlinks/{targetPageId}/count",
  tags,
  access: "user",
  summary: "How many blocks and pages refer to a page",
  description: "The number of entries the backlinks listing has for the caller. A page the caller cannot see is a 404.",
  request: { params: TargetPageParams },
  responses: {
    200: jsonContent(
      z.object({ count: z.number().int().openapi({ example: 3 }) }).openapi("BacklinkCount"),
      "The count",
    ),
  },
});

export const backlinksRouter = createRouter()
  .openapi(count, async (c) =>
    c.json({ count: await countBacklinks(c.var.ctx, c.req.valid("param").targetPageId) }, 200),
  )
  .openapi(list, async (c) => {
    const window = pageWindow(c.req.valid("query"));
    const page = await listBacklinks(c.var.ctx, c.req.valid("param").targetPageId, window);
    setPaginationHeaders(c, page, window);
    return c.json(page.items, 200);
  });
