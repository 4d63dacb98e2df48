import type { Actor } from "../lib/context";
import { boundedSetting } from "../lib/environment";
import { tooManyRequests } from "../lib/errors";
import { POLICY_NAMES, type QuotaCount, type QuotaPolicy } from "../lib/rate-limit-fields";

// Every authenticated request counts against its credential's quota (the "default" policy of the
// RateLimit fields): API_RATE_LIMIT_REQUESTS per API_RATE_LIMIT_WINDOW_SECONDS, enforced by the
// API_RATE_LIMITER binding (Workers Rate Limiting, whose `simple` limit and period wrangler.toml keeps
// equal to those two settings). The binding costs no D1 round trip and no call to another location:
// it counts per Cloudflare location, approximately, and answers only whether a request is admitted.
// So the available quota it cannot tell (`r`) is this isolate's own count subtracted from the quota:
// exact while one isolate serves the credential (wrangler dev, the tests), an upper bound otherwise,
// as the contract says (docs/decisions.md, "Rate limits: per credential").

/** Requests one credential may make per window when API_RATE_LIMIT_REQUESTS is unset. */
export const DEFAULT_API_RATE_LIMIT_REQUESTS = 1200;
/** The window when API_RATE_LIMIT_WINDOW_SECONDS is unset: Workers Rate Limiting counts per 10 or 60 seconds. */
export const DEFAULT_API_RATE_LIMIT_WINDOW_SECONDS = 60;

/** The per-credential policy as configured. */
export function credentialPolicy(env: Env): QuotaPolicy {
  const window = Number(env.API_RATE_LIMIT_WINDOW_SECONDS);
  return {
    name: POLICY_NAMES.credential,
    quota: boundedSetting(env.API_RATE_LIMIT_REQUESTS, DEFAULT_API_RATE_LIMIT_REQUESTS, 1, 1_000_000),
    windowSeconds: window === 10 || window === 60 ? window : DEFAULT_API_RATE_LIMIT_WINDOW_SECONDS,
  };
}

/**
 * Whose quota a request uses: an API key's own (an agent's key hammering the API leaves its user's
 * browser session alone), or, for app sessions, the user's (sessions are minted by signing in
 * again, so one each would be no limit).
 */
const partitionOf = (actor: Actor): string =>
  actor.apiKeyId !== null ? `key:${actor.apiKeyId}` : `user:${actor.userId}`;

/** The window `now` is in (aligned to the clock) and the seconds to its end. */
function windowAt(policy: QuotaPolicy, now: Date): { window: number; resetSeconds: number } {
  const windowMs = policy.windowSeconds * 1000;
  const window = Math.floor(now.getTime() / windowMs);
  return { window, resetSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - now.getTime()) / 1000)) };
}

const partitionKey = (policy: QuotaPolicy, actor: Actor) => `${policy.windowSeconds}|${partitionOf(actor)}`;

/** This isolate's count per credential and window (a window's counts go with the window). */
const counted = new Map<string, { window: number; count: number }>();
/** Past this many credentials counted, entries of ended windows are swept on the next new one. */
const SWEEP_AT = 10_000;

/**
 * Counts one request of `actor` at `now`. Windows are aligned to the clock, as the binding's local
 * simulation counts them. Once this isolate has seen the quota used up in a window it refuses by
 * itself, so a client hammering past its limit costs no binding call either. Null when no
 * API_RATE_LIMITER is bound: then nothing is limited and no RateLimit fields are sent.
 */
export const countCredential = (env: Env, actor: Actor, now: Date): Promise<QuotaCount | null> =>
  countRequests(env, actor, now, 1);

/**
 * Counts `times` more requests of `actor` at `now`, as that many requests would count (an MCP
 * batch's requests past its first). When this isolate has fewer than `times` left in the window,
 * they are refused together with nothing counted, so a batch that cannot fit uses none of what is
 * left. Null when no API_RATE_LIMITER is bound.
 */
export const countCredentialTimes = (env: Env, actor: Actor, now: Date, times: number): Promise<QuotaCount | null> =>
  countRequests(env, actor, now, times);

async function countRequests(env: Env, actor: Actor, now: Date, times: number): Promise<QuotaCount | null> {
  const limiter = env.API_RATE_LIMITER as RateLimit | undefined;
  if (!limiter) return null;
  const policy = credentialPolicy(env);
  const { window, resetSeconds } = windowAt(policy, now);
  const partition = partitionKey(policy, actor);
  const entry = windowCount(partition, window);
  if (entry.count + times > policy.quota) {
    return { policy, admitted: false, remaining: Math.max(0, policy.quota - entry.count), resetSeconds };
  }
  // Taken before the binding is asked, in the same synchronous step as the check: a request of the
  // same credential that arrives while the binding answers finds these counted, so a batch is
  // counted whole or refused whole here, and two requests never both take the last one.
  entry.count += times;
  let admitted: boolean;
  try {
    admitted = await askBinding(limiter, partition, times);
  } catch (error) {
    // Not served: what was taken for it is given back.
    entry.count -= times;
    throw error;
  }
  if (admitted) return { policy, admitted, remaining: Math.max(0, policy.quota - entry.count), resetSeconds };
  // The binding counts every isolate's requests: what it refuses, this isolate refuses until the window ends.
  entry.count = Math.max(entry.count, policy.quota);
  return { policy, admitted, remaining: 0, resetSeconds };
}

/**
 * Whether the binding admits `times` requests of `partition`, asked one at a time and no further
 * once it refuses one (it counts what it admitted: that cannot be given back).
 */
async function askBinding(limiter: RateLimit, partition: string, times: number): Promise<boolean> {
  for (let count = 0; count < times; count++) {
    if (!(await limiter.limit({ key: partition })).success) return false;
  }
  return true;
}

/** This isolate's count of a partition in `window`, started at zero when the window is new. */
function windowCount(partition: string, window: number): { window: number; count: number } {
  const entry = counted.get(partition);
  if (entry && entry.window === window) return entry;
  if (!entry && counted.size >= SWEEP_AT) {
    for (const [key, value] of counted) if (value.window !== window) counted.delete(key);
  }
  const started = { window, count: 0 };
  counted.set(partition, started);
  return started;
}

/** The 429 of a credential past its quota: `Retry-After` is the end of the window. */
export const credentialRefused = (limit: QuotaCount) =>
  tooManyRequests(
    POLICY_NAMES.credential,
    limit.resetSeconds,
    `Too many requests with this credential: at most ${limit.policy.quota} every ${limit.policy.windowSeconds} s`,
  );
