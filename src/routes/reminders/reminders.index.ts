import { createRouter } from "../../openapi/define-route";
import * as handlers from "./reminders.handlers";
import * as routes from "./reminders.routes";

// `/due` is declared before `/{reminder_id}` so it is not read as an id.
export const remindersRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.due, handlers.due)
  .openapi(routes.get, handlers.get)
  .openapi(routes.update, handlers.update)
  .openapi(routes.snooze, handlers.snooze)
  .openapi(routes.dismiss, handlers.dismiss)
  .openapi(routes.cancel, handlers.cancel)
  .openapi(routes.notifications, handlers.notifications)
  .openapi(routes.readNotification, handlers.readNotification);
