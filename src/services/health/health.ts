import journal from "../../../migrations/meta/_journal.json";

// What `GET /health` checks, in the shape of the Health Check Response Format for HTTP APIs
// (draft-inadarei-api-health-check-06): an overall `status` ("pass" | "fail") and, per component
// and measurement, what was observed. Each dependency a request may need is touched once, cheaply,
// in parallel and within a bound: D1 (one indexed read, which also says the latest migration
// applied), R2 (a HEAD of a key that need not exist) and the Durable Object namespace (one call to
// a dedicated instance). Nothing of a user is read.

export type CheckStatus = "pass" | "fail";

export interface ComponentCheck {
  componentType: "datastore" | "component";
  status: CheckStatus;
  observedValue?: string | number;
  observedUnit?: string;
  time: string;
  output?: string;
}

export interface Health {
  status: CheckStatus;
  description: string;
  checks: Record<string, ComponentCheck[]>;
}

/** How long one dependency may take before it counts as down. */
export const HEALTH_CHECK_TIMEOUT_MS = 3_000;

/** The migration this code expects to be the latest applied: the last of the journal it was built with. */
export const EXPECTED_MIGRATION = `${journal.entries.at(-1)?.tag ?? ""}.sql`;

/** The R2 key a HEAD is sent for: absent is fine, only the bucket's answer matters. */
const STORAGE_PROBE_KEY = "health/probe";
/** The Durable Object instance the check calls (no user's queue). */
const QUEUE_PROBE_NAME = "health-check";

/** `work`, or a rejection once `HEALTH_CHECK_TIMEOUT_MS` has passed. */
function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${HEALTH_CHECK_TIMEOUT_MS} ms`)),
      HEALTH_CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs one probe: its response time, and what it observed or why it failed (the error's message only). */
async function probe<T>(run: () => Promise<T>): Promise<{ ms: number; value?: T; failure?: string }> {
  const started = Date.now();
  try {
    const value = await bounded(run());
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, failure: error instanceof Error ? error.message : String(error) };
  }
}

const responseTime = (
  componentType: ComponentCheck["componentType"],
  result: { ms: number; failure?: string },
  time: string,
): ComponentCheck => ({
  componentType,
  status: result.failure === undefined ? "pass" : "fail",
  observedValue: result.ms,
  observedUnit: "ms",
  time,
  ...(result.failure === undefined ? {} : { output: result.failure }),
});

/** Checks D1, R2 and the Durable Object namespace; `fail` when any is down or the schema is behind the code. */
export async function checkHealth(env: Env, now: Date): Promise<Health> {
  const [database, storage, queue] = await Promise.all([
    probe(() => env.DB.prepare("SELECT name FROM d1_migrations ORDER BY id DESC LIMIT 1").first<string>("name")),
    probe(() => env.MEDIA.head(STORAGE_PROBE_KEY)),
    probe(() => env.REMINDER_QUEUE.get(env.REMINDER_QUEUE.idFromName(QUEUE_PROBE_NAME)).ping()),
  ]);
  const time = now.toISOString();
  const applied = database.failure === undefined ? (database.value ?? null) : null;
  const migration: ComponentCheck = {
    componentType: "datastore",
    status: applied === EXPECTED_MIGRATION ? "pass" : "fail",
    observedValue: applied ?? "none",
    time,
    ...(applied === EXPECTED_MIGRATION
      ? {}
      : {
          output:
            database.failure === undefined
              ? `expected ${EXPECTED_MIGRATION}: run wrangler d1 migrations apply`
              : "the database did not answer",
        }),
  };
  const checks: Health["checks"] = {
    "database:responseTime": [responseTime("datastore", database, time)],
    "database:migration": [migration],
    "storage:responseTime": [responseTime("datastore", storage, time)],
    "reminderQueue:responseTime": [responseTime("component", queue, time)],
  };
  const down = Object.entries(checks)
    .filter(([, results]) => results.some((result) => result.status === "fail"))
    .map(([name]) => name);
  return {
    status: down.length === 0 ? "pass" : "fail",
    description: down.length === 0 ? "Every dependency answers" : `Failing: ${down.join(", ")}`,
    checks,
  };
}
