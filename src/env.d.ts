// Bindings and variables of the Worker (wrangler.toml, .dev.vars). Declared on the
// global Cloudflare.Env so `cloudflare:test`'s `env` has the same type.
declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    MEDIA: R2Bucket;
    REMINDER_QUEUE: DurableObjectNamespace<import("./durable-objects/reminder-queue").ReminderQueue>;
    /** Shown by `GET /`: "development", "production", ... */
    ENVIRONMENT: string;
    /** "true" serves the explorer at /documentation. */
    API_EXPLORER: string;
    /** HS256 secret for app-session JWTs. Optional until sessions are issued. */
    SESSION_SECRET?: string;
  }
}

type Env = Cloudflare.Env;
