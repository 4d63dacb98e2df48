// The format of API keys. Imported by the Worker and by scripts/create-key.ts
// (run by Node directly), so it uses only Web Crypto and imports nothing.

export const API_KEY_PREFIX = "sr_";
const RANDOM_BYTES = 32;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const API_KEY_PATTERN = /^sr_[0-9A-Za-z]{32,128}$/;

export interface NewApiKey {
  /** Shown to the caller once, never stored. */
  raw: string;
  /** SHA-256 of `raw`, hex: the lookup key in `api_keys.key_hash`. */
  hash: string;
  /** For masked listings: `sr_abcd` ... `wxyz`. */
  displayPrefix: string;
  displaySuffix: string;
}

/** Base62 text carrying at least `byteCount` bytes of randomness, unbiased (rejection sampling). */
function randomBase62(byteCount: number): string {
  const length = Math.ceil((byteCount * 8) / Math.log2(62));
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Two hex digits per byte value: every request hashes its key, so the digest is spelled by lookup. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export async function hashApiKey(raw: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(raw)));
  let hex = "";
  for (const byte of digest) hex += HEX_BYTES[byte];
  return hex;
}

export const isApiKeyFormat = (token: string): boolean => API_KEY_PATTERN.test(token);

export async function generateApiKey(): Promise<NewApiKey> {
  const raw = API_KEY_PREFIX + randomBase62(RANDOM_BYTES);
  return {
    raw,
    hash: await hashApiKey(raw),
    displayPrefix: raw.slice(0, API_KEY_PREFIX.length + 4),
    displaySuffix: raw.slice(-4),
  };
}
