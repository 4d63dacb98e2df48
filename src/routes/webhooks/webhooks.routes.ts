import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { mergePatchBody } from "../../openapi/body-media-type";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { EmptyBody, jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { WebhookDeliverySchema, WebhookSchema, WebhookWithSecretSchema } from "../../schemas/webhooks";
import { MAX_WEBHOOKS_PER_USER, SECRET_GRACE_HOURS } from "../../services/webhooks/endpoints";
import { DELIVERY_TIMEOUT_MS, RETRY_DELAYS_SECONDS } from "../../services/webhooks/sending";
import {
  CreateWebhookBody,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookBody,
  WebhookParams,
} from "./webhooks.schemas";

const tags = ["Webhooks"];
const base = "/api/v1/webhooks";

const OWN_ONLY = "Another user's webhook (or an id that names none) is a 404.";

const retrySchedule = RETRY_DELAYS_SECONDS.map((seconds) =>
  seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${seconds / 60} min` : `${seconds / 3600} h`,
).join(", ");

export const DELIVERY_DESCRIPTION = `Deliveries follow Standard Webhooks (https://www.standardwebhooks.com/): each event the caller may see (as in GET /api/v1/changes: their own objects and shared ones, never another user's) and the webhook's \`event_types\` match is POSTed to its \`url\` as JSON \`{"type", "timestamp", "data"}\`, \`data\` being the change log's event (a ChangeEvent, with the object after the change), with the headers \`webhook-id\` (the event's id: the same on every retry, to drop duplicates), \`webhook-timestamp\` (the attempt's time, Unix seconds) and \`webhook-signature\` (\`v1,\` + the base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{body}\` keyed with the base64-decoded part of the secret after \`whsec_\`; during a secret's rotation two such signatures, space-separated): verify them with a Standard Webhooks library (\`new Webhook(secret).verify(body, headers)\`). Written with the change itself (an outbox in D1) and carried by a Cloudflare Queue: at least once, even if the service stops right after the change. A 2xx answer within ${DELIVERY_TIMEOUT_MS / 1000} s is a success; anything else (another status, a redirect, which is not followed, a timeout, no connection) is retried after ${retrySchedule}, then every 12 h, until three days have passed (then the delivery is \`failed\`). A webhook whose deliveries have all failed for three days is disabled (\`enabled\` false, \`disabled_reason\` says so): PATCH it with \`enabled: true\` to resume. Order: the deliveries of one queue batch are sent in the events' commit order, one endpoint's one after another; between batches and after a retry order is not kept, so order by the event's \`id\` (monotonic). The receiver's body is never read, kept or shown: a delivery records its status code and duration only.`;

export const create = defineRoute({
  operationId: "createWebhook",
  entityTag: "create",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/webhooks/{id}",
  secretResponse: true,
  summary: "Create a webhook",
  description: `Registers an endpoint that receives the change log's events. Answers its signing \`secret\` (\`whsec_\` + base64 of 32 random bytes) this once: no other answer carries it (an \`Idempotency-Key\` retry answers 409 instead of showing it again); rotate it with POST .../rotate-secret. A user may have ${MAX_WEBHOOKS_PER_USER} webhooks (then 409). ${DELIVERY_DESCRIPTION}`,
  request: { body: jsonBody(CreateWebhookBody) },
  responses: {
    201: jsonContent(WebhookWithSecretSchema, "The new webhook, with its secret (shown this once)"),
    409: errorResponse(
      `The caller already has ${MAX_WEBHOOKS_PER_USER} webhooks (\`code\` conflict, \`details.limit\`): delete one first`,
    ),
  },
});

export const list = defineRoute({
  operationId: "listWebhooks",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "The caller's webhooks",
  description:
    "The caller's webhooks, oldest first, without their secrets. Other users' are never listed. Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: ListWebhooksQuery },
  responses: {
    200: { ...jsonContent(z.array(WebhookSchema), "One page of the caller's webhooks"), headers: paginationHeaders },
  },
});

export const get = defineRoute({
  operationId: "getWebhook",
  entityTag: "read",
  method: "get",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "A webhook",
  description: `One of the caller's webhooks, without its secret; \`enabled\` false and \`disabled_reason\` say when it was disabled (by its user, or after three days of failed deliveries). ${OWN_ONLY}`,
  request: { params: WebhookParams },
  responses: { 200: jsonContent(WebhookSchema, "The webhook") },
});

export const update = defineRoute({
  operationId: "updateWebhook",
  entityTag: "write",
  method: "patch",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Change a webhook",
  description: `Applies the body to the webhook as an RFC 7396 JSON merge patch (\`application/json\` or \`application/merge-patch+json\`): \`url\`, \`event_types\` (null: all types), \`description\` (null removes it), \`enabled\` (\`true\` re-enables a disabled webhook and forgets its failures; its pending deliveries are sent again, and events of the time it was disabled are not delivered). A new \`url\` meets the same rules as at creation. One conditional write: with \`If-Match\`, only while the webhook is still that version. ${OWN_ONLY}`,
  request: {
    params: WebhookParams,
    body: mergePatchBody(UpdateWebhookBody, "UpdateWebhookRequest"),
  },
  responses: { 200: jsonContent(WebhookSchema, "The webhook after the patch") },
});

export const remove = defineRoute({
  operationId: "deleteWebhook",
  entityTag: "remove",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Delete a webhook",
  description: `Removes the webhook and its deliveries: nothing more is sent to it, pending deliveries included. ${OWN_ONLY}`,
  request: { params: WebhookParams },
  responses: { 200: jsonContent(SuccessSchema, "Deleted") },
});

export const rotateSecret = defineRoute({
  operationId: "rotateWebhookSecret",
  entityTag: "write",
  method: "post",
  path: `${base}/{id}/rotate-secret`,
  tags,
  access: "user",
  secretResponse: true,
  summary: "Rotate a webhook's secret",
  description: `Makes a new signing secret and answers it this once. The secret it replaces keeps signing for ${SECRET_GRACE_HOURS} hours (until \`previous_secret_expires_at\`): meanwhile every delivery carries two signatures in \`webhook-signature\` (\`v1,<new> v1,<old>\`, as Standard Webhooks allows), so a receiver verifies with either while it switches; then only the new one signs. Rotating again within those hours replaces the older secret. ${OWN_ONLY}`,
  request: { params: WebhookParams, body: jsonBody(EmptyBody, false) },
  responses: { 200: jsonContent(WebhookWithSecretSchema, "The webhook with its new secret (shown this once)") },
});

export const listDeliveries = defineRoute({
  operationId: "listWebhookDeliveries",
  method: "get",
  path: `${base}/{id}/deliveries`,
  tags,
  access: "user",
  summary: "A webhook's deliveries",
  description: `What became of each event sent to the webhook, newest first: \`status\` (pending, succeeded, failed), the last attempt's response status and duration (the receiver's body is never kept), the number of attempts, when it was made, last tried and is tried next. Kept as long as the change log keeps its event (30 days). Paginated like every listing. ${OWN_ONLY}`,
  request: { params: WebhookParams, query: ListDeliveriesQuery },
  responses: {
    200: {
      ...jsonContent(z.array(WebhookDeliverySchema), "One page of the webhook's deliveries, newest first"),
      headers: paginationHeaders,
    },
  },
});

export const retryDelivery = defineRoute({
  operationId: "retryWebhookDelivery",
  method: "post",
  path: `${base}/{id}/deliveries/{delivery_id}/retry`,
  tags,
  access: "user",
  summary: "Send a delivery again",
  description: `Sends the delivery again now, whatever its status: it is pending and enqueued when this answers (202), with the same \`webhook-id\`. Past its three days of retries this is one more attempt. A disabled webhook's delivery is a 409 (re-enable the webhook first). ${OWN_ONLY} A delivery that is not the webhook's is a 404 too.`,
  request: { params: DeliveryParams, body: jsonBody(EmptyBody, false) },
  responses: {
    202: jsonContent(WebhookDeliverySchema, "Enqueued: the delivery as it now is"),
    404: ERROR_RESPONSES[404],
    409: errorResponse("The webhook is disabled (`code` conflict): PATCH it with `enabled: true` first"),
  },
});
