import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { pushSubscriptions } from "../../db/schema";
import { calledUrl, OUTBOUND_URL_PROBLEMS } from "../../lib/address-policy";
import type { UserContext } from "../../lib/context";
import { badRequest, conflict, notFound, unauthorized } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { PushSubscription } from "../../schemas/push-subscriptions";
import { checkSubscriptionKeys } from "./encoding";
import { endpointProblem } from "./web-push";

export type { PushSubscription };

// A user's browsers, as Web Push subscriptions: registered (or registered again) by the
// browser, listed and removed by their user only. Each request is one D1 round trip, its
// write one statement: the registration an upsert on (user_id, endpoint), so two concurrent
// registrations of one endpoint make one row; a removal a DELETE conditioned on the owner
// (another user's id is a 404, as if it did not exist). Keys are stored canonical (base64url, unpadded) and never
// answered.

/** Subscriptions one user may have: their browsers and devices, with room for stale ones. */
export const MAX_PUSH_SUBSCRIPTIONS_PER_USER = 50;

/** The stored columns a client sees. */
type SubscriptionRecord = Pick<
  RawRow<typeof pushSubscriptions>,
  "id" | "endpoint" | "expiration_time" | "user_agent" | "created_at"
>;

const COLUMNS = sql`id, endpoint, expiration_time, user_agent, created_at`;

const present = (record: SubscriptionRecord): PushSubscription => ({
  id: record.id,
  endpoint: record.endpoint,
  expiration_time: record.expiration_time,
  user_agent: record.user_agent,
  created_at: record.created_at,
});

/** What the browser's `PushSubscription.toJSON()` gives, plus what the client says it is. */
export interface RegisterPushSubscriptionInput {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
  user_agent?: string | null;
}

const invalid = (field: string, reason: string) => badRequest(`Invalid ${field}: ${reason}`, { field, reason });

/** The endpoint as it is called (`calledUrl`), when push can be sent to it from here; a 400 naming `endpoint` and the reason otherwise. */
function checkEndpoint(ctx: UserContext, endpoint: string): string {
  const problem = endpointProblem(ctx, endpoint);
  if (problem !== null) throw invalid("endpoint", OUTBOUND_URL_PROBLEMS[problem]);
  return calledUrl(endpoint);
}

/**
 * Registers the caller's browser, or registers it again: one upsert on (user, endpoint).
 * A new endpoint is a new row (`created`); a known one gets the keys, expiration time and
 * (when given) user agent sent now, keeping its id and `created_at`. A new endpoint beyond
 * MAX_PUSH_SUBSCRIPTIONS_PER_USER is a 409 (the count is read by the same statement); an app
 * session whose user no longer exists registers nothing (401).
 */
export async function registerPushSubscription(
  ctx: UserContext,
  input: RegisterPushSubscriptionInput,
): Promise<{ subscription: PushSubscription; created: boolean }> {
  const endpoint = checkEndpoint(ctx, input.endpoint);
  const keys = await checkSubscriptionKeys(input.keys);
  if (!keys.ok) throw invalid(keys.problem.field, keys.problem.reason);
  const id = newId();
  const userId = ctx.actor.userId;
  const expiration = input.expirationTime == null ? null : Math.floor(input.expirationTime);
  const [users, rows] = await batchAll<[{ found: number }, SubscriptionRecord]>(ctx.db, [
    // Read in the same batch, to explain a refusal: an app session can outlive its user.
    sql`SELECT 1 AS found FROM users WHERE id = ${userId}`,
    sql`INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, expiration_time, user_agent, created_at)
      SELECT ${id}, ${userId}, ${endpoint}, ${keys.p256dh}, ${keys.auth}, ${expiration}, ${input.user_agent ?? null},
        ${ctx.now().toISOString()}
      WHERE EXISTS (SELECT 1 FROM users WHERE id = ${userId})
        AND ((SELECT count(*) FROM push_subscriptions WHERE user_id = ${userId}) < ${MAX_PUSH_SUBSCRIPTIONS_PER_USER}
          OR EXISTS (SELECT 1 FROM push_subscriptions WHERE user_id = ${userId} AND endpoint = ${endpoint}))
      ON CONFLICT (user_id, endpoint) DO UPDATE SET
        p256dh = excluded.p256dh,
        auth = excluded.auth,
        expiration_time = excluded.expiration_time,
        user_agent = coalesce(excluded.user_agent, push_subscriptions.user_agent)
      RETURNING ${COLUMNS}`,
  ]);
  const record = rows[0];
  if (!record) {
    if (users.length === 0) throw unauthorized("The session's user no longer exists");
    throw conflict(
      `A user may register at most ${MAX_PUSH_SUBSCRIPTIONS_PER_USER} push subscriptions: delete one first`,
      { limit: MAX_PUSH_SUBSCRIPTIONS_PER_USER },
    );
  }
  return { subscription: present(record), created: record.id === id };
}

/** One page of the caller's subscriptions, oldest first. */
export async function listPushSubscriptions(
  ctx: UserContext,
  window: PageWindow,
): Promise<ResultPage<PushSubscription>> {
  const listing: Listing = {
    name: "push-subscriptions",
    filters: {},
    keys: [
      { expression: sql`created_at`, direction: "asc" },
      { expression: sql`rowid`, direction: "asc" },
    ],
  };
  const [rows, counts] = await batchAll<[SubscriptionRecord, { total: number }]>(
    ctx.db,
    await listingQueries(
      ctx,
      listing,
      { select: sql`SELECT ${COLUMNS}`, from: sql`FROM push_subscriptions`, where: sql`user_id = ${ctx.actor.userId}` },
      window,
    ),
  );
  return readPage(ctx, listing, rows, counts, window, present);
}

/** Removes the caller's subscription (its pending deliveries go with it); another user's is a 404. */
export async function deletePushSubscription(ctx: UserContext, id: string): Promise<void> {
  const [deleted] = await batchAll<[{ id: string }]>(ctx.db, [
    sql`DELETE FROM push_subscriptions WHERE id = ${id} AND user_id = ${ctx.actor.userId} RETURNING id`,
  ]);
  if (deleted.length === 0) throw notFound("Push subscription not found", { id });
}
