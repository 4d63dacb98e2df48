import type { Database } from "../db/client";
import type { RoundTripMeter } from "../db/round-trips";

/** The caller of an authenticated request. */
export interface AuthUser {
  id: string;
  /** How the caller proved who they are. API-key management accepts only `session`. */
  via: "api_key" | "session";
}

/** Hono environment of every route: bindings plus per-request services on `c.var`. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    db: Database;
    meter: RoundTripMeter;
    user: AuthUser;
    /** How the caller was authenticated, for the Server-Timing header. */
    authSource: string;
  };
}
