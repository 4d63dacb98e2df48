declare namespace Cloudflare {
  interface Env {
    /** Migrations read by vitest.config.ts, applied by test/setup.ts. */
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
