import { type SQL, sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { webhookEndpoints } from "../../db/schema";
import {
  calledUrl,
  OUTBOUND_URL_PROBLEMS,
  type OutboundUrlProblem,
  outboundUrlProblem,
} from "../../lib/address-policy";
import type { RequestContext, UserContext } from "../../lib/context";
import {
  assertPreconditions,
  entityTag,
  hasPreconditions,
  type Preconditions,
  preconditionFailed,
  preconditionSql,
  type Validator,
  validatorOf,
  withValidator,
} from "../../lib/entity-tags";
import { allowsLocalShortcuts } from "../../lib/environment";
import { badRequest, conflict, notFound, unauthorized } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { ChangeEventType } from "../../schemas/changes";
import type { Webhook, WebhookWithSecret } from "../../schemas/webhooks";
import { newWebhookSecret } from "./signature";

// A user's webhook endpoints: created, listed, read, changed, rotated and removed by their user only
// (another user's is a 404, as if it did not exist). Each request is one D1 round trip, each write
// one conditional statement (the owner, the entity tag's version, the per-user limit are in it).
// The secret is answered by the creation and the rotation only.

export type { Webhook, WebhookWithSecret };

/** Endpoints one user may have. */
export const MAX_WEBHOOKS_PER_USER = 20;
/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_GRACE_HOURS = 24;
/** The longest URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookRecord = RawRow<typeof webhookEndpoints>;

const WEBHOOK_TAG = "wh";
const webhookValidator = (record: Pick<WebhookRecord, "id" | "version">): Validator => ({
  kind: WEBHOOK_TAG,
  id: record.id,
  parts: [record.version],
});

export const presentWebhook = (record: WebhookRecord): Webhook =>
  withValidator(
    {
      id: record.id,
      url: record.url,
      description: record.description,
      event_types: record.event_types === null ? null : (JSON.parse(record.event_types) as ChangeEventType[]),
      enabled: Boolean(record.enabled),
      disabled_reason: record.disabled_reason,
      disabled_at: record.disabled_at,
      previous_secret_expires_at: record.previous_secret_expires_at,
      created_at: record.created_at,
      updated_at: record.updated_at,
    },
    webhookValidator(record),
  );

const withSecret = (record: WebhookRecord): WebhookWithSecret =>
  withValidator({ ...presentWebhook(record), secret: record.secret }, webhookValidator(record));

export const webhookNotFound = (id: string) => notFound("Webhook not found", { id });

/**
 * Why deliveries may not be sent to `url` from here, or null when they may: the one address policy
 * of every URL a user supplies (lib/address-policy.ts: https to a public DNS name; during local work,
 * a loopback host over http too). Checked when the URL is set and again before every send.
 */
export const webhookUrlProblem = (ctx: Pick<RequestContext, "env" | "local">, url: string): OutboundUrlProblem | null =>
  outboundUrlProblem(url, { local: allowsLocalShortcuts(ctx) });

function checkUrl(ctx: UserContext, url: string): string {
  const problem = webhookUrlProblem(ctx, url);
  if (problem !== null) {
    const reason = OUTBOUND_URL_PROBLEMS[problem];
    throw badRequest(`Invalid url: ${reason}`, { field: "url", reason, problem });
  }
  return calledUrl(url);
}

const typesText = (types: readonly ChangeEventType[] | null | undefined): string | null =>
  types === null || types === undefined ? null : JSON.stringify([...new Set(types)].sort());

export interface CreateWebhookInput {
  url: string;
  event_types?: ChangeEventType[] | null;
  description?: string | null;
}

/** A new endpoint with a new secret (answered this once); beyond MAX_WEBHOOKS_PER_USER a 409. */
export async function createWebhook(ctx: UserContext, input: CreateWebhookInput): Promise<WebhookWithSecret> {
  const url = checkUrl(ctx, input.url);
  const userId = ctx.actor.userId;
  const now = ctx.now().toISOString();
  const [users, rows] = await batchAll<[{ found: number }, WebhookRecord]>(ctx.db, [
    // Read in the same batch, to explain a refusal: an app session can outlive its user.
    sql`SELECT 1 AS found FROM users WHERE id = ${userId}`,
    sql`INSERT INTO webhook_endpoints (id, user_id, url, description, event_types, secret, created_at, updated_at)
      SELECT ${newId()}, ${userId}, ${url}, ${input.description ?? null}, ${typesText(input.event_types)},
        ${newWebhookSecret()}, ${now}, ${now}
      WHERE EXISTS (SELECT 1 FROM users WHERE id = ${userId})
        AND (SELECT count(*) FROM webhook_endpoints WHERE user_id = ${userId}) < ${MAX_WEBHOOKS_PER_USER}
      RETURNING *`,
  ]);
  const record = rows[0];
  if (record) return withSecret(record);
  if (users.length === 0) throw unauthorized("The session's user no longer exists");
  throw conflict(`A user may have at most ${MAX_WEBHOOKS_PER_USER} webhooks: delete one first`, {
    limit: MAX_WEBHOOKS_PER_USER,
  });
}

const own = (ctx: UserContext, id: string): SQL => sql`w.id = ${id} AND w.user_id = ${ctx.actor.userId}`;

/** One page of the caller's endpoints, oldest first. */
export async function listWebhooks(ctx: UserContext, window: PageWindow): Promise<ResultPage<Webhook>> {
  const listing: Listing = {
    name: "webhooks",
    filters: {},
    keys: [
      { expression: sql`w.created_at`, direction: "asc" },
      { expression: sql`w.id`, direction: "asc" },
    ],
  };
  const [rows, counts] = await batchAll<[WebhookRecord, { total: number }]>(
    ctx.db,
    await listingQueries(
      ctx,
      listing,
      { select: sql`SELECT w.*`, from: sql`FROM webhook_endpoints w`, where: sql`w.user_id = ${ctx.actor.userId}` },
      window,
    ),
  );
  return readPage(ctx, listing, rows, counts, window, presentWebhook);
}

export async function getWebhook(ctx: UserContext, id: string): Promise<Webhook> {
  const [rows] = await batchAll<[WebhookRecord]>(ctx.db, [
    sql`SELECT w.* FROM webhook_endpoints w WHERE ${own(ctx, id)}`,
  ]);
  const record = rows[0];
  if (!record) throw webhookNotFound(id);
  return presentWebhook(record);
}

/** RFC 7396: a member absent is kept, null removes it (description; event_types: all types again). */
export interface WebhookPatch {
  url?: string;
  event_types?: ChangeEventType[] | null;
  description?: string | null;
  enabled?: boolean;
}

/**
 * Writes `set` to the caller's endpoint `id` while `preconditions` hold, in one statement; when it
 * matched nothing, the same batch's read says why (404, or 412 with the current tag).
 */
async function writeWebhook(
  ctx: UserContext,
  id: string,
  set: SQL,
  preconditions: Preconditions,
): Promise<WebhookRecord> {
  const expected = preconditionSql(preconditions, { kind: WEBHOOK_TAG, id, columns: [sql`w.version`] });
  const [rows, current] = await batchAll<[WebhookRecord, { version: number }]>(ctx.db, [
    sql`UPDATE webhook_endpoints AS w SET ${set}, version = version + 1, updated_at = ${ctx.now().toISOString()}
      WHERE ${own(ctx, id)}${expected ? sql` AND ${expected}` : sql``} RETURNING *`,
    sql`SELECT w.version FROM webhook_endpoints w WHERE ${own(ctx, id)}`,
  ]);
  const record = rows[0];
  if (record) return record;
  throw refusedWrite(id, current[0]);
}

/** Why a conditional write of the caller's endpoint matched nothing: it is not theirs (404), or its tag moved on (412). */
const refusedWrite = (id: string, current: { version: number } | undefined) =>
  current ? preconditionFailed(entityTag(webhookValidator({ id, version: current.version }))) : webhookNotFound(id);

/**
 * Applies a merge patch (RFC 7396) to the caller's endpoint. `enabled: true` re-enables one that was
 * disabled (by its user or after three days of failures) and forgets its failures; `enabled: false`
 * disables it. A new URL passes the address policy.
 */
export async function updateWebhook(
  ctx: UserContext,
  id: string,
  patch: WebhookPatch,
  preconditions: Preconditions = {},
): Promise<Webhook> {
  const now = ctx.now().toISOString();
  const sets: SQL[] = [];
  if (patch.url !== undefined) sets.push(sql`url = ${checkUrl(ctx, patch.url)}`);
  if (patch.description !== undefined) sets.push(sql`description = ${patch.description}`);
  if (patch.event_types !== undefined) sets.push(sql`event_types = ${typesText(patch.event_types)}`);
  if (patch.enabled === true) {
    sets.push(sql`enabled = 1, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL`);
  } else if (patch.enabled === false) {
    sets.push(sql`disabled_reason = CASE WHEN enabled THEN 'Disabled by its user' ELSE disabled_reason END,
      disabled_at = CASE WHEN enabled THEN ${now} ELSE disabled_at END, enabled = 0`);
  }
  if (sets.length === 0) {
    // Nothing to change: answered as it is, under the same preconditions.
    const webhook = await getWebhook(ctx, id);
    const validator = validatorOf(webhook);
    if (hasPreconditions(preconditions) && validator) assertPreconditions(preconditions, validator);
    return webhook;
  }
  return presentWebhook(await writeWebhook(ctx, id, sql.join(sets, sql`, `), preconditions));
}

/**
 * A new secret for the caller's endpoint, answered this once. The one it replaces keeps signing
 * beside it for SECRET_GRACE_HOURS (a second signature in `webhook-signature`), so receivers can
 * switch without missing a delivery.
 */
export async function rotateWebhookSecret(
  ctx: UserContext,
  id: string,
  preconditions: Preconditions = {},
): Promise<WebhookWithSecret> {
  const until = new Date(ctx.now().getTime() + SECRET_GRACE_HOURS * 3_600_000).toISOString();
  const record = await writeWebhook(
    ctx,
    id,
    sql`previous_secret = secret, previous_secret_expires_at = ${until}, secret = ${newWebhookSecret()}`,
    preconditions,
  );
  return withSecret(record);
}

/** Removes the caller's endpoint, with its deliveries; with preconditions, only while they hold. */
export async function deleteWebhook(ctx: UserContext, id: string, preconditions: Preconditions = {}): Promise<void> {
  const expected = preconditionSql(preconditions, { kind: WEBHOOK_TAG, id, columns: [sql`w.version`] });
  const [deleted, current] = await batchAll<[{ id: string }, { version: number }]>(ctx.db, [
    sql`DELETE FROM webhook_endpoints AS w WHERE ${own(ctx, id)}${expected ? sql` AND ${expected}` : sql``}
      RETURNING id`,
    sql`SELECT w.version FROM webhook_endpoints w WHERE ${own(ctx, id)}`,
  ]);
  if (deleted.length > 0) return;
  throw refusedWrite(id, current[0]);
}
