import { z } from "@hono/zod-openapi";

// The PushSubscription resource (a browser's Web Push subscription as registered here): the
// one zod source of its TypeScript type, its OpenAPI component, and the type tests use.
// Its keys (p256dh, auth) are written, never read back: the browser that registered them has
// them, and nothing else needs them.

const EXAMPLE_ENDPOINT =
  "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bHk3n9vZ2xYq0L8mT4rS6uV1wX3yZ5aB7cD9eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0kL2mN4oP6q";

export const PushSubscriptionSchema = z
  .object({
    id: z.string().openapi({
      description: "This registration's id: what DELETE takes",
      example: "9b2f4c1a-6d3e-4f5a-8b7c-0d1e2f3a4b5c",
    }),
    endpoint: z.string().openapi({
      description: "The push service's URL for this browser, as registered",
      example: EXAMPLE_ENDPOINT,
    }),
    expiration_time: z.number().int().nullable().openapi({
      description: "When the browser said the subscription ends (epoch milliseconds), or null: most never do",
      example: null,
    }),
    user_agent: z.string().nullable().openapi({
      description: "What the client said it is, to tell a user's browsers apart; null when it did not say",
      example: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
    }),
    created_at: z.string().openapi({
      format: "date-time",
      description: "When this endpoint was first registered (a re-registration keeps it)",
      example: "2026-11-23T09:30:00.000Z",
    }),
  })
  .openapi("PushSubscription");

export type PushSubscription = z.infer<typeof PushSubscriptionSchema>;

export const VapidPublicKeySchema = z
  .object({
    public_key: z.string().openapi({
      description:
        "The VAPID public key, base64url of an uncompressed P-256 point (65 bytes): pass it, decoded to bytes, as `applicationServerKey` to PushManager.subscribe",
      example: "BFUoEVJIcY7g_k2nF5uYAoee9Xi5h_2s9frD9oLCCE_1iyF3CAdq7JhN8TEZGcm4i-XglcI1qI0RlI4UavDQl_k",
    }),
  })
  .openapi("VapidPublicKey");

export type VapidPublicKey = z.infer<typeof VapidPublicKeySchema>;
