import { sql } from "drizzle-orm";
import { generateApiKey } from "../../auth/api-key-format";
import { type ApiKeyScope, formatScopes, parseScopes } from "../../auth/scopes";
import { batchAll } from "../../db/batch";
import type { RawRow } from "../../db/rows";
import type { apiKeys } from "../../db/schema";
import type { UserContext } from "../../lib/context";
import { badRequest, conflict, notFound, unauthorized } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { type Listing, listingQueries, type PageWindow, type ResultPage, readPage } from "../../lib/pagination";
import type { ApiKey, CreatedApiKey } from "../../schemas/api-keys";

// API-key management (app sessions only: the routes declare `session` access).
// Keys are revoked, not deleted, so a revoked key's hash stays known and refused.
// Every statement is scoped to the caller: another user's key id is a 404.

/** Live (unrevoked) keys a user may hold at once: enough for every agent, not unbounded. */
export const MAX_KEYS_PER_USER = 100;

/** The columns of an `api_keys` row that KEY_COLUMNS reads. */
type KeyRecord = Pick<
  RawRow<typeof apiKeys>,
  "id" | "name" | "display_prefix" | "display_suffix" | "scopes" | "created_at" | "last_used_at" | "expires_at"
>;

const KEY_COLUMNS = sql.raw("id, name, display_prefix, display_suffix, scopes, created_at, last_used_at, expires_at");

const present =
  (now: Date) =>
  (record: KeyRecord): ApiKey => ({
    id: record.id,
    name: record.name,
    masked_key: `${record.display_prefix}…${record.display_suffix}`,
    prefix: record.display_prefix,
    last_four: record.display_suffix,
    scopes: parseScopes(record.scopes),
    created_at: record.created_at,
    last_used_at: record.last_used_at,
    expires_at: record.expires_at,
    expired: record.expires_at !== null && record.expires_at <= now.toISOString(),
  });

const keyNotFound = (id: string) => notFound("API key not found", { id });

/** The caller's unrevoked keys (expired ones included, marked), newest first. */
export async function listApiKeys(ctx: UserContext, window: PageWindow): Promise<ResultPage<ApiKey>> {
  const listing: Listing = {
    name: "api-keys",
    filters: {},
    keys: [
      { expression: sql`created_at`, direction: "desc" },
      { expression: sql`id`, direction: "desc" },
    ],
  };
  const [records, counts] = await batchAll<[KeyRecord, { total: number }]>(
    ctx.db,
    await listingQueries(
      ctx,
      listing,
      {
        select: sql`SELECT ${KEY_COLUMNS}`,
        from: sql`FROM api_keys`,
        where: sql`user_id = ${ctx.actor.userId} AND revoked_at IS NULL`,
      },
      window,
    ),
  );
  return readPage(ctx, listing, records, counts, window, present(ctx.now()));
}

export interface NewKeyInput {
  name: string;
  scopes?: ApiKeyScope[];
  expires_at?: string;
}

/** A new key; its raw value is in the answer and nowhere else. */
export async function createApiKey(ctx: UserContext, input: NewKeyInput): Promise<CreatedApiKey> {
  const now = ctx.now();
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
  if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
    throw badRequest("expires_at must be in the future", { expires_at: input.expires_at });
  }
  const scopes = formatScopes(input.scopes ?? ["read", "write"]);
  const key = await generateApiKey();
  const id = newId();
  // The cap is part of the insert, so concurrent creations cannot pass it together.
  const record = await ctx.db.get<KeyRecord | undefined>(sql`
    INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix, scopes, expires_at, created_at)
    SELECT ${id}, ${ctx.actor.userId}, ${input.name}, ${key.hash}, ${key.displayPrefix}, ${key.displaySuffix},
      ${scopes}, ${expiresAt?.toISOString() ?? null}, ${now.toISOString()}
    WHERE (SELECT count(*) FROM api_keys WHERE user_id = ${ctx.actor.userId} AND revoked_at IS NULL) < ${MAX_KEYS_PER_USER}
      AND EXISTS (SELECT 1 FROM users WHERE id = ${ctx.actor.userId})
    RETURNING ${KEY_COLUMNS}`);
  if (!record) {
    // Only on refusal: which condition failed. A valid session whose user is gone keys nothing.
    const user = await ctx.db.get(sql`SELECT 1 AS found FROM users WHERE id = ${ctx.actor.userId}`);
    if (!user) throw unauthorized("The session's user no longer exists");
    throw conflict(`A user may hold at most ${MAX_KEYS_PER_USER} API keys: revoke one first`, {
      max_keys: MAX_KEYS_PER_USER,
    });
  }
  return { ...present(now)(record), key: key.raw };
}

export async function renameApiKey(ctx: UserContext, id: string, name: string): Promise<ApiKey> {
  const record = await ctx.db.get<KeyRecord | undefined>(sql`
    UPDATE api_keys SET name = ${name}
    WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND revoked_at IS NULL
    RETURNING ${KEY_COLUMNS}`);
  if (!record) throw keyNotFound(id);
  return present(ctx.now())(record);
}

/** Revokes a key: refused from its next request on, in every isolate (auth/credential-liveness.ts). */
export async function revokeApiKey(ctx: UserContext, id: string): Promise<void> {
  const revoked = await ctx.db.all<{ id: string }>(sql`
    UPDATE api_keys SET revoked_at = ${ctx.now().toISOString()}
    WHERE id = ${id} AND user_id = ${ctx.actor.userId} AND revoked_at IS NULL
    RETURNING id`);
  if (revoked.length === 0) throw keyNotFound(id);
}
