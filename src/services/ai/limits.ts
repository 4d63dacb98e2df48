import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RequestContext, UserContext } from "../../lib/context";
import { boundedSetting } from "../../lib/environment";
import { badRequest, tooManyRequests } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { describeError, log } from "../../lib/log";
import { POLICY_NAMES } from "../../lib/rate-limit-fields";
import { TOTAL_TIMEOUT_MS } from "./completion";
import type { CompletionRequest, ProviderTarget } from "./types";

// What one user may spend of the server's money on AI streams: a rate (AI_STREAM_LIMITER, Workers
// Rate Limiting), a number of streams at once (leases in D1, exact across isolates) and a ceiling
// on each answer's tokens (AI_MAX_OUTPUT_TOKENS). They apply whenever the server's resources do
// the work: its own provider key, or its openai-compatible model server (the operator's machine),
// whatever key the caller sends it. A caller's own `apiKey` to a named provider pays for itself
// and is not limited here (docs/decisions.md, AI providers: limits).

/** Longest answer of a server-paid stream when AI_MAX_OUTPUT_TOKENS is unset. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** Server-paid streams one user may run at once when AI_MAX_CONCURRENT_STREAMS is unset. */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 3;
/** The period of AI_STREAM_LIMITER (wrangler.toml), sent as `Retry-After` past its rate. */
export const STREAM_RATE_PERIOD_SECONDS = 60;
/** `Retry-After` past the concurrency cap: a hint to try again soon, since no one knows when a running stream ends. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 10;
/**
 * How long a lease counts: a stream's longest life (the provider's whole answer) and a margin for
 * the audit write after it. A Worker that dies mid-stream never deletes its lease; this frees it.
 */
export const LEASE_MS = TOTAL_TIMEOUT_MS + 60_000;

/**
 * Whether the server pays for a call: its own key, or its openai-compatible server whatever key
 * the caller sends (the operator's model server does the work; a caller's key there only opens it).
 */
export const serverPays = (target: ProviderTarget): boolean =>
  target.source !== "caller" || target.provider === "openai-compatible";

/** What a refused caller may do besides waiting: on a named provider, bring their own key. */
const ownKeyHint = (target: ProviderTarget): string =>
  target.provider === "openai-compatible" ? "" : ", or send your own apiKey";

export const maxOutputTokens = (ctx: Pick<RequestContext, "env">): number =>
  boundedSetting(ctx.env.AI_MAX_OUTPUT_TOKENS, DEFAULT_MAX_OUTPUT_TOKENS, 1, 1_000_000);

export const maxConcurrentStreams = (ctx: Pick<RequestContext, "env">): number =>
  boundedSetting(ctx.env.AI_MAX_CONCURRENT_STREAMS, DEFAULT_MAX_CONCURRENT_STREAMS, 1, 100);

/**
 * The call as it may run: when the server pays, `maxTokens` is the ceiling when absent, and a
 * larger one is a 400 naming the ceiling (never quietly lowered: an answer cut short by a limit
 * the caller did not ask for would look like its own). A call the caller pays for is not touched.
 */
export function withinTokenCeiling(
  ctx: Pick<RequestContext, "env">,
  call: CompletionRequest,
  target: ProviderTarget,
): CompletionRequest {
  if (!serverPays(target)) return call;
  const ceiling = maxOutputTokens(ctx);
  if (call.maxTokens === undefined) return { ...call, maxTokens: ceiling };
  if (call.maxTokens > ceiling) {
    throw badRequest(
      `max_tokens is at most ${ceiling} on this server's resources: ask for fewer${ownKeyHint(target)}`,
      {
        field: "max_tokens",
        maximum: ceiling,
      },
    );
  }
  return call;
}

/** A running server-paid stream's slot; `release` frees it when the stream ends. */
export interface StreamLease {
  release(): Promise<void>;
}

/**
 * Admits a server-paid stream, or refuses it with a 429 (`Retry-After`): past the user's rate
 * (AI_STREAM_LIMITER, counted per user), or with AI_MAX_CONCURRENT_STREAMS of their streams
 * already running. The slot is taken by one statement that inserts a lease only while the user's
 * live leases are under the cap (D1 runs statements one at a time, so concurrent requests in any
 * isolate cannot both take the last slot); the same batch first sweeps expired leases. A call the
 * caller pays for (their own key to a named provider) is admitted without either (null).
 */
export async function admitStream(ctx: UserContext, target: ProviderTarget): Promise<StreamLease | null> {
  if (!serverPays(target)) return null;
  const userId = ctx.actor.userId;
  const limiter = ctx.env.AI_STREAM_LIMITER as RateLimit | undefined;
  if (limiter) {
    const { success } = await limiter.limit({ key: `ai-stream|user:${userId}` });
    if (!success) {
      throw tooManyRequests(
        POLICY_NAMES.aiStreams,
        STREAM_RATE_PERIOD_SECONDS,
        `Too many AI streams on this server's resources: retry later${ownKeyHint(target)}`,
        { limit: "rate" },
      );
    }
  }
  const cap = maxConcurrentStreams(ctx);
  const now = ctx.now().getTime();
  const id = newId();
  const [, taken] = await batchAll<[unknown, { id: string }]>(ctx.db, [
    sql`DELETE FROM ai_stream_leases WHERE expires_at <= ${now}`,
    sql`INSERT INTO ai_stream_leases (id, user_id, expires_at)
      SELECT ${id}, ${userId}, ${now + LEASE_MS}
      WHERE (SELECT count(*) FROM ai_stream_leases WHERE user_id = ${userId} AND expires_at > ${now}) < ${cap}
      RETURNING id`,
  ]);
  if (taken.length === 0) {
    throw tooManyRequests(
      POLICY_NAMES.aiConcurrentStreams,
      CONCURRENCY_RETRY_AFTER_SECONDS,
      `At most ${cap} AI streams on this server's resources may run at once: wait for one to end${ownKeyHint(target)}`,
      { limit: "concurrency", max_concurrent_streams: cap },
    );
  }
  return {
    release: async () => {
      const released = ctx.db
        .run(sql`DELETE FROM ai_stream_leases WHERE id = ${id}`)
        .then(() => undefined)
        .catch((error: unknown) => {
          // The lease expires by itself; the slot is only held longer than it needed to be.
          log(ctx, "error", "a stream lease could not be released", { service: "ai", error: describeError(error) });
        });
      ctx.waitUntil(released);
      await released;
    },
  };
}
