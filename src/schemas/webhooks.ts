import { z } from "@hono/zod-openapi";
import { CHANGE_EVENT_TYPES } from "./changes";

// Webhook endpoints and their deliveries as clients read them (routes/webhooks). Deliveries are the
// change log's events, signed per Standard Webhooks (https://www.standardwebhooks.com/).

const EXAMPLE_WEBHOOK = "3c2b7f0e-9a4d-4b1e-8f6a-2d5c7e9b1a40";
const EXAMPLE_TIME = "2026-11-23T09:30:00.000Z";
const EXAMPLE_URL = "https://hooks.example.com/workspace";
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const WebhookSchema = z
  .object({
    id: z.string().openapi({ example: EXAMPLE_WEBHOOK }),
    url: z.string().openapi({ format: "uri", example: EXAMPLE_URL }),
    description: z.string().nullable().openapi({ example: "Sync to the data warehouse" }),
    event_types: z
      .array(z.enum(CHANGE_EVENT_TYPES))
      .nullable()
      .openapi({
        description: "The change log's event types delivered to this endpoint; null: all of them",
        example: ["block.created", "block.updated"],
      }),
    enabled: z.boolean().openapi({
      description:
        "False when turned off by PATCH or by the service after three days of failed deliveries (`disabled_reason` says which); a disabled endpoint gets no new events until PATCHed with `enabled: true`",
      example: true,
    }),
    disabled_reason: z.string().nullable().openapi({
      description: "Why it is disabled (null while enabled)",
      example: null,
    }),
    disabled_at: z.string().nullable().openapi({ format: "date-time", example: null }),
    previous_secret_expires_at: z.string().nullable().openapi({
      format: "date-time",
      description:
        "After a secret rotation: until when deliveries are also signed with the previous secret (a second `v1,` signature in `webhook-signature`); null when only the current secret signs",
      example: null,
    }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    updated_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
  })
  .openapi("Webhook", {
    description: "An endpoint that receives the change log's events the caller may see, signed per Standard Webhooks",
  });
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().openapi({
    description:
      "The signing secret (Standard Webhooks: `whsec_` + base64 of 32 random bytes). Shown this once: no GET answers it. Give it to a Standard Webhooks verifier (`new Webhook(secret)` of the `standardwebhooks` package)",
    example: EXAMPLE_SECRET,
  }),
}).openapi("WebhookWithSecret", { description: "A webhook with its signing secret, answered once" });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

export const WebhookDeliverySchema = z
  .object({
    id: z
      .number()
      .int()
      .openapi({ description: "Monotonic per service: a later delivery has a larger id", example: 812 }),
    webhook_id: z.string().openapi({ example: EXAMPLE_WEBHOOK }),
    event_id: z.number().int().openapi({
      description: "The change log event delivered (its `id`, also the delivery's `webhook-id` header)",
      example: 4711,
    }),
    event_type: z.enum(CHANGE_EVENT_TYPES).openapi({ example: "block.updated" }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).openapi({
      description:
        "`pending`: not yet delivered (being retried, or waiting for its first attempt); `succeeded`: the endpoint answered 2xx; `failed`: retries spanned three days without a 2xx",
      example: "succeeded",
    }),
    attempts: z.number().int().openapi({ description: "How many times it was sent", example: 1 }),
    response_status: z.number().int().nullable().openapi({
      description: "The HTTP status of the last attempt; null when none answered (see `last_error`)",
      example: 200,
    }),
    response_duration_ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "How long the last attempt took", example: 84 }),
    last_error: z.enum(["timeout", "network", "redirect", "status", "gone"]).nullable().openapi({
      description:
        "Why the last attempt failed: `timeout` (no answer within 10 s), `network` (no connection), `redirect` (a 3xx: redirects are not followed), `status` (a non-2xx status), `gone` (the event is no longer kept, or the URL is no longer allowed); null after a success",
      example: null,
    }),
    created_at: z.string().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    last_attempt_at: z.string().nullable().openapi({ format: "date-time", example: EXAMPLE_TIME }),
    next_attempt_at: z.string().nullable().openapi({
      format: "date-time",
      description: "When it is sent next (pending only); null once it succeeded or failed",
      example: null,
    }),
  })
  .openapi("WebhookDelivery", {
    description: "One event's delivery to one webhook: what became of it. The receiver's body is never kept.",
  });
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
