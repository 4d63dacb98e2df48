import type { Handler } from "../../openapi/define-route";
import { readMe } from "../../services/payments/subscriptions";
import type * as routes from "./me.routes";

export const get: Handler<typeof routes.get> = async (c) => c.json(await readMe(c.var.ctx), 200);
