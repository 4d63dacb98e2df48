import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { experimental_readRawConfig, type Unstable_RawEnvironment } from "wrangler";

/**
 * Each configuration's per-credential quota as wrangler.toml writes it twice, in [vars] (what the
 * RateLimit fields announce) and in the API_RATE_LIMITER binding (what is enforced): the tests
 * check that they agree (test/routes/rate-limit.test.ts).
 */
function configuredQuotas() {
  const { rawConfig } = experimental_readRawConfig({ config: "./wrangler.toml" });
  const environments: [string, Unstable_RawEnvironment][] = [
    ["top", rawConfig],
    ...Object.entries(rawConfig.env ?? {}),
  ];
  return environments.map(([name, config]) => ({
    name,
    vars: {
      requests: config.vars?.API_RATE_LIMIT_REQUESTS ?? null,
      windowSeconds: config.vars?.API_RATE_LIMIT_WINDOW_SECONDS ?? null,
    },
    binding: config.ratelimits?.find((binding) => binding.name === "API_RATE_LIMITER")?.simple ?? null,
  }));
}

// Tests run inside workerd with the bindings of wrangler.toml (local D1, R2,
// Durable Objects). Migrations are read once here and applied by test/setup.ts.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // The contract fuzzer's knobs (test/fuzz: FUZZ_SEED, FUZZ_RUNS, FUZZ_OPS, FUZZ_COLLECT), passed on when set.
  const fuzz = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("FUZZ_")));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            SESSION_SECRET: "test-session-secret",
            // Stripe is faked at the fetch boundary (test/helpers/third-party.ts); these only have to be set.
            STRIPE_SECRET_KEY: "sk_test_workspace_api_tests",
            STRIPE_WEBHOOK_SECRET: "whsec_workspace_api_tests",
            ENVIRONMENT: "test",
            // The per-request log line is tested on its own (test/lib/log.test.ts); elsewhere it is noise.
            REQUEST_LOG: "off",
            TEST_CONFIGURED_QUOTAS: configuredQuotas(),
            ...fuzz,
          },
          // Webhook deliveries go to a queue nobody consumes: tests run the consumer themselves, on the
          // batches they choose (test/helpers/webhooks.ts). The local queue's own consumer would send
          // them in the background as well, and under the contract fuzz's thousands of deliveries it
          // kept the run from ending once its tests had passed.
          queueProducers: { WEBHOOK_QUEUE: { queueName: "workspace-api-webhooks-unconsumed" } },
          // A quota of three a minute, for the test of a credential past its quota.
          ratelimits: { TEST_TINY_LIMITER: { namespace_id: "9001", simple: { limit: 3, period: 60 } } },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
      // One module graph for the run, not one per file: importing the app again for every file was
      // most of the suite's time (transform and setup 70%; 14 route files took 133 s isolated, 51 s
      // not). Each file starts from empty D1 tables (test/setup.ts); module-level caches are keyed by
      // ids no two tests share.
      isolate: false,
      // One file at a time: files not isolated share one D1, and a file running beside another would
      // see its shared blocks (visible to every user) and have its tables emptied under it.
      maxWorkers: 1,
      // Generous, because a loaded 2-core machine runs the heavy tests (1 MiB content, 9 MiB
      // uploads, 100k-row walks) several times slower than a quiet one; work that grows with the
      // square of its input still takes minutes there (test/services/content/linear-time.test.ts).
      testTimeout: 60_000,
    },
  };
});
