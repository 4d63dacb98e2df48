// The signature of a webhook request, so the notes tool can tell a note came from this service and
// was not replayed much later. Over the timestamp and the body exactly as sent:
//
//   X-Notes-Timestamp: <Unix seconds>
//   X-Notes-Signature: sha256=<lower-case hex of HMAC-SHA256(NOTES_WEBHOOK_SECRET, "<timestamp>.<body>")>
//
// The receiver recomputes it over the raw body it received, compares in constant time, and refuses
// a timestamp more than 5 minutes from its clock (the scheme of Stripe's and Slack's webhooks).

import { hexOf } from "../../lib/hex";

export const TIMESTAMP_HEADER = "X-Notes-Timestamp";
export const SIGNATURE_HEADER = "X-Notes-Signature";
export const SIGNATURE_PREFIX = "sha256=";

const encoder = new TextEncoder();

/** `sha256=<hex>` of HMAC-SHA256 with `secret` over `<timestamp>.<body>` (UTF-8). */
export async function signNotesRequest(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return SIGNATURE_PREFIX + hexOf(await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${body}`)));
}
