// base64url (RFC 4648 §5) for bytes: what cursors, Web Push keys and VAPID keys are written in.
// Bytes are turned into text one at a time (never spread into String.fromCharCode(...), whose
// argument count a long value would exceed).

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The bytes of base64url (or base64) text, or null when it is not that. */
export function decodeBase64Url(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  const standard = text.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
  // A length of 1 mod 4 is no whole number of bytes.
  if (standard.length % 4 === 1) return null;
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Canonical base64url: URL-safe alphabet, no padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return urlSafe(btoa(binary));
}

const BEYOND_ASCII = /[^\p{ASCII}]/u;

/**
 * The canonical base64url of text's UTF-8 bytes. ASCII text is its own UTF-8, so it goes to
 * `btoa` as it is: what every entity tag does (ids, times and numbers), read or written.
 */
export function encodeBase64UrlText(text: string): string {
  return !BEYOND_ASCII.test(text) ? urlSafe(btoa(text)) : encodeBase64Url(new TextEncoder().encode(text));
}

const urlSafe = (base64: string): string => base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** Characters of the canonical base64url of `byteCount` bytes. */
export const base64UrlLength = (byteCount: number): number => Math.ceil((byteCount * 4) / 3);
