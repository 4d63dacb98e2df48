import { sql } from "drizzle-orm";
import type { UserContext } from "../../lib/context";

/**
 * `/auth/sign-out`: ends every app session of the caller issued up to now, in one statement.
 * `sessions_valid_from` becomes the next millisecond (sessions issued within this one end too;
 * a sign-in after it is issued no earlier: auth/sessions.ts), and always moves forward, past the
 * instant stored, whatever the clock of the isolate that signs out: sessions issued at a stored
 * instant ahead of this clock (a sign-in after a sign-out stamped ahead) end too. Every request
 * with a session token compares its `iat_ms` with it (auth/credential-liveness.ts). API keys are
 * left as they are.
 */
export async function signOutEverywhere(ctx: UserContext): Promise<void> {
  const validFrom = new Date(ctx.now().getTime() + 1).toISOString();
  // strftime keeps toISOString's form (milliseconds, `Z`), so the stored instants compare as text.
  await ctx.db.run(sql`
    UPDATE users SET sessions_valid_from = max(${validFrom},
      coalesce(strftime('%Y-%m-%dT%H:%M:%fZ', sessions_valid_from, '+0.001 seconds'), ${validFrom}))
    WHERE id = ${ctx.actor.userId}`);
}
