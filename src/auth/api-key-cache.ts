import type { ApiKeyScope } from "./scopes";

/**
 * Per-isolate memory of API-key lookups (the key as presented → owner, key id and scopes, or
 * "no such key"), so a caller's repeated requests skip the D1 lookup: one round trip instead of
 * two, and no SHA-256 of the key either (about 40 µs of a block read's 300-350 µs of JavaScript
 * in workerd: `npm run bench:js`). The key is held as long as its entry lives (30 s, then until
 * the isolate's next request), in this isolate's memory, which each of its requests brings it
 * into anyway. A remembered key is not trusted to be live: the request's first query checks that
 * itself (auth/credential-liveness.ts), so revoking or expiring a key takes effect at once
 * everywhere. Only the facts that never change for a key are kept here.
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

// In insertion order, which is expiry order: an entry is only ever added anew (a key is remembered
// after a lookup found it absent or expired, and so deleted), always for the same lifetime. (Were
// the clock to step back, an entry could sit behind a later one; it is forgotten once that one is.)
const entries = new Map<string, Entry>();

/**
 * Forgets the entries that have expired, oldest first: on every lookup, so a key is held no
 * longer than its entry's life and the isolate's next request after it. Stops at the first live
 * entry, so a lookup with nothing expired looks at one entry.
 */
function forgetExpired(now: number): void {
  for (const [presented, entry] of entries) {
    if (entry.expiresAt > now) return;
    entries.delete(presented);
  }
}

/** The remembered key (`null`: known not to exist), or `undefined` when not remembered. */
export function cachedKey(presented: string): KnownKey | null | undefined {
  forgetExpired(Date.now());
  return entries.get(presented)?.key;
}

export function rememberKey(presented: string, key: KnownKey | null): void {
  const now = Date.now();
  forgetExpired(now);
  // Dropping the first entry drops the oldest.
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(presented, { key, expiresAt: now + KEY_CACHE_TTL_MS });
}

/** How many keys this isolate holds (expired ones not yet forgotten included): for the tests. */
export const rememberedKeyCount = (): number => entries.size;
