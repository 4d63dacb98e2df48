import { z } from "@hono/zod-openapi";
import { integerParameter } from "../../lib/integer-parameter";
import { PaginationQuery } from "../../lib/pagination";
import { WEBHOOK_ID_DESCRIPTION } from "../../openapi/path-params";
import { CHANGE_EVENT_TYPES } from "../../schemas/changes";
import { MAX_WEBHOOK_URL_LENGTH } from "../../services/webhooks/endpoints";

const EXAMPLE_URL = "https://hooks.example.com/workspace";

const Url = z
  .string()
  .min(1)
  .max(MAX_WEBHOOK_URL_LENGTH)
  .openapi({
    description: `Where deliveries are POSTed: an https URL naming a public DNS name, without credentials or a trailing dot, at most ${MAX_WEBHOOK_URL_LENGTH} characters. An IP address in any spelling, \`localhost\` or an internal name (\`*.localhost\`, \`*.local\`, \`*.internal\`, a single label) is refused (400, \`details.field\` url, \`details.reason\` why). In local development (\`wrangler dev\`, a request from this machine) a loopback host is accepted over plain http too: \`http://127.0.0.1:9000/hooks\`. Stored as it is called: the URL's canonical form (host in lower case), without a fragment`,
    example: EXAMPLE_URL,
  });

const EventTypes = z
  .array(z.enum(CHANGE_EVENT_TYPES))
  .min(1)
  .max(CHANGE_EVENT_TYPES.length)
  .openapi({
    description: `The change log's event types to deliver (${CHANGE_EVENT_TYPES.join(", ")}); absent or null: all of them`,
    example: ["block.created", "block.updated"],
  });

const Description = z
  .string()
  .max(500)
  .openapi({ description: "What it is for, at most 500 characters", example: "Sync to the data warehouse" });

export const CreateWebhookBody = z
  .strictObject({
    url: Url,
    event_types: EventTypes.nullable().optional(),
    description: Description.nullable().optional(),
  })
  .openapi("CreateWebhookRequest", {
    example: {
      url: EXAMPLE_URL,
      event_types: ["block.created", "block.updated"],
      description: "Sync to the data warehouse",
    },
  });

export const UpdateWebhookBody = z
  .strictObject({
    url: Url.optional(),
    event_types: EventTypes.nullable().optional(),
    description: Description.nullable().optional(),
    enabled: z.boolean().optional().openapi({
      description:
        "`true` re-enables a disabled webhook (and forgets its failures); `false` disables it: no new event is delivered to it meanwhile",
      example: true,
    }),
  })
  .openapi("UpdateWebhookRequest", {
    description:
      "An RFC 7396 JSON merge patch: members given replace, `null` removes (`description`; `event_types`: all types again), members absent are kept",
    example: { enabled: true },
  });

export const ListWebhooksQuery = PaginationQuery.strict();
export const ListDeliveriesQuery = PaginationQuery.strict();

const WebhookId = z
  .string()
  .min(1)
  .max(128)
  .openapi({
    param: { name: "id", in: "path" },
    description: WEBHOOK_ID_DESCRIPTION,
    example: "3c2b7f0e-9a4d-4b1e-8f6a-2d5c7e9b1a40",
  });

export const WebhookParams = z.object({ id: WebhookId });

export const DeliveryParams = z.object({
  id: WebhookId,
  delivery_id: integerParameter((integer) => integer.min(1)).openapi({
    param: { name: "delivery_id", in: "path" },
    description: "The `id` of one of the webhook's deliveries (GET .../deliveries)",
    example: 812,
  }),
});
