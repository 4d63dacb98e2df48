import type { Handler } from "../../openapi/define-route";
import { getSettings, updateSettings } from "../../services/settings/settings";
import type * as routes from "./settings.routes";

export const get: Handler<typeof routes.get> = async (c) => c.json(await getSettings(c.var.ctx), 200);

export const update: Handler<typeof routes.update> = async (c) =>
  c.json(await updateSettings(c.var.ctx, c.req.valid("json")), 200);
