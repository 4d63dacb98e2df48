// `npm run bench -- reminders` (and a section of the full run): REMINDERS.users users
// with REMINDERS.perUser due reminders each, dispatched by one cron tick. Measures the
// time from the tick until every reminder has fired (the drain), the D1 queries per
// reminder, and, in the SQLite files once the servers stop, the reminders that fired
// twice or never. The baseline (baseline-reminders/) does the same D1 work from its
// scheduled handler, in batches of 50, with no Durable Objects. See README.md.
import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { defer } from "./cleanup.ts";
import { REMINDERS } from "./config.ts";
import { type ConsoleLine, followConsole, jsonLine } from "./reminders-console.ts";
import { type PushTally, startPushReceiver } from "./reminders-push.ts";
import { type RemindersSeed, seedReminders } from "./reminders-seed.ts";
import { checkFirings, checkQueues, type FiringCheck, type QueueCheck } from "./reminders-verify.ts";
import { formatTargets, RESULTS_DIR, type TargetCheck, targetsMarkdown } from "./report.ts";
import { type BuiltWorker, build, type Server, startBoth, type WorkerSpec } from "./servers.ts";
import { workerCompatibilityDate } from "./wrangler.ts";

const BASELINE: WorkerSpec = {
  name: "reminders baseline",
  config: "bench/baseline-reminders/wrangler.toml",
  entry: "worker.js",
};

/**
 * One cron tick. This wrangler (4.155) serves it at miniflare's /cdn-cgi/local/scheduled,
 * always; `/__scheduled` needs `--test-scheduled` and a bundling `wrangler dev`, which
 * the bench's `--no-bundle` is not (it answers 404 there).
 */
const TICK_PATH = "/cdn-cgi/local/scheduled?cron=*+*+*+*+*&format=json";
/** The sweep's D1 round trips (firing.ts `dispatchDueReminders`: one read), when its log line does not say. */
const SWEEP_ROUND_TRIPS = 1;
/** How long to wait for the tick's answer once the drain is over (the answer waits for every waitUntil). */
const TICK_ANSWER_TIMEOUT_MS = 30_000;
/** What ReminderQueue alarms and the baseline log (src/durable-objects/reminder-queue.ts, baseline-reminders/worker.ts). */
const WORKER_FIRED = "reminders fired";
const WORKER_DISPATCHED = "reminders dispatched";
const BASELINE_FIRED = "baseline reminders fired";

/** What one server did after its tick, from its console lines. */
export interface Drain {
  /** Epoch ms the tick was sent. */
  tickAt: number;
  /** From the tick until the line that brought `fired` to every reminder; null if it never did. */
  drainMs: number | null;
  /** From the tick until the sweep had handed every firing to the queues (the Worker). */
  dispatchMs: number | null;
  dispatched: { firings: number; users: number } | null;
  /** Alarm runs (the Worker) or batches (the baseline), with what they fired, dropped and put back. */
  runs: number;
  fired: number;
  obsolete: number;
  retried: number;
  /** D1 round trips of the firing, the sweep's included. */
  roundTrips: number;
  /**
   * The Worker's alarm runs, from the clock each read as it began (the end of its request
   * id) to the time of its line: when the first and last began after the tick, and how long
   * they took (ms). Null when the lines carry no start.
   */
  alarmRuns: { firstStartMs: number; lastStartMs: number; p50: number; p90: number; max: number } | null;
  /** The tick's own answer: miniflare's outcome and when it came (it waits for every waitUntil). */
  tick: { status: number; body: string; ms: number } | null;
  /** The devtools connection's failure, if it failed: the counts are then incomplete. */
  consoleError: string | null;
}

export interface ServerResult {
  drain: Drain;
  check: FiringCheck;
  queues?: QueueCheck;
  /** What the loopback push service received during this server's drain. */
  push: PushTally;
}

export interface RemindersReport {
  startedAt: string;
  durationSeconds: number;
  settings: Record<string, unknown>;
  notes: string[];
  worker: ServerResult;
  baseline: ServerResult;
  targets: TargetCheck[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or `fallback` after `ms`; the timer does not outlive the race (it would hold the process). */
async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const seconds = (ms: number | null) => (ms === null ? "-" : (ms / 1000).toFixed(2));

/**
 * Ticks `server` once and follows its console until `expected` firings are logged (or
 * the time bound), then REMINDERS.settleSeconds more, so a late second firing lands
 * before the server stops.
 */
async function tickAndDrain(server: Server, expected: number, firedMessage: string): Promise<Drain> {
  const drain: Drain = {
    tickAt: 0,
    drainMs: null,
    dispatchMs: null,
    dispatched: null,
    runs: 0,
    fired: 0,
    obsolete: 0,
    retried: 0,
    roundTrips: 0,
    alarmRuns: null,
    tick: null,
    consoleError: null,
  };
  const starts: number[] = [];
  const durations: number[] = [];
  let sweepRoundTrips = 0;
  let lastFiredAt = 0;
  let drained: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    drained = resolve;
  });
  const onLine = (line: ConsoleLine) => {
    const entry = jsonLine(line.text);
    if (!entry || drain.tickAt === 0) return;
    if (entry.message === WORKER_DISPATCHED) {
      drain.dispatchMs = line.timestamp - drain.tickAt;
      drain.dispatched = { firings: count(entry.firings), users: count(entry.users) };
      sweepRoundTrips = typeof entry.d1RoundTrips === "number" ? entry.d1RoundTrips : SWEEP_ROUND_TRIPS;
    } else if (entry.message === firedMessage) {
      drain.runs += typeof entry.batches === "number" ? entry.batches : 1;
      // A ReminderQueue's request id ends with the time its alarm run began: `reminders:<user>:<ms>`.
      const began = Number(/:(\d{13})$/.exec(String(entry.requestId ?? ""))?.[1]);
      if (Number.isFinite(began)) {
        starts.push(began - drain.tickAt);
        durations.push(line.timestamp - began);
      }
      drain.fired += count(entry.fired);
      drain.obsolete += count(entry.obsolete);
      drain.retried += count(entry.retried);
      drain.roundTrips += count(entry.d1RoundTrips);
      lastFiredAt = Math.max(lastFiredAt, line.timestamp);
      if (drain.fired >= expected && drain.drainMs === null) {
        drain.drainMs = lastFiredAt - drain.tickAt;
        drained();
      }
    }
  };
  const follower = await followConsole(server.inspector, onLine);
  try {
    drain.tickAt = Date.now();
    const tick = fetch(server.origin + TICK_PATH).then(async (response) => ({
      status: response.status,
      body: await response.text(),
      ms: Date.now() - drain.tickAt,
    }));
    tick.catch(() => undefined);
    await within(done, REMINDERS.drainTimeoutSeconds * 1000, undefined);
    await sleep(REMINDERS.settleSeconds * 1000);
    drain.tick = await within(tick, TICK_ANSWER_TIMEOUT_MS, null).catch((error) => ({
      status: 0,
      body: String(error),
      ms: Date.now() - drain.tickAt,
    }));
  } finally {
    drain.consoleError = follower.error();
    follower.close();
  }
  drain.roundTrips += sweepRoundTrips;
  if (durations.length > 0) {
    durations.sort((a, b) => a - b);
    const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? 0;
    drain.alarmRuns = {
      firstStartMs: Math.min(...starts),
      lastStartMs: Math.max(...starts),
      p50: at(0.5),
      p90: at(0.9),
      max: durations[durations.length - 1] ?? 0,
    };
  }
  return drain;
}

/** Starts both servers together; if either fails, stops the other before throwing. */
function evaluate(worker: ServerResult, baseline: ServerResult, seed: RemindersSeed): TargetCheck[] {
  const reminders = seed.reminders.length;
  const pushReminders = seed.reminders.filter((reminder) => reminder.channel === "push").length;
  const ratio =
    worker.drain.drainMs !== null && baseline.drain.drainMs
      ? worker.drain.drainMs / baseline.drain.drainMs
      : Number.NaN;
  const perReminder = worker.drain.roundTrips / reminders;
  const drainValue =
    worker.drain.drainMs === null
      ? `not drained in ${REMINDERS.drainTimeoutSeconds} s (${worker.drain.fired} of ${reminders} fired)`
      : `${seconds(worker.drain.drainMs)} s / ${seconds(baseline.drain.drainMs)} s = ${ratio.toFixed(2)}x`;
  const { check, push } = worker;
  const sent = check.pushDeliveries.sent ?? 0;
  const deliveries = Object.entries(check.pushDeliveries)
    .map(([state, n]) => `${n} ${state}`)
    .join(", ");
  return [
    {
      target: `drain time <= ${REMINDERS.maxDrainRatio}x the baseline's`,
      subject: "Worker / baseline",
      value: drainValue,
      pass: Number.isFinite(ratio) && ratio <= REMINDERS.maxDrainRatio,
    },
    {
      target: "duplicates = 0",
      subject: "Worker notifications",
      value: `${check.duplicates} (most per reminder and occurrence: ${check.maxPerOccurrence})`,
      pass: check.duplicates === 0 && check.maxPerOccurrence <= 1,
    },
    {
      target: "duplicates = 0",
      subject: "Worker pushes",
      value: `${push.duplicates} (${push.requests} requests for ${push.pushed} reminders${push.withoutTopic ? `, ${push.withoutTopic} without a Topic` : ""})`,
      pass: push.duplicates === 0 && push.withoutTopic === 0,
    },
    {
      target: "lost = 0",
      subject: "Worker notifications",
      value: `${check.lost}${check.wrongOccurrence ? ` (${check.wrongOccurrence} for another occurrence)` : ""}`,
      pass: check.lost === 0 && check.wrongOccurrence === 0,
    },
    {
      target: "lost = 0",
      subject: "Worker pushes",
      value: `${pushReminders - push.pushed} of ${pushReminders} (deliveries: ${deliveries || "none"})`,
      pass: push.pushed === pushReminders && sent === pushReminders,
    },
    {
      target: "every reminder advanced",
      subject: "Worker",
      value: `${check.advanced} of ${check.reminders} fired, once, with nothing left to fire`,
      pass: check.advanced === check.reminders,
    },
    {
      target: `D1 queries per reminder <= ${REMINDERS.maxQueriesPerReminder}`,
      subject: "Worker",
      value: `${perReminder.toFixed(3)} (${worker.drain.roundTrips} / ${reminders}; baseline ${(baseline.drain.roundTrips / reminders).toFixed(3)})`,
      pass: perReminder <= REMINDERS.maxQueriesPerReminder,
    },
  ];
}

const TABLE_HEADERS = [
  "server",
  "drain s",
  "dispatched s",
  "tick answered s",
  "fired",
  "alarm runs / batches",
  "D1 queries",
  "per reminder",
  "notifications",
  "lost",
  "duplicates",
  "advanced",
];

function tableRows(report: Pick<RemindersReport, "worker" | "baseline">): string[][] {
  return (
    [
      ["Worker", report.worker],
      ["baseline", report.baseline],
    ] as const
  ).map(([name, { drain, check }]) => [
    name,
    seconds(drain.drainMs),
    seconds(drain.dispatchMs),
    drain.tick ? `${seconds(drain.tick.ms)}${drain.tick.status === 200 ? "" : ` (${drain.tick.status})`}` : "-",
    String(drain.fired),
    String(drain.runs),
    String(drain.roundTrips),
    (drain.roundTrips / check.reminders).toFixed(3),
    String(check.notifications),
    String(check.lost),
    String(check.duplicates),
    String(check.advanced),
  ]);
}

function formatTable(report: Pick<RemindersReport, "worker" | "baseline">): string {
  const rows = [TABLE_HEADERS, ...tableRows(report)];
  const widths = TABLE_HEADERS.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ");
  return [line(TABLE_HEADERS), widths.map((width) => "-".repeat(width)).join("  "), ...rows.slice(1).map(line)].join(
    "\n",
  );
}

function markdown(report: RemindersReport): string {
  const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [
    "# Reminders benchmark results",
    "",
    `Started ${report.startedAt}, took ${Math.round(report.durationSeconds)} s.`,
    "",
    ...report.notes.map((note) => `- ${note}`),
    "",
    row(TABLE_HEADERS),
    row(TABLE_HEADERS.map((_, i) => (i === 0 ? "---" : "---:"))),
    ...tableRows(report).map(row),
    "",
    "## Targets",
    "",
    ...targetsMarkdown(report.targets),
    "",
  ].join("\n");
}

const sinceTick = (at: number | null, drain: Drain) => (at === null ? null : at - drain.tickAt);

function alarmRunsNote(drain: Drain): string {
  const runs = drain.alarmRuns;
  if (!runs) return "Worker: its lines carried no alarm start times.";
  return `Worker alarm runs began ${seconds(runs.firstStartMs)} to ${seconds(runs.lastStartMs)} s after the tick and took ${seconds(runs.p50)} s (p50), ${seconds(runs.p90)} s (p90), ${seconds(runs.max)} s (max) from their start to their line.`;
}

function notesFor(
  report: Pick<RemindersReport, "worker" | "baseline">,
  seed: RemindersSeed,
  loadAtStart: number,
): string[] {
  const { worker, baseline } = report;
  const total = seed.reminders.length;
  const dispatched = worker.drain.dispatched;
  const pushCount = seed.reminders.filter((reminder) => reminder.channel === "push").length;
  const notes = [
    `${seed.users} users x ${REMINDERS.perUser} reminders = ${total}, each on a database row's date property, one-off, all due (next_fire_at within the minute before the seed), dispatched by one cron tick (GET ${TICK_PATH.split("?")[0]}). ${pushCount} of them (${REMINDERS.pushUsers} users') are push reminders, pushed to a loopback push service (one subscription per user); the rest in_app.`,
    "Drain: from the tick until the runtime wrote the console line that brought the fired count to every reminder (the devtools protocol's timestamp of the line: see README.md). Worker: the sum of `fired` over its ReminderQueue alarms' `reminders fired` lines; baseline: its one line after its last batch.",
    `D1 queries: the sum of \`d1RoundTrips\` over the Worker's alarm runs plus the sweep's ${SWEEP_ROUND_TRIPS}; the baseline's sweep read plus a read and a write batch per batch of 50 reminders.`,
    `Worker: ${worker.drain.runs} alarm runs, ${worker.drain.obsolete} firings dropped as obsolete, ${worker.drain.retried} put back; the sweep handed ${dispatched?.firings ?? "?"} firings to ${dispatched?.users ?? "?"} queues, done ${seconds(worker.drain.dispatchMs)} s after the tick.`,
    alarmRunsNote(worker.drain),
    `Pushes: the Worker sent ${worker.push.requests} requests for ${worker.push.pushed} reminders within its alarm runs (so within its drain); the baseline sends none (it writes the same pending deliveries: ${baseline.check.pushDeliveries.pending ?? 0}).`,
    `Baseline: ${baseline.drain.runs} batches, begun ${seconds(sinceTick(baseline.check.firstCreatedAt, baseline.drain))} to ${seconds(sinceTick(baseline.check.lastCreatedAt, baseline.drain))} s after the tick (the notifications' created_at: the clock each batch read as it began).`,
    `Machine: ${availableParallelism()} CPUs shared by both servers and the bench (1-min load average ${loadAtStart.toFixed(2)} at start).`,
  ];
  if (worker.queues) {
    notes.push(
      `ReminderQueue objects after the run: ${worker.queues.queues} with a queue, ${worker.queues.queued} firings still queued, ${worker.queues.fired} in their fired ledgers.`,
    );
  }
  for (const [name, result] of [
    ["Worker", worker],
    ["baseline", baseline],
  ] as const) {
    if (result.drain.consoleError)
      notes.push(`${name}: console follower failed (${result.drain.consoleError}); counts may be short.`);
    if (result.drain.tick && result.drain.tick.status !== 200) {
      notes.push(`${name}: the tick answered ${result.drain.tick.status}: ${result.drain.tick.body.slice(0, 300)}`);
    }
    if (!result.drain.tick)
      notes.push(`${name}: the tick had not answered ${TICK_ANSWER_TIMEOUT_MS / 1000} s after the drain.`);
  }
  return notes;
}

/**
 * The reminders section: seeds, serves the Worker (`worker`, already built) and the
 * baseline on loopback, ticks each once, verifies, reports. Returns 0 when every target
 * passes, 1 otherwise; throws when the bench itself fails (the baseline included).
 */
export async function runRemindersBench(
  log: (message: string) => void,
  runDir: string,
  worker: BuiltWorker,
): Promise<number> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const [loadAtStart = 0] = loadavg();
  const dir = join(runDir, "reminders");
  await mkdir(dir, { recursive: true });
  const baselineWorker = await build(
    { ...BASELINE, compatibilityDate: await workerCompatibilityDate() },
    join(dir, "build", "baseline"),
  );

  const total = REMINDERS.users * REMINDERS.perUser;
  const receiver = await startPushReceiver();
  defer(receiver.close);
  log(`Reminders: seeding ${total} due reminders of ${REMINDERS.users} users in a fresh local D1`);
  const seed = await seedReminders(dir, receiver.endpoint);
  log("Reminders: starting the Worker and the baseline on loopback");
  const [workerServer, baselineServer] = await startBoth(
    [worker, baselineWorker],
    [seed.workerState, seed.baselineState],
  );
  const stopWorker = defer(workerServer.stop);
  const stopBaseline = defer(baselineServer.stop);
  const ready = (await (await fetch(`${baselineServer.origin}/`)).json()) as { due?: number };
  if (ready.due !== total) throw new Error(`The reminders baseline sees ${ready.due} due reminders, expected ${total}`);

  // One server at a time, the other stopped: what a server still does after its drain (its
  // runtime flushing 1000 objects' storage, wrangler relaying their console lines) would
  // otherwise land on the next one's drain. The baseline goes first: it leaves little behind.
  log("Reminders: one tick to the baseline, waiting for every reminder to fire");
  const baselineDrain = await tickAndDrain(baselineServer, total, BASELINE_FIRED);
  await stopBaseline();
  const baselinePush = receiver.tally();
  log(`Reminders: baseline fired ${baselineDrain.fired} in ${seconds(baselineDrain.drainMs)} s`);
  log("Reminders: one tick to the Worker, waiting for every reminder to fire");
  const workerDrain = await tickAndDrain(workerServer, total, WORKER_FIRED);
  await stopWorker();
  const afterWorker = receiver.tally();
  const workerPush: PushTally = {
    requests: afterWorker.requests - baselinePush.requests,
    pushed: afterWorker.pushed - baselinePush.pushed,
    duplicates: afterWorker.duplicates - baselinePush.duplicates,
    withoutTopic: afterWorker.withoutTopic - baselinePush.withoutTopic,
  };
  log(`Reminders: Worker fired ${workerDrain.fired} in ${seconds(workerDrain.drainMs)} s`);

  const workerResult: ServerResult = {
    drain: workerDrain,
    check: await checkFirings(seed.workerState, seed.reminders),
    queues: await checkQueues(seed.workerState, "ReminderQueue"),
    push: workerPush,
  };
  const baselineResult: ServerResult = {
    drain: baselineDrain,
    check: await checkFirings(seed.baselineState, seed.reminders),
    push: baselinePush,
  };
  const reference = baselineResult.check;
  if (
    baselineDrain.drainMs === null ||
    reference.lost > 0 ||
    reference.duplicates > 0 ||
    reference.advanced !== total
  ) {
    throw new Error(
      `The reminders baseline did not fire every reminder once (drain ${seconds(baselineDrain.drainMs)} s, lost ${reference.lost}, duplicates ${reference.duplicates}, advanced ${reference.advanced} of ${total})`,
    );
  }

  const targets = evaluate(workerResult, baselineResult, seed);
  const pair = { worker: workerResult, baseline: baselineResult };
  const report: RemindersReport = {
    startedAt,
    durationSeconds: (performance.now() - started) / 1000,
    settings: { ...REMINDERS, reminders: total, tickPath: TICK_PATH },
    notes: notesFor(pair, seed, loadAtStart),
    ...pair,
    targets,
  };
  console.log(`\n${formatTable(report)}\n`);
  for (const note of report.notes) console.log(`* ${note}`);
  console.log(`\n${formatTargets(targets)}\n`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  for (const base of [`reminders-${startedAt.replace(/[:.]/g, "-")}`, "reminders-latest"]) {
    await writeFile(join(RESULTS_DIR, `${base}.json`), json);
    await writeFile(join(RESULTS_DIR, `${base}.md`), markdown(report));
  }
  log(`Reminders: wrote ${join(RESULTS_DIR, "reminders-latest.md")} (and .json)`);
  return targets.every((check) => check.pass) ? 0 : 1;
}
