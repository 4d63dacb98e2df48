import { sql } from "drizzle-orm";
import { type ConfirmedIdentity, identityProviderFor } from "../../auth/identity";
import { issueSessionToken, sessionSecret } from "../../auth/sessions";
import type { RawRow } from "../../db/rows";
import type { users } from "../../db/schema";
import type { RequestContext } from "../../lib/context";
import { ApiError, conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import { OutboundError } from "../../lib/outbound";

export type SignedInUser = Pick<RawRow<typeof users>, "id" | "email" | "name">;
/** The user, and since when their sessions are valid (their last sign-out). */
type FoundUser = SignedInUser & Pick<RawRow<typeof users>, "sessions_valid_from">;

export interface SessionData {
  token: string;
  expires_at: string;
  user: SignedInUser;
}

/**
 * The user an identity belongs to, found by the provider's id or created, in one
 * statement. A known user's email follows the provider's unless another account
 * holds that email (then it stays as it was). A user with that email and no
 * provider id yet (made by `npm run key`) is linked to it; an email already
 * linked to another identity is a 409.
 */
async function findOrCreateUser(ctx: RequestContext, identity: ConfirmedIdentity): Promise<FoundUser> {
  const row = await ctx.db.get<FoundUser | undefined>(sql`
    INSERT INTO users (id, external_id, email, name)
    VALUES (${newId()}, ${identity.externalId}, ${identity.email}, ${identity.name})
    ON CONFLICT (external_id) DO UPDATE SET
      email = CASE
        WHEN EXISTS (SELECT 1 FROM users other WHERE other.email = excluded.email AND other.id <> users.id)
        THEN users.email ELSE excluded.email END,
      name = coalesce(excluded.name, users.name)
    ON CONFLICT (email) DO UPDATE SET external_id = excluded.external_id, name = coalesce(users.name, excluded.name)
      WHERE users.external_id IS NULL
    RETURNING id, email, name, sessions_valid_from`);
  if (!row) {
    throw conflict("This email address already belongs to an account signed in another way", {
      email: identity.email,
    });
  }
  return row;
}

/** `/auth/complete`: the provider confirms its session id, and the caller gets an app session. */
export async function completeSignIn(ctx: RequestContext, sessionId: string): Promise<SessionData> {
  // Both checked before anything is asked or written: a server that cannot issue a session says so.
  sessionSecret(ctx);
  const provider = identityProviderFor(ctx);
  let identity: ConfirmedIdentity;
  try {
    identity = await provider.confirm(ctx, sessionId);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    // Logged with what happened; the caller learns nothing of the provider's answer.
    log(ctx, "error", "identity provider failed", { error: error.message });
    throw new ApiError("upstream_failed", "Sign-in could not be completed: the identity provider could not be reached");
  }
  const { sessions_valid_from: validFrom, ...user } = await findOrCreateUser(ctx, identity);
  // Never before the user's last sign-out: that would end the new session at once.
  const session = await issueSessionToken(ctx, user.id, ctx.now(), validFrom);
  return { token: session.token, expires_at: session.expiresAt, user };
}
