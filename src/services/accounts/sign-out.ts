import { sql } from "drizzle-orm";
import type { UserContext } from "../../lib/context";

/**
 * `/auth/sign-out`: ends every app session of the caller issued up to now, in one statement.
 * `sessions_valid_from` becomes the next millisecond (sessions issued within this one end too;
 * a sign-in after it is issued no earlier: auth/sessions.ts), and never moves back, whatever
 * the clock of the isolate that signs out. Every request with a session token compares its
 * `iat_ms` with it (auth/credential-liveness.ts). API keys are left as they are.
 */
export async function signOutEverywhere(ctx: UserContext): Promise<void> {
  const validFrom = new Date(ctx.now().getTime() + 1).toISOString();
  await ctx.db.run(sql`
    UPDATE users SET sessions_valid_from = max(coalesce(sessions_valid_from, ${validFrom}), ${validFrom})
    WHERE id = ${ctx.actor.userId}`);
}
