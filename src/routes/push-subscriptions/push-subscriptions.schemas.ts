import { z } from "@hono/zod-openapi";
import { PaginationQuery } from "../../lib/pagination";
import { PUSH_SUBSCRIPTION_ID_DESCRIPTION } from "../../openapi/path-params";

const EXAMPLE_SUBSCRIPTION = "9b2f4c1a-6d3e-4f5a-8b7c-0d1e2f3a4b5c";
/** A browser-made subscription's keys (a real P-256 point and a 16-byte secret), for the explorer. */
const EXAMPLE_P256DH = "BGQ1CarrTMDSLaU-PND2Z4E6sPA5nOZmn_d_pZMYaLjQ6X6Qy0loP6WT3LPIIm-YPKobAKULSv6HuWgC5cGIDBk";
const EXAMPLE_AUTH = "UFtLApoAdfDdlnRk21hGmw";
const EXAMPLE_ENDPOINT =
  "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bHk3n9vZ2xYq0L8mT4rS6uV1wX3yZ5aB7cD9eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0kL2mN4oP6q";

/** The longest endpoint accepted: push services' URLs are a few hundred characters. */
export const MAX_ENDPOINT_LENGTH = 2048;
export const MAX_USER_AGENT_LENGTH = 512;
/** The latest instant a JavaScript Date can hold, in epoch milliseconds. */
const MAX_EPOCH_MS = 8.64e15;

export const CreatePushSubscriptionBody = z
  .strictObject({
    endpoint: z
      .string()
      .min(1)
      .max(MAX_ENDPOINT_LENGTH)
      .openapi({
        description: `The push service's URL for this browser (\`PushSubscription.endpoint\`): https to a public DNS name (no IP address, \`localhost\` or internal name), at most ${MAX_ENDPOINT_LENGTH} characters. A loopback host (also over plain http) is accepted only for a push service on this machine, in local development. Stored as it is called: the URL's canonical form (host in lower case), without a fragment; another spelling of a registered endpoint is that subscription`,
        example: EXAMPLE_ENDPOINT,
      }),
    expirationTime: z.number().min(0).max(MAX_EPOCH_MS).nullable().optional().openapi({
      description:
        "When the subscription ends, epoch milliseconds (`PushSubscription.expirationTime`; stored rounded down), or null",
      example: null,
    }),
    keys: z
      .object({
        p256dh: z.string().min(1).max(128).openapi({
          description:
            "The browser's P-256 public key: base64url of its uncompressed point (65 bytes, first byte 0x04, on the curve)",
          example: EXAMPLE_P256DH,
        }),
        auth: z.string().min(1).max(64).openapi({
          description: "The browser's auth secret: base64url of 16 bytes",
          example: EXAMPLE_AUTH,
        }),
      })
      .openapi({
        description: "`PushSubscription.toJSON().keys`: what the payload is encrypted for (RFC 8291)",
        example: { p256dh: EXAMPLE_P256DH, auth: EXAMPLE_AUTH },
      }),
    user_agent: z
      .string()
      .max(MAX_USER_AGENT_LENGTH)
      .nullable()
      .optional()
      .openapi({
        description: `What the client is, to tell a user's browsers apart (e.g. \`navigator.userAgent\`), at most ${MAX_USER_AGENT_LENGTH} characters. Absent or null on a re-registration: the one registered before is kept`,
        example: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
      }),
  })
  .openapi("CreatePushSubscriptionRequest", {
    description: "`PushSubscription.toJSON()` as the browser gives it, with an optional `user_agent`",
    example: {
      endpoint: EXAMPLE_ENDPOINT,
      expirationTime: null,
      keys: { p256dh: EXAMPLE_P256DH, auth: EXAMPLE_AUTH },
      user_agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
    },
  });

export const ListPushSubscriptionsQuery = PaginationQuery.strict();

export const PushSubscriptionIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({
      param: { name: "id", in: "path" },
      description: PUSH_SUBSCRIPTION_ID_DESCRIPTION,
      example: EXAMPLE_SUBSCRIPTION,
    }),
});
