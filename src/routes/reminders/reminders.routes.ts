import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonBody, jsonContent } from "../../openapi/responses";
import {
  CancelReminderBody,
  CreateReminderBody,
  DismissReminderBody,
  NotificationSchema,
  ReminderSchema,
  SnoozeReminderBody,
  UpdateReminderBody,
} from "../../schemas/reminders";
import {
  DueRemindersQuery,
  ListNotificationsQuery,
  ListRemindersQuery,
  MarkNotificationReadBody,
  NotificationIdParams,
  ReminderIdParams,
} from "./reminders.schemas";

const tags = ["Reminders"];
const base = "/api/v1/reminders";

const PERSONAL = "Reminders are personal: only the caller's own exist for them (another user's reminder is a 404).";
const LISTING =
  "Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.";
const ENDED = "A reminder that has ended (dismissed, cancelled or completed) answers 409 with `details.status`.";

const oneReminder = (description: string) => jsonContent(ReminderSchema, description);
const listing = (description: string) => ({
  ...jsonContent(z.array(ReminderSchema), description),
  headers: paginationHeaders,
});

export const list = defineRoute({
  operationId: "listReminders",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "List reminders",
  description: `The caller's reminders ordered by \`remind_at\`, filtered by \`status\`, \`target_block_id\` and a \`from\`/\`to\` window on \`remind_at\`. ${LISTING}`,
  request: { query: ListRemindersQuery },
  responses: { 200: listing("One page of the caller's reminders") },
});

export const create = defineRoute({
  operationId: "createReminder",
  entityTag: "create",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/reminders/{id}",
  summary: "Create a reminder",
  description: `A reminder on a database row's date property. \`target_block_id\` must be a row the caller can see and that is active (404, \`details.field\`), \`source_property_id\` a date property of its database (400), \`timezone\` an IANA name (400), every instant between 1970 and 2099. The caller's ReminderQueue fires it at \`remind_at\` (every occurrence, for a \`recurrence_rule\`, computed in \`timezone\`): into the inbox (GET /api/v1/notifications), and by Web Push on the \`push\` channel. A one-off \`remind_at\` in the past fires at once; a repeating reminder starts at its first occurrence from now. One reminder per \`metadata.schedule_id\` and user: creating another with the same schedule id updates that one and answers 200, even when two creates race. Its state is kept when the schedule (start, zone and rule) is unchanged, so re-sending a date property's reminders neither fires them again nor brings back a dismissed one; a changed schedule re-arms it. A reminder whose row is in the trash or archived (or whose date property is gone) when it comes due delivers nothing: a one-off ends \`cancelled\`, a repeating one waits for its next occurrence. ${PERSONAL}`,
  request: { body: jsonBody(CreateReminderBody) },
  responses: {
    201: oneReminder("The new reminder"),
    200: oneReminder("The live reminder with the same `metadata.schedule_id`, updated"),
    404: ERROR_RESPONSES[404],
  },
});

export const due = defineRoute({
  operationId: "listDueReminders",
  method: "get",
  path: `${base}/due`,
  tags,
  access: "user",
  summary: "List due reminders",
  description: `The caller's reminders whose time has come by \`before\` (default now; inclusive): \`remind_at\` at or before it, not snoozed past it, and not dismissed, cancelled or completed. Oldest first. ${LISTING}`,
  request: { query: DueRemindersQuery },
  responses: { 200: listing("One page of due reminders") },
});

export const get = defineRoute({
  operationId: "getReminder",
  entityTag: "read",
  method: "get",
  path: `${base}/{reminder_id}`,
  tags,
  access: "user",
  summary: "Get a reminder",
  description: `One of the caller's reminders. ${PERSONAL}`,
  request: { params: ReminderIdParams },
  responses: { 200: oneReminder("The reminder") },
});

export const update = defineRoute({
  operationId: "updateReminder",
  entityTag: "write",
  method: "put",
  path: `${base}/{reminder_id}`,
  tags,
  access: "user",
  summary: "Update a reminder",
  description: `Replaces the fields given (at least one; the others keep their values). A \`remind_at\` at another instant restarts the schedule from it (state \`scheduled\`, snooze cleared, as a new reminder would be). A changed \`timezone\` or \`recurrence_rule\` keeps the series' start (unless the rule names a new \`anchor_at\`) and goes on from the current occurrence, or after it once it has fired (a completed series starts again). Other fields keep the state. A new target is checked as on create. Dismissed and cancelled reminders cannot be changed (409). A \`metadata.schedule_id\` another reminder of the caller has is a 409. ${PERSONAL}`,
  request: { params: ReminderIdParams, body: jsonBody(UpdateReminderBody) },
  responses: { 200: oneReminder("The updated reminder"), 404: ERROR_RESPONSES[404], 409: ERROR_RESPONSES[409] },
});

export const snooze = defineRoute({
  operationId: "snoozeReminder",
  entityTag: "write",
  method: "post",
  path: `${base}/{reminder_id}/snooze`,
  tags,
  access: "user",
  summary: "Snooze a reminder",
  description: `Fires the reminder again at \`until\` (an instant in the future) or \`minutes\` from now: exactly one of the two (400 otherwise). State \`snoozed\`; occurrences of a repeating reminder that fall before \`until\` fold into that firing, later ones follow as usual. Snoozing again moves the time. A reminder still waiting for its time cannot be snoozed to before it (400: a snooze reminds later, not earlier; PUT a new \`remind_at\` instead). ${ENDED} ${PERSONAL}`,
  request: { params: ReminderIdParams, body: jsonBody(SnoozeReminderBody) },
  responses: { 200: oneReminder("The snoozed reminder"), 409: ERROR_RESPONSES[409] },
});

export const dismiss = defineRoute({
  operationId: "dismissReminder",
  entityTag: "write",
  method: "post",
  path: `${base}/{reminder_id}/dismiss`,
  tags,
  access: "user",
  summary: "Dismiss a reminder",
  description: `\`scope\` \`occurrence\`: the current occurrence is done (skipped if it has not fired yet); a one-off reminder becomes \`dismissed\`, a repeating one \`scheduled\` at its next occurrence after now (\`completed\` when its series has none left). \`scope\` \`series\`: the reminder ends (\`dismissed\`). Any other scope is a 400. Dismissing a dismissed reminder answers it as it is; a cancelled or completed one is a 409. ${PERSONAL}`,
  request: { params: ReminderIdParams, body: jsonBody(DismissReminderBody) },
  responses: { 200: oneReminder("The dismissed reminder"), 409: ERROR_RESPONSES[409] },
});

export const cancel = defineRoute({
  operationId: "cancelReminder",
  entityTag: "write",
  method: "post",
  path: `${base}/{reminder_id}/cancel`,
  tags,
  access: "user",
  summary: "Cancel a reminder",
  description: `Ends the reminder (\`cancelled\`): nothing more fires. Cancelling a cancelled reminder answers it as it is; a dismissed or completed one is a 409. ${PERSONAL}`,
  request: { params: ReminderIdParams, body: jsonBody(CancelReminderBody, false) },
  responses: { 200: oneReminder("The cancelled reminder"), 409: ERROR_RESPONSES[409] },
});

// The in-app inbox: a notification is what a reminder's firing leaves for its user.
const notificationTags = ["Notifications"];
const notificationBase = "/api/v1/notifications";

export const notifications = defineRoute({
  operationId: "listNotifications",
  method: "get",
  path: notificationBase,
  tags: notificationTags,
  access: "user",
  summary: "The in-app inbox",
  description:
    "The caller's notifications, newest first: one per reminder firing, whatever the reminder's channel. On the `push` channel, `push` counts the Web Push deliveries to the caller's subscriptions (pending ones are retried with backoff). Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: ListNotificationsQuery },
  responses: {
    200: { ...jsonContent(z.array(NotificationSchema), "One page of notifications"), headers: paginationHeaders },
  },
});

export const readNotification = defineRoute({
  operationId: "markNotificationRead",
  method: "post",
  path: `${notificationBase}/{id}/read`,
  tags: notificationTags,
  access: "user",
  summary: "Mark a notification read",
  description:
    "Sets `read_at`; a notification already read keeps its first `read_at` (200). Another user's notification is a 404.",
  request: { params: NotificationIdParams, body: jsonBody(MarkNotificationReadBody, false) },
  responses: { 200: jsonContent(NotificationSchema, "The notification") },
});
