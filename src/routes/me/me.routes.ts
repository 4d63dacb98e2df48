import { defineRoute, ERROR_RESPONSES } from "../../openapi/define-route";
import { jsonContent } from "../../openapi/responses";
import { MeSchema } from "../../schemas/subscriptions";

export const get = defineRoute({
  operationId: "getMe",
  method: "get",
  path: "/api/v1/me",
  tags: ["Account"],
  access: "user",
  summary: "The caller's account and plan",
  description:
    'Who the credential belongs to: id, email, name, `plan` ("free" unless a subscription is active, trialing or past_due) and the subscription\'s state (null when there has never been one). 404 when an app session names a user that no longer exists.',
  responses: { 200: jsonContent(MeSchema, "The caller"), 404: ERROR_RESPONSES[404] },
});
