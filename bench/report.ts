// Turns measurements into the printed table, the PASS/FAIL targets, and the
// JSON and Markdown files under bench/results/.
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DATASET_SIZES, TARGETS } from "./config.ts";
import { type LoadResult, ratioText } from "./load.ts";

/** Thresholds of one endpoint where they differ from the reads' (see TARGETS). */
export interface MeasurementTargets {
  minThroughputRatio: number;
  maxRoundTrips: number;
}

export interface Measurement {
  endpoint: string;
  size: number;
  worker: LoadResult;
  baseline: LoadResult;
  /**
   * D1 round trips of two Worker requests: one just before the load, and the
   * verification request. They can differ: a per-isolate cache (API keys, say)
   * is cold for the run's first request and expires now and then.
   */
  roundTrips: number;
  firstRoundTrips: number;
  /** The media endpoints' own targets; the reads use TARGETS. */
  targets?: MeasurementTargets;
}

export interface TargetCheck {
  target: string;
  subject: string;
  value: string;
  pass: boolean;
}

export interface Report {
  startedAt: string;
  durationSeconds: number;
  settings: Record<string, unknown>;
  notes: string[];
  measurements: Measurement[];
  /** The MCP get_page comparison (bench/mcp.ts); its target is among `targets`. */
  mcp: unknown;
  targets: TargetCheck[];
}

const ratio = (m: Measurement) => m.worker.requestsPerSecond / m.baseline.requestsPerSecond;
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const compactSize = (size: number) => (size % 1000 === 0 ? `${size / 1000}k` : String(size));

/** "Worker: 3x 500, 1 connection error", or "" for a clean run. */
function loadProblems(server: string, result: LoadResult): string {
  const parts = Object.entries(result.failedStatuses).map(([status, count]) => `${count}x ${status}`);
  if (result.errors > 0) parts.push(`${result.errors} connection errors`);
  return parts.length > 0 ? `${server} ${parts.join(", ")}` : "";
}

export function evaluateTargets(measurements: readonly Measurement[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const m of measurements) {
    const problems = [loadProblems("Worker", m.worker), loadProblems("baseline", m.baseline)].filter(Boolean);
    const suspect = problems.length > 0;
    const minimum = m.targets?.minThroughputRatio ?? TARGETS.minThroughputRatio;
    checks.push({
      target: `throughput ratio >= ${minimum}`,
      subject: `${m.endpoint} @ ${compactSize(m.size)}`,
      value: ratioText(m.worker, m.baseline) + (suspect ? ` (failed requests: ${problems.join("; ")})` : ""),
      pass: ratio(m) >= minimum && !suspect,
    });
  }
  const smallest = Math.min(...DATASET_SIZES);
  const largest = Math.max(...DATASET_SIZES);
  for (const large of measurements.filter((m) => m.size === largest && largest > smallest)) {
    const small = measurements.find((m) => m.size === smallest && m.endpoint === large.endpoint);
    if (!small) continue;
    const growth = large.worker.p50 / small.worker.p50;
    const baselineGrowth = large.baseline.p50 / small.baseline.p50;
    checks.push({
      target: `p50 @ ${compactSize(largest)} <= ${TARGETS.maxP50Growth}x p50 @ ${compactSize(smallest)}`,
      subject: large.endpoint,
      value: `${fixed(small.worker.p50, 2)} -> ${fixed(large.worker.p50, 2)} ms = ${fixed(growth, 2)}x (baseline ${fixed(baselineGrowth, 2)}x)`,
      pass: growth <= TARGETS.maxP50Growth,
    });
  }
  for (const m of measurements) {
    // The budget holds for every request, so the worse of the two counts.
    const worst = Math.max(m.roundTrips, m.firstRoundTrips);
    const maximum = m.targets?.maxRoundTrips ?? TARGETS.maxRoundTrips;
    checks.push({
      target: `D1 round trips <= ${maximum}`,
      subject: `${m.endpoint} @ ${compactSize(m.size)}`,
      value: roundTripsText(m),
      pass: worst <= maximum,
    });
  }
  // Each target's checks together, targets in order of first appearance: the
  // media endpoints' own thresholds sit apart from the reads'.
  const targets = [...new Set(checks.map((check) => check.target))];
  return targets.flatMap((target) => checks.filter((check) => check.target === target));
}

/** "1", or "1-2" when the two sampled requests differ (say, an API-key cache hit and a miss). */
function roundTripsText(m: Measurement): string {
  const [low, high] = [Math.min(m.roundTrips, m.firstRoundTrips), Math.max(m.roundTrips, m.firstRoundTrips)];
  return low === high ? String(low) : `${low}-${high}`;
}

const HEADERS = [
  "endpoint",
  "size",
  "worker req/s",
  "baseline req/s",
  "ratio",
  "worker p50 ms",
  "worker p99 ms",
  "baseline p50 ms",
  "baseline p99 ms",
  "D1 trips",
];

function tableRows(measurements: readonly Measurement[]): string[][] {
  return measurements.map((m) => [
    m.endpoint,
    compactSize(m.size),
    fixed(m.worker.requestsPerSecond, 0),
    fixed(m.baseline.requestsPerSecond, 0),
    fixed(ratio(m), 2),
    fixed(m.worker.p50, 2),
    fixed(m.worker.p99, 2),
    fixed(m.baseline.p50, 2),
    fixed(m.baseline.p99, 2),
    roundTripsText(m),
  ]);
}

/** A plain-text table: text columns left-aligned, numbers right-aligned. */
export function formatTable(measurements: readonly Measurement[]): string {
  const rows = [HEADERS, ...tableRows(measurements)];
  const widths = HEADERS.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ");
  return [line(HEADERS), widths.map((width) => "-".repeat(width)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

export function formatTargets(checks: readonly TargetCheck[]): string {
  const subjectWidth = Math.max(...checks.map((check) => check.subject.length));
  let current = "";
  const lines: string[] = [];
  for (const check of checks) {
    if (check.target !== current) {
      current = check.target;
      lines.push(`\n${current}`);
    }
    lines.push(`  ${check.pass ? "PASS" : "FAIL"}  ${check.subject.padEnd(subjectWidth)}  ${check.value}`);
  }
  const failed = checks.filter((check) => !check.pass).length;
  lines.push(`\n${checks.length - failed} passed, ${failed} failed`);
  return lines.join("\n").trimStart();
}

const markdownRow = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;

/** The targets as a Markdown table. */
export function targetsMarkdown(checks: readonly TargetCheck[]): string[] {
  return [
    markdownRow(["target", "subject", "value", "result"]),
    markdownRow(["---", "---", "---", "---"]),
    ...checks.map((check) => markdownRow([check.target, check.subject, check.value, check.pass ? "PASS" : "FAIL"])),
  ];
}

function markdown(report: Report): string {
  const row = markdownRow;
  const table = [
    row(HEADERS),
    row(HEADERS.map((_, i) => (i < 2 ? "---" : "---:"))),
    ...tableRows(report.measurements).map(row),
  ];
  const targets = targetsMarkdown(report.targets);
  return [
    "# Benchmark results",
    "",
    `Started ${report.startedAt}, took ${Math.round(report.durationSeconds)} s.`,
    "",
    ...report.notes.map((note) => `- ${note}`),
    "",
    ...table,
    "",
    "## Targets",
    "",
    ...targets,
    "",
  ].join("\n");
}

export const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

/** Writes `<timestamp>.json` and `.md`, and `latest.*` beside them; returns the Markdown path. */
export async function writeReport(report: Report): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const stamp = report.startedAt.replaceAll(":", "-").replace(/\.\d+Z$/, "Z");
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const md = markdown(report);
  for (const name of [stamp, "latest"]) {
    await writeFile(`${RESULTS_DIR}${name}.json`, json);
    await writeFile(`${RESULTS_DIR}${name}.md`, md);
  }
  return `${RESULTS_DIR}latest.md`;
}
