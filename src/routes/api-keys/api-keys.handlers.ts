import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { createApiKey, listApiKeys, renameApiKey, revokeApiKey } from "../../services/api-keys/api-keys";
import type * as routes from "./api-keys.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listApiKeys(c.get("ctx"), window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const create: Handler<typeof routes.create> = async (c) =>
  c.json(await createApiKey(c.get("ctx"), c.req.valid("json")), 201);

export const rename: Handler<typeof routes.rename> = async (c) =>
  c.json(await renameApiKey(c.get("ctx"), c.req.valid("param").id, c.req.valid("json").name), 200);

export const revoke: Handler<typeof routes.revoke> = async (c) => {
  await revokeApiKey(c.get("ctx"), c.req.valid("param").id);
  return c.json({ success: true, message: "API key revoked" }, 200);
};
