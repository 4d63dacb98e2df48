import { conflict } from "./errors";

/**
 * Thrown when a write's guard no longer held: what the write was validated
 * against (a database's schema, a view's settings) changed in the meantime.
 * Nothing was written; `retryWhileStale` validates again and retries.
 */
export class StaleWrite extends Error {
  constructor() {
    super("What this write was validated against changed before it was applied");
    this.name = "StaleWrite";
  }
}

/**
 * Attempts before concurrent changes are reported as a 409. Each attempt costs
 * its reads and one write (a few D1 queries), so the bound also bounds a
 * request's queries well inside D1's per-invocation limit.
 */
const MAX_ATTEMPTS = 12;

/**
 * Runs `attempt` (read, validate, guarded write) until its write lands. Each
 * retry reads the state again, so a write is never applied against a state it
 * was not validated for, and no acknowledged concurrent write is lost.
 */
export async function retryWhileStale<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StaleWrite)) throw error;
      if (tries >= MAX_ATTEMPTS) {
        throw conflict(`The ${what} kept changing while this request was applied; retry it`, { attempts: tries });
      }
      // Exponential backoff with full jitter (up to 2, 4, ... 256 ms) spreads out writers that keep colliding.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(tries, 8)));
    }
  }
}
