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

const UNWRAP = Symbol("unwrap");
const EXECUTING_METHODS = new Set(["first", "all", "run", "raw"]);

async function timed<T>(meter: RoundTripMeter, work: () => Promise<T>): Promise<T> {
  meter.count += 1;
  const started = performance.now();
  try {
    return await work();
  } finally {
    meter.milliseconds += performance.now() - started;
  }
}

function meterStatement(statement: D1PreparedStatement, meter: RoundTripMeter): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, property) {
      if (property === UNWRAP) return target;
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "bind") {
        return (...values: unknown[]) => meterStatement(target.bind(...values), meter);
      }
      if (typeof property === "string" && EXECUTING_METHODS.has(property)) {
        return (...args: unknown[]) => timed(meter, () => value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}

const unwrap = (statement: D1PreparedStatement): D1PreparedStatement =>
  (statement as unknown as Record<symbol, D1PreparedStatement | undefined>)[UNWRAP] ?? statement;

export function meterD1(database: D1Database, meter: RoundTripMeter): D1Database {
  return new Proxy(database, {
    get(target, property) {
      if (property === "prepare") {
        return (query: string) => meterStatement(target.prepare(query), meter);
      }
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => timed(meter, () => target.batch(statements.map(unwrap)));
      }
      if (property === "exec") {
        return (query: string) => timed(meter, () => target.exec(query));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export const serverTimingValue = (meter: RoundTripMeter): string =>
  `d1;desc="${meter.count} round trips";dur=${meter.milliseconds.toFixed(1)}`;
