import { pageWindow, setPaginationHeaders } from "../../lib/pagination";
import type { Handler } from "../../openapi/define-route";
import { listNotifications, markNotificationRead } from "../../services/reminders/notifications";
import type * as routes from "./notifications.routes";

export const list: Handler<typeof routes.list> = async (c) => {
  const { limit, offset, cursor, unread } = c.req.valid("query");
  const window = pageWindow({ limit, offset, cursor });
  const page = await listNotifications(
    c.var.ctx,
    { unread: unread === undefined ? undefined : unread === "true" },
    window,
  );
  setPaginationHeaders(c, page, window);
  return c.json(page.items, 200);
};

export const read: Handler<typeof routes.read> = async (c) =>
  c.json(await markNotificationRead(c.var.ctx, c.req.valid("param").id), 200);
