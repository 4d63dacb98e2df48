import type { ApiKeyScope } from "./scopes";

/**
 * Per-isolate memory of API-key lookups (the key as presented → owner, key id and scopes, or
 * "no such key"), so a caller's repeated requests skip the D1 lookup: one round trip instead of
 * two, and no SHA-256 of the key either (about 40 µs of a block read's 300-350 µs of JavaScript
 * in workerd: `npm run bench:js`). The key is held as long as its entry (30 s), in this
 * isolate's memory, which each of its requests brings it into anyway. A remembered key is not
 * trusted to be live: the request's first query checks that itself (auth/credential-liveness.ts),
 * so revoking or expiring a key takes effect at once everywhere. Only the facts that never change
 * for a key are kept here.
 */
export const KEY_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** Whose key it is, as remembered. */
export interface KnownKey {
  userId: string;
  keyId: string;
  scopes: readonly ApiKeyScope[];
}

interface Entry {
  key: KnownKey | null;
  expiresAt: number;
}

const entries = new Map<string, Entry>();

/** The remembered key (`null`: known not to exist), or `undefined` when not remembered. */
export function cachedKey(presented: string): KnownKey | null | undefined {
  const entry = entries.get(presented);
  if (!entry) return undefined;
  if (entry.expiresAt <= Date.now()) {
    entries.delete(presented);
    return undefined;
  }
  return entry.key;
}

export function rememberKey(presented: string, key: KnownKey | null): void {
  // Maps iterate in insertion order: dropping the first entry drops the oldest.
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(presented, { key, expiresAt: Date.now() + KEY_CACHE_TTL_MS });
}
