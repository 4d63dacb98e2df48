// Load runs with autocannon, servers taking turns, and the single probe request
// that reads one answer and the Worker's D1 round trips.

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { LOAD } from "./config.ts";

/** The pause after each slice of measureInTurn (bench/noise.ts replays it). */
export const DRAIN_MILLISECONDS = 500;

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests a second of each slice, in the order they ran (see measureInTurn). */
  sliceRates: number[];
  /** Milliseconds, over the 2xx responses of the run. */
  p50: number;
  p99: number;
  requests: number;
  /** Responses other than 2xx, and connection errors or timeouts: any makes the run suspect. */
  non2xx: number;
  errors: number;
  /** How many of each non-2xx status, and the first such response, to tell what went wrong. */
  failedStatuses: Record<string, number>;
  firstFailure: string | null;
}

/** One run's raw numbers; slices of a measurement are added up before percentiles are taken. */
interface Sample {
  requests: number;
  seconds: number;
  /** Milliseconds of each 2xx response. */
  latencies: number[];
  failedStatuses: Record<string, number>;
  firstFailure: string | null;
  non2xx: number;
  errors: number;
}

/**
 * Latencies are collected from autocannon's per-response event instead of its
 * summary: the summary's histogram has 1 ms resolution, too coarse for requests
 * that take a few milliseconds on loopback.
 */
function run(target: LoadTarget, seconds: number, load: LoadSettings): Promise<Sample> {
  const latencies: number[] = [];
  const failedStatuses: Record<string, number> = {};
  let firstFailure: string | null = null;
  const onResponse = (status: number, body: string) => {
    if (status >= 300) firstFailure ??= `${status} ${body.slice(0, 300)}`;
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        headers: target.headers,
        connections: target.connections ?? load.connections,
        duration: seconds,
        // autocannon builds the request once, body included, and sends that buffer every time.
        requests: [
          {
            method: target.method ?? "GET",
            ...(target.body ? { body: target.body } : {}),
            ...(target.freshIdempotencyKeys || target.distinctBodies
              ? { setupRequest: eachRequestAnew(target.freshIdempotencyKeys === true, target.distinctBodies === true) }
              : {}),
            onResponse,
          },
        ],
      },
      (error: Error | null, result: autocannon.Result) => {
        if (error) return reject(error);
        resolve({
          requests: result.requests.total,
          seconds: result.duration,
          latencies,
          failedStatuses,
          firstFailure,
          non2xx: result.non2xx,
          errors: result.errors,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, milliseconds) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(milliseconds);
      else failedStatuses[statusCode] = (failedStatuses[statusCode] ?? 0) + 1;
    });
  });
}

/** Nearest-rank percentile; NaN when there are none. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

function summarise(samples: readonly Sample[]): LoadResult {
  const sum = (pick: (sample: Sample) => number) => samples.reduce((total, sample) => total + pick(sample), 0);
  const latencies = samples.flatMap((sample) => sample.latencies);
  const failedStatuses: Record<string, number> = {};
  for (const [status, count] of samples.flatMap((sample) => Object.entries(sample.failedStatuses))) {
    failedStatuses[status] = (failedStatuses[status] ?? 0) + count;
  }
  return {
    requestsPerSecond: sum((sample) => sample.requests) / sum((sample) => sample.seconds),
    sliceRates: samples.map((sample) => sample.requests / sample.seconds),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests: sum((sample) => sample.requests),
    non2xx: sum((sample) => sample.non2xx),
    errors: sum((sample) => sample.errors),
    failedStatuses,
    firstFailure: samples.find((sample) => sample.firstFailure !== null)?.firstFailure ?? null,
  };
}

/**
 * autocannon reports when its time is up, with requests still in flight. The
 * pause lets the server finish them before the other server gets load, so one
 * run's tail does not eat into the next run's CPU.
 */
async function runThenDrain(target: LoadTarget, seconds: number, load: LoadSettings): Promise<Sample> {
  const sample = await run(target, seconds, load);
  await sleep(DRAIN_MILLISECONDS);
  return sample;
}

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  /** GET when absent. */
  method?: "GET" | "POST" | "PUT" | "PATCH";
  /** The same bytes on every request (a media upload, a write's JSON). */
  body?: Buffer;
  /** Concurrent connections; the load settings' when absent. */
  connections?: number;
  /** Each request carries an `Idempotency-Key` of its own (a fresh UUID), so every one is a first request. */
  freshIdempotencyKeys?: boolean;
  /** Each request's body has REQUEST_NUMBER replaced by a number of its own: every write changes something. */
  distinctBodies?: boolean;
}

/** Where a body sent with `distinctBodies` takes each request's number. */
export const REQUEST_NUMBER = "{{n}}";
let requestsNumbered = 0;

/**
 * Builds each request anew (autocannon then sends what this returns): with a fresh
 * `Idempotency-Key`, and/or with REQUEST_NUMBER in the body replaced by a number of its own.
 */
const eachRequestAnew =
  (freshKey: boolean, distinctBody: boolean) =>
  (request: autocannon.Request): autocannon.Request => ({
    ...request,
    ...(freshKey ? { headers: { ...request.headers, "Idempotency-Key": `"${randomUUID()}"` } } : {}),
    ...(distinctBody && request.body
      ? { body: String(request.body).replaceAll(REQUEST_NUMBER, String(++requestsNumbered)) }
      : {}),
  });

/** How long and how hard measureInTurn loads each target (LOAD by default). */
export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  measureSeconds: number;
  slices: number;
}

/**
 * Measures several servers on the same kind of request: the Worker and the
 * baseline, at every dataset size. Each gets a warm-up (discarded: JIT, SQLite
 * page cache, connections); then the measured time is cut into slices run in
 * turn (A B C D A B C D ...), so a change in background load on the shared
 * machine weighs on every server alike, and ratios between them (Worker to
 * baseline, 100k to 10k) hold even when absolute numbers drift.
 * Never two at once: the load generator and the servers share the CPUs.
 */
export async function measureInTurn(targets: readonly LoadTarget[], load: LoadSettings = LOAD): Promise<LoadResult[]> {
  for (const target of targets) await runThenDrain(target, load.warmupSeconds, load);
  const samples: Sample[][] = targets.map(() => []);
  const slice = load.measureSeconds / load.slices;
  for (let i = 0; i < load.slices; i++) {
    for (const [index, target] of targets.entries()) samples[index]?.push(await runThenDrain(target, slice, load));
  }
  return samples.map(summarise);
}

/**
 * `a`'s throughput over `b`'s, and the lowest and highest ratio of their slices paired in running
 * order (slice i of each ran in the same round of turns, so the machine's swings weigh on both
 * alike): how far one cell's ratio moves with this machine's noise. NaN bounds when the slices do
 * not pair; no range is printed when a slice of `b` answered nothing (an infinite ratio).
 */
export function throughputRatio(a: LoadResult, b: LoadResult): { ratio: number; low: number; high: number } {
  const paired = a.sliceRates.length === b.sliceRates.length && a.sliceRates.length > 0;
  const slices = paired ? a.sliceRates.map((rate, i) => rate / (b.sliceRates[i] as number)) : [];
  return {
    ratio: a.requestsPerSecond / b.requestsPerSecond,
    low: paired ? Math.min(...slices) : Number.NaN,
    high: paired ? Math.max(...slices) : Number.NaN,
  };
}

/** "0.86 (slices 0.78-0.95)": a throughput ratio with its slices' range (throughputRatio). */
export function ratioText(a: LoadResult, b: LoadResult): string {
  const { ratio, low, high } = throughputRatio(a, b);
  const range = Number.isFinite(low) && Number.isFinite(high) ? ` (slices ${low.toFixed(2)}-${high.toFixed(2)})` : "";
  return `${Number.isFinite(ratio) ? ratio.toFixed(2) : "-"}${range}`;
}

export interface ProbeResult {
  status: number;
  body: unknown;
  totalCount: string | null;
  /** From the Worker's `Server-Timing: d1;desc="N round trips"`; null when absent. */
  roundTrips: number | null;
}

/** From the Worker's `Server-Timing: d1;desc="N round trips"`; null when absent. */
export function roundTripsOf(headers: Headers): number | null {
  const timing = /d1;desc="(\d+) round trips"/.exec(headers.get("Server-Timing") ?? "");
  return timing ? Number(timing[1]) : null;
}

/** The Worker's D1 time for the request, from `Server-Timing: d1;...;dur=ms`; null when absent. */
export function d1MillisecondsOf(headers: Headers): number | null {
  const timing = /d1;desc="\d+ round trips";dur=([\d.]+)/.exec(headers.get("Server-Timing") ?? "");
  return timing ? Number(timing[1]) : null;
}

export async function probe(url: string, headers: Record<string, string>): Promise<ProbeResult> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the error message.
  }
  return {
    status: response.status,
    body,
    totalCount: response.headers.get("X-Total-Count"),
    roundTrips: roundTripsOf(response.headers),
  };
}
