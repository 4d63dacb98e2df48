import type { RequestContext } from "../lib/context";

// `last_used_at` of API keys: written at most once a minute per key, once the
// request's work is done (waitUntil), so it never costs the request a round trip. This isolate
// remembers when it last wrote each key; the UPDATE itself is conditional too, so
// many isolates together still write a key at most about once a minute.

export const KEY_USAGE_INTERVAL_MS = 60_000;
const MAX_REMEMBERED = 10_000;
const lastWritten = new Map<string, number>();

export function noteKeyUsed(ctx: RequestContext, keyId: string): void {
  const now = ctx.now();
  const at = now.getTime();
  const previous = lastWritten.get(keyId);
  if (previous !== undefined && at - previous < KEY_USAGE_INTERVAL_MS) return;
  if (lastWritten.size >= MAX_REMEMBERED) lastWritten.delete(lastWritten.keys().next().value as string);
  lastWritten.set(keyId, at);
  const staleBefore = new Date(at - KEY_USAGE_INTERVAL_MS).toISOString();
  // The binding itself, not ctx.db: this is not the request's work and is not metered.
  const write = ctx.env.DB.prepare(
    `UPDATE api_keys SET last_used_at = ?1
     WHERE id = ?2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?1)
       AND (last_used_at IS NULL OR last_used_at <= ?3)`,
  )
    .bind(now.toISOString(), keyId, staleBefore)
    .run();
  ctx.waitUntil(write);
}
