// The byte strings of Web Push as text: base64url (RFC 4648 §5), as browsers give a
// subscription's keys and as VAPID keys are written. Decoding also takes the standard
// alphabet and padding, which some clients send; what is stored and sent is always
// canonical (URL-safe, unpadded).

import { decodeBase64Url, encodeBase64Url } from "../../lib/base64url";

export { decodeBase64Url, encodeBase64Url };

/** Bytes of an uncompressed P-256 point: 0x04, then x and y of 32 bytes each. */
export const P256_POINT_BYTES = 65;
/** Bytes of a subscription's auth secret (RFC 8291 §3.2). */
export const AUTH_SECRET_BYTES = 16;

/** Whether `bytes` is an uncompressed point on P-256 (WebCrypto refuses a point off the curve). */
export async function isP256Point(bytes: Uint8Array): Promise<boolean> {
  if (bytes.length !== P256_POINT_BYTES || bytes[0] !== 0x04) return false;
  try {
    await crypto.subtle.importKey("raw", bytes, { name: "ECDH", namedCurve: "P-256" }, false, []);
    return true;
  } catch {
    return false;
  }
}

/** Why a subscription's keys cannot be used, by field; none when they can. */
export type KeyProblem = { field: "keys.p256dh" | "keys.auth"; reason: string };

/**
 * Checks a subscription's keys as the browser gives them: `p256dh` an uncompressed P-256
 * point (65 bytes, first byte 0x04, on the curve), `auth` 16 bytes. Answers the canonical
 * text of both, or the first problem.
 */
export async function checkSubscriptionKeys(keys: {
  p256dh: string;
  auth: string;
}): Promise<{ ok: true; p256dh: string; auth: string } | { ok: false; problem: KeyProblem }> {
  const point = decodeBase64Url(keys.p256dh);
  if (!point) return { ok: false, problem: { field: "keys.p256dh", reason: "not base64url" } };
  if (point.length !== P256_POINT_BYTES || point[0] !== 0x04) {
    return {
      ok: false,
      problem: {
        field: "keys.p256dh",
        reason: `not an uncompressed P-256 point (${P256_POINT_BYTES} bytes starting 0x04; got ${point.length} bytes)`,
      },
    };
  }
  if (!(await isP256Point(point))) {
    return { ok: false, problem: { field: "keys.p256dh", reason: "not a point on the P-256 curve" } };
  }
  const secret = decodeBase64Url(keys.auth);
  if (!secret) return { ok: false, problem: { field: "keys.auth", reason: "not base64url" } };
  if (secret.length !== AUTH_SECRET_BYTES) {
    return {
      ok: false,
      problem: { field: "keys.auth", reason: `not ${AUTH_SECRET_BYTES} bytes (got ${secret.length})` },
    };
  }
  return { ok: true, p256dh: encodeBase64Url(point), auth: encodeBase64Url(secret) };
}
