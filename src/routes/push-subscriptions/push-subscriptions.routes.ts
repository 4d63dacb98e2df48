import { z } from "@hono/zod-openapi";
import { paginationHeaders } from "../../lib/pagination";
import { defineRoute, ERROR_RESPONSES, errorResponse } from "../../openapi/define-route";
import { jsonBody, jsonContent, SuccessSchema } from "../../openapi/responses";
import { PushSubscriptionSchema, VapidPublicKeySchema } from "../../schemas/push-subscriptions";
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER } from "../../services/push/subscriptions";
import {
  CreatePushSubscriptionBody,
  ListPushSubscriptionsQuery,
  PushSubscriptionIdParams,
} from "./push-subscriptions.schemas";

const tags = ["Push subscriptions"];
const base = "/api/v1/push-subscriptions";

const NOT_CONFIGURED = errorResponse(
  "Web Push is not configured on this server (`code` unavailable): `details.setting` names what to set (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY or VAPID_SUBJECT)",
);

const oneSubscription = (description: string) => jsonContent(PushSubscriptionSchema, description);

export const create = defineRoute({
  operationId: "createPushSubscription",
  method: "post",
  path: base,
  tags,
  access: "user",
  location: "/api/v1/push-subscriptions/{id}",
  summary: "Register a browser for Web Push",
  description: `Registers the caller's browser to receive reminders by Web Push. Send what \`PushSubscription.toJSON()\` gives after \`PushManager.subscribe({userVisibleOnly: true, applicationServerKey})\` (the key from GET ${base}/vapid-public-key), with an optional \`user_agent\`. \`endpoint\` must be an https URL naming a public DNS name, without credentials or a trailing dot: an IP address in any spelling, \`localhost\` or an internal name (\`*.localhost\`, \`*.local\`, \`*.internal\`, a single label) is refused (400, \`details.field\` endpoint, \`details.reason\` why); \`keys.p256dh\` base64url of an uncompressed P-256 point, 65 bytes starting 0x04 and on the curve; \`keys.auth\` base64url of 16 bytes (400, \`details.field\` keys.p256dh or keys.auth, \`details.reason\` why). Registering an endpoint the caller registered before updates its keys, expiration time and user agent and answers 200 with the same id; a new endpoint answers 201. One atomic upsert, so concurrent registrations of one endpoint make one subscription. A user may have ${MAX_PUSH_SUBSCRIPTIONS_PER_USER}: a new endpoint beyond that is a 409. The keys are stored, never answered.`,
  request: { body: jsonBody(CreatePushSubscriptionBody) },
  responses: {
    200: oneSubscription("The endpoint was already registered by the caller: its keys are updated"),
    201: oneSubscription("The new subscription"),
    409: errorResponse(
      `The caller already has ${MAX_PUSH_SUBSCRIPTIONS_PER_USER} subscriptions (\`code\` conflict, \`details.limit\`): delete one first`,
    ),
  },
});

export const list = defineRoute({
  operationId: "listPushSubscriptions",
  method: "get",
  path: base,
  tags,
  access: "user",
  summary: "The caller's push subscriptions",
  description:
    "The browsers the caller registered for Web Push, oldest first (a client finds its own by `endpoint`). Other users' are never listed. Paginated like every listing: `limit` (default 50; above 100 lowered to 100) and `offset` or `cursor` (the previous page's X-Next-Cursor), with the pagination headers.",
  request: { query: ListPushSubscriptionsQuery },
  responses: {
    200: {
      ...jsonContent(z.array(PushSubscriptionSchema), "One page of the caller's subscriptions"),
      headers: paginationHeaders,
    },
  },
});

export const remove = defineRoute({
  operationId: "deletePushSubscription",
  method: "delete",
  path: `${base}/{id}`,
  tags,
  access: "user",
  summary: "Unregister a browser",
  description:
    "Removes one of the caller's subscriptions, with any push deliveries still owed to it: no further push is sent to that browser. Call it when the user signs out or turns push off (and `PushSubscription.unsubscribe()` in the browser). An id that is not the caller's (another user's, or none) is a 404.",
  request: { params: PushSubscriptionIdParams },
  responses: { 200: jsonContent(SuccessSchema, "Removed"), 404: ERROR_RESPONSES[404] },
});

export const vapidPublicKey = defineRoute({
  operationId: "getVapidPublicKey",
  method: "get",
  path: `${base}/vapid-public-key`,
  tags,
  access: "user",
  summary: "The key to subscribe with",
  description:
    "The server's VAPID public key (RFC 8292), base64url: decode it to bytes and pass it as `applicationServerKey` to `PushManager.subscribe`. Pushes are signed with its private key, so a browser subscribed with another key gets none. A 503 when Web Push is not configured on this server.",
  responses: { 200: jsonContent(VapidPublicKeySchema, "The VAPID public key"), 503: NOT_CONFIGURED },
});
