// Signing per Standard Webhooks (https://www.standardwebhooks.com/, "Signature scheme"): a secret is
// `whsec_` + the base64 of its bytes; a message is signed as HMAC-SHA256(secret bytes,
// "{webhook-id}.{webhook-timestamp}.{body}"), sent base64 as `v1,<signature>`; several signatures
// (during a secret rotation) are sent space-separated in one `webhook-signature` header, and a
// receiver accepts the message if any of them verifies.

const SECRET_PREFIX = "whsec_";
/** Bytes of a new secret: within the standard's 24 to 64. */
const SECRET_BYTES = 32;

const base64 = (bytes: Uint8Array): string => {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string =>
  `${SECRET_PREFIX}${base64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;

const secretBytes = (secret: string): Uint8Array =>
  Uint8Array.from(atob(secret.slice(SECRET_PREFIX.length)), (char) => char.charCodeAt(0));

/** One `v1,<base64 HMAC-SHA256>` signature of a message with `secret`. */
export async function signMessage(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", secretBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The `webhook-signature` header: the message signed with each secret, space-separated. */
export async function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => signMessage(secret, id, timestamp, body)));
  return signatures.join(" ");
}
