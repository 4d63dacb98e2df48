import { wrapD1 } from "./wrap-d1";

/**
 * Counts D1 round trips made while serving one request: every statement
 * execution (`first`, `all`, `run`, `raw`), every `batch` and `exec` is one trip.
 * The count and time are reported in the `Server-Timing` response header, which
 * tests and the benchmark read to hold each endpoint to its query budget.
 */
export interface RoundTripMeter {
  count: number;
  milliseconds: number;
}

async function timed<T>(meter: RoundTripMeter, work: () => Promise<T>): Promise<T> {
  meter.count += 1;
  const started = performance.now();
  try {
    return await work();
  } finally {
    meter.milliseconds += performance.now() - started;
  }
}

/** `database` with each call that reaches D1 counted and timed in `meter`. */
export const meterD1 = (database: D1Database, meter: RoundTripMeter): D1Database =>
  wrapD1(database, {
    statement: (_call, send) => timed(meter, send),
    batch: (statements, send) => timed(meter, () => send(statements)),
    other: (method, call) => (method === "exec" ? timed(meter, call as () => Promise<unknown>) : call()),
  });

export const serverTimingValue = (meter: RoundTripMeter): string =>
  `d1;desc="${meter.count} round trips";dur=${meter.milliseconds.toFixed(1)}`;
