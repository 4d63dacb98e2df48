declare namespace Cloudflare {
  interface Env {
    /** Migrations read by vitest.config.ts, applied by test/setup.ts. */
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Each wrangler.toml configuration's per-credential quota, in [vars] and in its binding (vitest.config.ts). */
    TEST_CONFIGURED_QUOTAS: {
      name: string;
      vars: { requests: string | null; windowSeconds: string | null };
      binding: { limit: number; period: number } | null;
    }[];
    /** A rate-limit binding of three a minute (vitest.config.ts). */
    TEST_TINY_LIMITER: RateLimit;
  }
}
