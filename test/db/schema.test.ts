/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import journal from "../../migrations/meta/_journal.json";
import readme from "../../migrations/README.md?raw";
import { readSchema } from "../../scripts/schema-snapshot";

// The tests' D1 is migrated as production is (test/setup.ts), by workerd's SQLite. What it holds is
// what the last snapshot of migrations/meta says, which npm run check holds to src/db/schema.ts
// (scripts/migrations-meta.ts, on node:sqlite): so the schema Drizzle diffs against is the real one.

const snapshots = import.meta.glob<{ tables: unknown }>("../../migrations/meta/*_snapshot.json", {
  eager: true,
  import: "default",
});

const readD1 = () => readSchema(async (query) => (await env.DB.prepare(query).all<Record<string, unknown>>()).results);

it("holds every table, column and index of the last snapshot, and nothing else Drizzle can declare", async () => {
  const last = journal.entries.at(-1);
  const snapshot = snapshots[`../../migrations/meta/${String(last?.idx).padStart(4, "0")}_snapshot.json`];
  expect(snapshot, "the journal's last entry has a snapshot").toBeDefined();
  expect((await readD1()).tables).toEqual(snapshot?.tables);
});

it("has each view, trigger and hand-written table listed in migrations/README.md", async () => {
  const listed = [...readme.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
  const undeclared = (await readD1()).undeclared.map((object) => object.name);
  expect(undeclared.length).toBeGreaterThan(0);
  expect(listed.toSorted()).toEqual(undeclared.toSorted());
});
