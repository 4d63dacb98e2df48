/**
 * Lowercase hex of `bytes` (a digest, a MAC). auth/api-key-format.ts keeps its own: scripts run it
 * by Node directly, so it imports nothing.
 */
export const hexOf = (bytes: ArrayBuffer | Uint8Array): string =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
