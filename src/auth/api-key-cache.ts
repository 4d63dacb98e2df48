/**
 * Per-isolate memory of API-key lookups (key hash → owner, or "no such key"),
 * so a caller's repeated requests skip the D1 lookup: one round trip instead
 * of two. Entries live KEY_CACHE_TTL_MS, so a revoked key can go on working
 * for at most that long in isolates that had just seen it.
 */
export const KEY_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  userId: string | null;
  expiresAt: number;
}

const entries = new Map<string, Entry>();

/** The remembered owner (`null`: known not to exist), or `undefined` when not remembered. */
export function cachedKeyOwner(keyHash: string): string | null | undefined {
  const entry = entries.get(keyHash);
  if (!entry) return undefined;
  if (entry.expiresAt <= Date.now()) {
    entries.delete(keyHash);
    return undefined;
  }
  return entry.userId;
}

export function rememberKeyOwner(keyHash: string, userId: string | null): void {
  // Maps iterate in insertion order: dropping the first entry drops the oldest.
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(keyHash, { userId, expiresAt: Date.now() + KEY_CACHE_TTL_MS });
}
