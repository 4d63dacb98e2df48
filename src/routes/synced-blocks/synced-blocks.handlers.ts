import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { getLink, linkBlocks, listInstances as listLinks, unlinkInstance } from "../../services/synced-blocks/links";
import { propagate as propagateSource } from "../../services/synced-blocks/propagate";
import type * as routes from "./synced-blocks.routes";

export const create: Handler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const link = await linkBlocks(c.get("ctx"), {
    sourceBlockId: body.source_block_id,
    instanceBlockId: body.instance_block_id,
  });
  return c.json(link, 201);
};

export const listInstances: Handler<typeof routes.listInstances> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listLinks(c.get("ctx"), c.req.valid("param").sourceBlockId, window, query.status);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const getInstance: Handler<typeof routes.getInstance> = async (c) =>
  c.json(await getLink(c.get("ctx"), c.req.valid("param").instanceBlockId), 200);

export const propagate: Handler<typeof routes.propagate> = async (c) =>
  c.json(await propagateSource(c.get("ctx"), c.req.valid("param").sourceBlockId), 200);

export const unlink: Handler<typeof routes.unlink> = async (c) =>
  c.json(await unlinkInstance(c.get("ctx"), c.req.valid("param").instanceBlockId), 200);
