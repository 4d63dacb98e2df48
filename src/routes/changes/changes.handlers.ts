import { badRequest } from "../../lib/errors";
import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { answerTagged, preconditionsOf } from "../../openapi/entity-tags";
import { expectBlock } from "../../services/blocks/presenter";
import { listChanges } from "../../services/change-log/feed";
import { listBlockHistory, restoreBlockVersion } from "../../services/change-log/history";
import type * as routes from "./changes.routes";

export const feed: Handler<typeof routes.feed> = async (c) => {
  const query = c.req.valid("query");
  if (query.since !== undefined && (query.cursor !== undefined || (query.offset ?? 0) !== 0)) {
    throw badRequest("Give since=now to start, or a cursor (or offset) to continue: not both", {
      parameters: ["since", query.cursor !== undefined ? "cursor" : "offset"],
    });
  }
  const window = pageWindow(query);
  const page = await listChanges(c.get("ctx"), { window, types: query.types, since: query.since });
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const history: Handler<typeof routes.history> = async (c) => {
  const window = pageWindow(c.req.valid("query"));
  const page = await listBlockHistory(c.get("ctx"), c.req.valid("param").id, window);
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const restore: Handler<typeof routes.restore> = async (c) => {
  const { id, event_id: eventId } = c.req.valid("param");
  const block = await restoreBlockVersion(c.get("ctx"), id, eventId, expectBlock(id, preconditionsOf(c)));
  return answerTagged(c, block, 200);
};
