import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { countBacklinks, listBacklinks } from "../../services/mentions/backlinks";
import {
  createMention,
  deleteMention,
  listBlockMentions,
  listPageMentions,
  syncMentions,
  updateMention,
} from "../../services/mentions/mentions";
import type * as routes from "./mentions.routes";

export const listByBlock: Handler<typeof routes.listByBlock> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listBlockMentions(c.get("ctx"), c.req.valid("param").blockId, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const listByPage: Handler<typeof routes.listByPage> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listPageMentions(c.get("ctx"), c.req.valid("param").pageId, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  c.json(await createMention(c.get("ctx"), c.req.valid("json")), 201);

export const sync: Handler<typeof routes.sync> = async (c) => {
  const { block_id, content } = c.req.valid("json");
  return c.json(await syncMentions(c.get("ctx"), block_id, content), 200);
};

export const update: Handler<typeof routes.update> = async (c) =>
  c.json(await updateMention(c.get("ctx"), c.req.valid("param").id, c.req.valid("json")), 200);

export const remove: Handler<typeof routes.remove> = async (c) => {
  await deleteMention(c.get("ctx"), c.req.valid("param").id);
  return c.json({ success: true, message: "Mention deleted" }, 200);
};

export const backlinks: Handler<typeof routes.backlinks> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listBacklinks(c.get("ctx"), c.req.valid("param").targetPageId, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const backlinkCount: Handler<typeof routes.backlinkCount> = async (c) =>
  c.json({ count: await countBacklinks(c.get("ctx"), c.req.valid("param").targetPageId) }, 200);
