import { encryptNotification, vapidHeaders } from "@block65/webcrypto-web-push";
import { type OutboundUrlProblem, outboundUrlProblem } from "../../lib/address-policy";
import type { RequestContext } from "../../lib/context";
import { allowsLocalShortcuts } from "../../lib/environment";
import { log } from "../../lib/log";
import { callThirdParty, OutboundError } from "../../lib/outbound";
import { vapidKeys } from "./config";
import { checkSubscriptionKeys, encodeBase64Url } from "./encoding";

// Sends one Web Push message (RFC 8030) to one subscription: the payload encrypted for the
// subscription (RFC 8291 aes128gcm) and the request signed with the VAPID key (RFC 8292),
// both by @block65/webcrypto-web-push; the call itself goes through lib/outbound.ts. The
// endpoint is a capability (whoever has it and the keys can push to that browser), so it is
// never logged nor put in an error: log lines name the push service's host only.

/** What sending needs of the work it is done for: a request's context or a background one (alarm, cron). */
export type PushContext = Pick<RequestContext, "signal" | "confirmCaller" | "env" | "local" | "requestId">;

/** A stored subscription: where to send, and the browser's keys (base64url). */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type PushUrgency = "very-low" | "low" | "normal" | "high";

export interface PushMessage {
  /** Sent as JSON: what the service worker's `event.data.json()` reads. At most MAX_PUSH_PAYLOAD_BYTES. */
  payload: unknown;
  /**
   * RFC 8030 Topic: a message still undelivered with the same topic is replaced by this one.
   * 1 to 32 characters of the base64url alphabet; `pushTopic` derives one.
   */
  topic?: string;
  /** How long the push service keeps an undeliverable message, in seconds (default one day; 0: now or never). */
  ttlSeconds?: number;
  /** RFC 8030 Urgency; absent, the push service takes `normal`. */
  urgency?: PushUrgency;
}

/**
 * - `sent`: the push service accepted the message (2xx).
 * - `gone`: the subscription no longer exists (404, 410) or can never be sent to: remove it.
 * - `retry`: anything else (429, 5xx, other statuses, timeout, network): try again later.
 */
export type PushOutcome = { outcome: "sent" | "gone" | "retry"; status: number | null };

/** How long a push service may take to answer. */
export const PUSH_TIMEOUT_MS = 10_000;
/** TTL when the message does not say: one day. */
export const DEFAULT_PUSH_TTL_SECONDS = 24 * 60 * 60;
/**
 * Largest payload, as UTF-8 JSON: the library pads every message to one 4096-byte record
 * (so its size discloses nothing), which leaves this much for the text.
 */
export const MAX_PUSH_PAYLOAD_BYTES = 3993;

const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;
const URGENCIES: readonly PushUrgency[] = ["very-low", "low", "normal", "high"];

/**
 * A valid RFC 8030 topic for one firing of a reminder: 32 base64url characters of the
 * SHA-256 of the reminder id and occurrence, so a resent firing replaces its own undelivered
 * copy and nothing else, and the topic (which push services see) reveals neither.
 */
export async function pushTopic(reminderId: string, occurrence: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`reminder\u0000${reminderId}\u0000${occurrence}`),
  );
  return encodeBase64Url(new Uint8Array(digest)).slice(0, 32);
}

/**
 * Why this endpoint may not be sent to from here, or null when it may: the address policy of
 * every URL a user supplies (lib/address-policy.ts: https to a public DNS name; a loopback host,
 * over http too, during local work). Checked at registration and again before every send, so a
 * subscription stored under an older, looser rule is never called.
 */
export const endpointProblem = (
  ctx: Pick<RequestContext, "env" | "local">,
  url: string | URL,
): OutboundUrlProblem | null => outboundUrlProblem(url, { local: allowsLocalShortcuts(ctx) });

function logPush(ctx: PushContext, level: "warn" | "info", host: string, fields: Record<string, unknown>): void {
  log(ctx, level, "Web Push", { service: "push", push_host: host, ...fields });
}

/** Refuses a message this code should never build (a bug, not a push service's failure). */
function checkMessage(message: PushMessage): Uint8Array {
  if (message.topic !== undefined && !TOPIC.test(message.topic)) {
    throw new TypeError("A push topic is 1 to 32 characters of the base64url alphabet (see pushTopic)");
  }
  const ttl = message.ttlSeconds;
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl >= 0)) {
    throw new TypeError("A push TTL is a whole number of seconds, 0 or more");
  }
  if (message.urgency !== undefined && !URGENCIES.includes(message.urgency)) {
    throw new TypeError(`A push urgency is one of ${URGENCIES.join(", ")}`);
  }
  const json = JSON.stringify(message.payload);
  if (json === undefined) throw new TypeError("A push payload must be serialisable as JSON");
  const bytes = new TextEncoder().encode(json);
  if (bytes.length > MAX_PUSH_PAYLOAD_BYTES) {
    throw new RangeError(
      `A push payload is at most ${MAX_PUSH_PAYLOAD_BYTES} bytes of JSON; this one is ${bytes.length}`,
    );
  }
  return bytes;
}

/**
 * Sends `message` to one subscription and says what became of it. A push service's failure
 * (an error status, a timeout, an unreachable network) is an outcome, never a throw. Throws
 * only for what no retry mends by itself: a message this code should not have built
 * (TypeError, RangeError), VAPID not configured (ApiError `unavailable`, naming the setting),
 * or a caller whose credential was revoked (the 401 of `ctx.confirmCaller`).
 */
export async function sendPush(
  ctx: PushContext,
  subscription: PushTarget,
  message: PushMessage,
  options: { timeoutMs?: number } = {},
): Promise<PushOutcome> {
  const plaintext = checkMessage(message);
  const vapid = await vapidKeys(ctx);

  // A subscription that can never be sent to (no URL, a scheme or host not accepted here,
  // unusable keys: a row not written by the registration route) is as good as gone.
  let url: URL;
  try {
    url = new URL(subscription.endpoint);
  } catch {
    return { outcome: "gone", status: null };
  }
  const host = url.hostname;
  const keys = await checkSubscriptionKeys(subscription);
  if (endpointProblem(ctx, url) !== null || !keys.ok) {
    logPush(ctx, "warn", host, { outcome: "gone", reason: keys.ok ? "endpoint not sendable" : keys.problem.reason });
    return { outcome: "gone", status: null };
  }
  const target = { endpoint: url.href, expirationTime: null, keys: { p256dh: keys.p256dh, auth: keys.auth } };

  const body = await encryptNotification(target, plaintext);
  // The library signs for https endpoints only; a local fake push service on plain http gets a
  // JWT whose audience is the same origin as https (RFC 8292 has no plain-http push services).
  const signFor = url.protocol === "http:" ? { ...target, endpoint: `https://${url.host}${url.pathname}` } : target;
  const { headers: vapidHeader } = await vapidHeaders(signFor, vapid);
  const headers: Record<string, string> = {
    authorization: vapidHeader.authorization,
    "content-encoding": "aes128gcm",
    "content-type": "application/octet-stream",
    ttl: String(message.ttlSeconds ?? DEFAULT_PUSH_TTL_SECONDS),
  };
  if (message.urgency) headers.urgency = message.urgency;
  if (message.topic) headers.topic = message.topic;

  let response: Response;
  try {
    response = await callThirdParty(ctx, "push", url, {
      method: "POST",
      headers,
      body,
      // A push service never redirects; following one would send the request where the endpoint did not say.
      redirect: "manual",
      timeoutMs: options.timeoutMs ?? PUSH_TIMEOUT_MS,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    logPush(ctx, "warn", host, { outcome: "retry", failure: error.failure });
    return { outcome: "retry", status: null };
  }
  const status = response.status;
  // The answer's body is never read (it may echo the endpoint): only the status counts.
  await response.body?.cancel().catch(() => undefined);
  if (status >= 200 && status < 300) return { outcome: "sent", status };
  if (status === 404 || status === 410) {
    logPush(ctx, "info", host, { outcome: "gone", status });
    return { outcome: "gone", status };
  }
  logPush(ctx, "warn", host, { outcome: "retry", status });
  return { outcome: "retry", status };
}
