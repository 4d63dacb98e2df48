import { env } from "cloudflare:test";
import { ALL_SCOPES } from "../../src/auth/scopes";
import { wrapD1 } from "../../src/db/wrap-d1";
import { actingAs, createContext, type UserContext, withD1 } from "../../src/lib/context";
import type { TestUser } from "./api";

/**
 * A context acting for `user` whose D1 runs `meddle` just before its `nth` batch: what changes
 * between a write's read and its write batch, made deterministically (a race, without timing).
 */
export function contextMeddlingBefore(user: TestUser, nth: number, meddle: () => Promise<unknown>) {
  const seen = { batches: 0 };
  const ctx: UserContext = actingAs(
    withD1(createContext({ env }), (d1) =>
      wrapD1(d1, {
        batch: async (statements, send) => {
          seen.batches += 1;
          if (seen.batches === nth) await meddle();
          return send(statements);
        },
      }),
    ),
    { userId: user.id, via: "api_key", apiKeyId: null, scopes: ALL_SCOPES },
  );
  return { ctx, seen };
}
