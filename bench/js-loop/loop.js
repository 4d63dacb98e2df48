// The entry `npm run bench:js` serves (bench/js.ts): the Worker's build and the baseline's, imported
// side by side, each asked for one read again and again inside the isolate, with D1 answered from
// memory and the quota admitting every request. What is left is each one's JavaScript and the
// runtime objects it makes (requests, responses, headers, digests): the part of a request a change
// to the Worker's code can move, measured without D1's and the quota's local simulations, whose
// cost (a few milliseconds a call, by turns) swings more than that part weighs.
//
// GET /__bench/js?target=baseline|0|1|...&path=<the read's path>&n=<requests>&c=<concurrent chains>
// answers {requests, failed, sizes, misses} once all have run (`sizes`: the distinct body sizes the
// 200s had, which must be the one size of the right answer); the caller times the whole request.
// The Worker's builds are numbered in builds.js, which bench/js.ts writes beside this file: all in
// one isolate, so two builds compare on one process and one D1 state.
import baseline from "./baseline.js";
import builds from "./builds.js";

export { ReminderQueue } from "./worker-0.js";

// Answers by statement, its method and its bound values. A time bound by the request (the
// credential's liveness at "now", a key's last use) is one key whatever the time: the answer is
// the same row, and a write bound with the time (the key's last use) is not sent again.
const answers = new Map();
const ISO_TIME = /\d{4}-\d\d-\d\dT[\d:.]+Z/g;
let misses = 0;

function remembered(key, ask) {
  const stable = key.replace(ISO_TIME, "<now>");
  if (answers.has(stable)) return Promise.resolve(answers.get(stable));
  misses += 1;
  return ask().then((answer) => {
    // Shared by every later request: frozen, so a server that changed what D1 gave it would fail
    // (a TypeError, a 500) rather than be timed on an answer the next request does not get.
    answers.set(stable, deepFreeze(answer));
    return answer;
  });
}

function deepFreeze(value) {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A D1 handle (binding or session) answering from memory, asking `real` the first time. */
function fromMemory(real) {
  const statement = (sql, values, underneath) => ({
    sql,
    values,
    underneath,
    bind: (...bound) => statement(sql, bound, underneath.bind(...bound)),
    all: () => remembered(`all ${sql} ${JSON.stringify(values)}`, () => underneath.all()),
    run: () => remembered(`run ${sql} ${JSON.stringify(values)}`, () => underneath.run()),
    first: (column) =>
      remembered(`first ${column ?? ""} ${sql} ${JSON.stringify(values)}`, () => underneath.first(column)),
    raw: (options) =>
      remembered(`raw ${options?.columnNames === true} ${sql} ${JSON.stringify(values)}`, () =>
        underneath.raw(options),
      ),
  });
  return {
    prepare: (sql) => statement(sql, [], real.prepare(sql)),
    batch: (statements) =>
      remembered(`batch ${statements.map((s) => `${s.sql} ${JSON.stringify(s.values)}`).join("; ")}`, () =>
        real.batch(statements.map((s) => s.underneath)),
      ),
    withSession: (constraint) => ({ ...fromMemory(real.withSession(constraint)), getBookmark: () => null }),
  };
}

const admitAll = { limit: async () => ({ success: true }) };

async function loop(request, env, ctx) {
  const url = new URL(request.url);
  const name = url.searchParams.get("target") ?? "";
  const target = name === "baseline" ? baseline : builds[Number(name)];
  const path = url.searchParams.get("path");
  if (!target || !path?.startsWith("/")) return Response.json({ error: "target and path, please" }, { status: 400 });
  const requests = Number(url.searchParams.get("n") ?? 100);
  const chains = Number(url.searchParams.get("c") ?? 1);
  const loopEnv = { ...env, DB: fromMemory(env.DB), API_RATE_LIMITER: admitAll };
  // The caller's headers (its credential, and the connection's address the runtime added).
  const headers = new Headers(request.headers);
  const before = misses;
  let failed = 0;
  const sizes = new Set();
  const chain = async (count) => {
    for (let i = 0; i < count; i++) {
      const response = await target.fetch(new Request(new URL(path, url), { headers }), loopEnv, ctx);
      const size = (await response.arrayBuffer()).byteLength;
      if (response.status === 200) sizes.add(size);
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: chains }, () => chain(Math.ceil(requests / chains))));
  return Response.json({
    requests: Math.ceil(requests / chains) * chains,
    failed,
    sizes: [...sizes],
    misses: misses - before,
  });
}

export default {
  fetch: (request, env, ctx) =>
    new URL(request.url).pathname === "/__bench/js" ? loop(request, env, ctx) : builds[0].fetch(request, env, ctx),
};
