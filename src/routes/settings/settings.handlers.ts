import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { getSettings, updateSettings } from "../../services/settings/settings";
import type * as routes from "./settings.routes";

export const get: Handler<typeof routes.get> = async (c) => answerTagged(c, await getSettings(c.get("ctx")), 200);

export const update: Handler<typeof routes.update> = async (c) =>
  answerTagged(c, await updateSettings(c.get("ctx"), c.req.valid("json"), preconditionsOf(c)), 200);
