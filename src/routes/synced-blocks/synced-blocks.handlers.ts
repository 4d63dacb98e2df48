import type { RouteHandler } from "@hono/zod-openapi";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import { getLink, linkBlocks, listInstances as listLinks, unlinkInstance } from "../../services/synced-blocks/links";
import { propagate as propagateSource } from "../../services/synced-blocks/propagate";
import type * as routes from "./synced-blocks.routes";

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R]>;

export const create: Handler<"create"> = async (c) => {
  const body = c.req.valid("json");
  const link = await linkBlocks(c.var.ctx, {
    sourceBlockId: body.source_block_id,
    instanceBlockId: body.instance_block_id,
  });
  return c.json(link, 201);
};

export const listInstances: Handler<"listInstances"> = async (c) => {
  const query = c.req.valid("query");
  const window = pageWindow(query);
  const page = await listLinks(c.var.ctx, c.req.valid("param").sourceBlockId, window, query.status);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const getInstance: Handler<"getInstance"> = async (c) =>
  c.json(await getLink(c.var.ctx, c.req.valid("param").instanceBlockId), 200);

export const propagate: Handler<"propagate"> = async (c) =>
  c.json(await propagateSource(c.var.ctx, c.req.valid("param").sourceBlockId), 200);

export const unlink: Handler<"unlink"> = async (c) =>
  c.json(await unlinkInstance(c.var.ctx, c.req.valid("param").instanceBlockId), 200);
