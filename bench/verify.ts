// Before any load: both servers must read the seeded database and give the same,
// expected answer for every endpoint. Also reads the Worker's D1 round trips.
import type { Dataset } from "./dataset.ts";
import { blockCountOf, blockIds, ENDPOINTS, type Endpoint } from "./endpoints.ts";
import { type ProbeResult, probe } from "./load.ts";
import type { Server } from "./servers.ts";

export interface Target {
  server: Server;
  headers: Record<string, string>;
}

const sameIds = (a: string[], b: string[], ordered: boolean) =>
  ordered ? a.join() === b.join() : [...a].sort().join() === [...b].sort().join();

function checkAnswer(endpoint: Endpoint, dataset: Dataset, worker: ProbeResult, baseline: ProbeResult): void {
  const fail = (problem: string) => {
    throw new Error(`${endpoint.name} @ ${dataset.size}: ${problem}`);
  };
  if (worker.status !== 200) fail(`Worker answered ${worker.status}: ${JSON.stringify(worker.body)}`);
  if (baseline.status !== 200) fail(`baseline answered ${baseline.status}: ${JSON.stringify(baseline.body)}`);
  const workerIds = blockIds(worker.body);
  const baselineIds = blockIds(baseline.body);
  const expected = endpoint.expectedBlocks(dataset.fixtures);
  if (workerIds.length !== expected) fail(`Worker returned ${workerIds.length} blocks, expected ${expected}`);
  if (!sameIds(workerIds, baselineIds, endpoint.ordered)) {
    fail(`the servers disagree:\n  Worker   ${workerIds.join(" ")}\n  baseline ${baselineIds.join(" ")}`);
  }
  if (worker.totalCount !== baseline.totalCount) {
    fail(`X-Total-Count differs: Worker ${worker.totalCount}, baseline ${baseline.totalCount}`);
  }
  if (worker.roundTrips === null) fail("the Worker sent no Server-Timing d1 round trips");
}

/** Returns the Worker's D1 round trips per endpoint name. */
export async function verifyServers(dataset: Dataset, worker: Target, baseline: Target): Promise<Map<string, number>> {
  // The baseline counts rows itself: proof that its copy of the state holds what the seed wrote.
  const seen = blockCountOf((await probe(`${baseline.server.origin}/`, baseline.headers)).body);
  if (seen !== dataset.size) {
    throw new Error(`The baseline sees ${seen} blocks, the seed wrote ${dataset.size}: not the same D1 state`);
  }
  const roundTrips = new Map<string, number>();
  for (const endpoint of ENDPOINTS) {
    const path = endpoint.path(dataset.fixtures);
    const workerAnswer = await probe(worker.server.origin + path, worker.headers);
    const baselineAnswer = await probe(baseline.server.origin + path, baseline.headers);
    checkAnswer(endpoint, dataset, workerAnswer, baselineAnswer);
    roundTrips.set(endpoint.name, workerAnswer.roundTrips ?? Number.NaN);
  }
  return roundTrips;
}
