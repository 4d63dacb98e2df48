/**
 * Property-based fuzzing of every operation of the served OpenAPI document
 * (GET /documentation/openapi.json): a route added later is fuzzed with no new test code.
 *
 * Each request is a valid-ish request derived from the operation's schemas (ids of real
 * objects of the fuzzing user, examples where the document has them) with zero to two
 * mutations (arbitraries.ts: bad ids, bad or missing parameters, bad fields, malformed
 * bodies, wrong content types, other credentials, methods, headers). Every operation gets
 * its own user, fixtures (state.ts) and share of the runs; a further share interleaves all
 * operations on one user, so that one operation meets the objects another made.
 *
 * On every response (exchange.ts): no 5xx; every 4xx/5xx is the JSON envelope
 * `{error: string, code: string, details?: object}`; a
 * write refused with a 4xx leaves the stored data of both users unchanged; and no request
 * changes the data of a user it did not authenticate as.
 *
 * Replay: the seed is printed at the start. `FUZZ_SEED=<seed> npm run test:fuzz`
 * repeats the run; adding `-t "<operationId>: "` repeats one operation's test alone (its
 * requests depend only on the seed and its own fixtures). `FUZZ_RUNS` sets the total number
 * of requests, `FUZZ_OPS=<id>,<id>` fuzzes only those operations, and `FUZZ_COLLECT=1`
 * lists every distinct failure (the shortest request of each) instead of failing on the first.
 */
import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "../helpers/api";
import { aiProviders, providerOf } from "../helpers/fake-ai-provider";
import { type FakedThirdParties, fakeThirdParties } from "../helpers/third-party";
import { applyCase, type Case, caseArbitrary } from "./arbitraries";
import { type Exchange, exchange, formatExchange, type Stored, type ViolationKind } from "./exchange";
import { makeResolver, type OpenApiDocument, type Operation, operationsOf, vocabularyOf } from "./openapi";
import { World } from "./state";
import { answerThirdParty, configureThirdParties } from "./third-parties";

/** Every error body must carry a stable string `code` (the contract lists them). */
const REQUIRE_ERROR_CODE = true;

/**
 * Failures the fuzzer knows about, skipped until they are fixed in src: each entry names
 * one operation, the kind of violation and the requests it applies to.
 */
interface KnownDefect {
  operation: string;
  violation: ViolationKind;
  when: (x: Exchange) => boolean;
  description: string;
}
const KNOWN_DEFECTS: KnownDefect[] = [];

const DEFAULT_TOTAL_RUNS = 10_000;
/** Per operation: a run takes a few seconds; shrinking a failure takes longer. */
const OPERATION_TIMEOUT_MS = 90_000;
const MIXED_TIMEOUT_MS = 240_000;
/** Shrink steps for one failure: enough for a small counterexample, bounded in time. */
const MAX_SHRINKS = 150;

const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const totalRuns = env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : DEFAULT_TOTAL_RUNS;
if (!Number.isInteger(seed) || !Number.isInteger(totalRuns))
  throw new Error("FUZZ_SEED and FUZZ_RUNS must be integers");
const only = env.FUZZ_OPS?.split(",").map((id) => id.trim());
const collect = env.FUZZ_COLLECT === "1";
console.log(`[fuzz] seed ${seed}: replay with FUZZ_SEED=${seed} npm run test:fuzz`);

const doc = (await (await SELF.fetch("http://workspace.test/documentation/openapi.json")).json()) as OpenApiDocument;
const resolve = makeResolver(doc);
const vocabulary = vocabularyOf(doc);
const operations = operationsOf(doc).filter((op) => !only || only.includes(op.id));
/** A share of the runs goes to all operations interleaved on one user, so one operation meets another's objects. */
const MIXED_SHARE = operations.length > 1 ? 0.3 : 0;
const runsPerOperation = Math.ceil((totalRuns * (1 - MIXED_SHARE)) / Math.max(operations.length, 1));
const mixedRuns = Math.max(0, totalRuns - runsPerOperation * operations.length);
const arbitraries = new Map(
  operations.map((op) => [op, caseArbitrary(resolve, vocabulary, op).map((c) => ({ op, c }))]),
);

/** A 32-bit seed per test, so each replays alone. */
function seedFor(id: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash | 0;
}

const isKnown = (x: Exchange, kind: ViolationKind) =>
  KNOWN_DEFECTS.some((d) => d.operation === x.op.id && d.violation === kind && d.when(x));

let sent = 0;
/** Response statuses per operation, for the summary: a fair share of 2xx shows valid-ish requests get through. */
const statuses = new Map<string, Map<number, number>>();
const startedAt = Date.now();
/** FUZZ_COLLECT: the shortest request of each distinct failure. */
const collected = new Map<string, Exchange>();

function remember(x: Exchange): void {
  for (const violation of x.violations) {
    const labels = x.labels.map((l) => l.replace(/\[\d+\]/g, "[]")).join(" + ");
    const signature = `${x.op.id} | ${violation.kind} | ${x.status} | ${labels}`;
    const previous = collected.get(signature);
    if (!previous || x.url.length + x.bodyText.length < previous.url.length + previous.bodyText.length) {
      collected.set(signature, { ...x, violations: [violation] });
    }
  }
}

describe("contract fuzz", () => {
  let other: TestUser;
  let thirdParties: FakedThirdParties | undefined;
  let restoreSettings: (() => void) | undefined;
  beforeAll(async () => {
    // AI providers answer from a fake at the fetch seam (tests have no network); other hosts are passed on.
    const realFetch = globalThis.fetch;
    const answer = aiProviders();
    // Transcription and the notes tool: configured for the run, answered by fakes (third-parties.ts).
    restoreSettings = configureThirdParties();
    thirdParties = fakeThirdParties((request) =>
      providerOf(request) ? answer(request) : (answerThirdParty(request) ?? realFetch(request)),
    );
    other = await World.createOther();
  });

  afterAll(() => {
    thirdParties?.restore();
    restoreSettings?.();
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    console.log(`[fuzz] seed ${seed}: ${sent} requests over ${operations.length} operations in ${seconds} s`);
    const histogram = (counts: Map<number, number>) =>
      [...counts]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}:${n}`)
        .join(" ");
    const all = new Map<number, number>();
    for (const counts of statuses.values())
      for (const [status, n] of counts) all.set(status, (all.get(status) ?? 0) + n);
    console.log(`[fuzz] statuses ${histogram(all)}`);
    if (collect) {
      for (const [id, counts] of statuses) console.log(`[fuzz] ${id}: ${histogram(counts)}`);
      console.log(`[fuzz] ${collected.size} distinct failures`);
      for (const [signature, x] of [...collected].sort(([a], [b]) => a.localeCompare(b))) {
        console.log(`\n=== ${signature}\n${formatExchange(x)}`);
      }
    }
  });

  it("finds operations in the OpenAPI document", () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  /**
   * Fuzzes `ops` (one, or all interleaved) for `runs` requests on a new user with fixtures.
   * `name` seeds the run and, as a `-t` filter, selects the test to replay it.
   */
  async function fuzz(name: string, ops: Operation[], runs: number): Promise<void> {
    const world = await World.create(other);
    const stored: Stored = {};
    const checks = { requireErrorCode: REQUIRE_ERROR_CODE };
    const cases = fc.oneof(...ops.map((op) => arbitraries.get(op) as fc.Arbitrary<{ op: Operation; c: Case }>));
    const property = fc.asyncProperty(fc.limitShrink(cases, MAX_SHRINKS), async ({ op, c }) => {
      const { plan, labels } = applyCase(c);
      const x = await exchange(op, plan, labels, world, checks, stored);
      sent++;
      const counts = statuses.get(op.id) ?? new Map<number, number>();
      statuses.set(op.id, counts.set(x.status, (counts.get(x.status) ?? 0) + 1));
      x.violations = x.violations.filter((v) => !isKnown(x, v.kind));
      if (x.violations.length === 0) return;
      if (collect) return remember(x);
      throw new Error(formatExchange(x));
    });
    const testSeed = seedFor(name);
    const details = await fc.check(property, { seed: testSeed, numRuns: runs });
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : details.errorInstance;
      throw new Error(
        [
          `Fuzzing ${ops.length === 1 ? ops[0]?.id : name} failed at request ${details.numRuns} (then ${details.numShrinks} shrinks).`,
          `Replay: FUZZ_SEED=${seed} npx vitest run test/fuzz -t "${name}"`,
          String(error),
        ].join("\n"),
      );
    }
  }

  for (const op of operations) {
    it(`${op.id}: ${op.method} ${op.path}`, () => fuzz(`${op.id}: `, [op], runsPerOperation), OPERATION_TIMEOUT_MS);
  }

  it.runIf(mixedRuns > 0)(
    "all operations interleaved on one user",
    () => fuzz("all operations interleaved", operations, mixedRuns),
    MIXED_TIMEOUT_MS,
  );

  it.runIf(!only && !env.FUZZ_RUNS)(`sent at least ${DEFAULT_TOTAL_RUNS} requests`, () => {
    expect(sent).toBeGreaterThanOrEqual(DEFAULT_TOTAL_RUNS);
  });
});
