// npm run db:meta: writes migrations/meta (Drizzle's journal and snapshots) from the migrations
// themselves. Each migration is applied in turn to an in-memory SQLite, and its snapshot is what
// the database then holds that Drizzle can declare; so `drizzle-kit generate` diffs
// src/db/schema.ts against the database the migrations make, hand-written migrations included.
// It also writes the table of migrations/README.md that names, for each object Drizzle does not
// declare (views, triggers, FTS5 and other hand-written tables), the migration defining it now.
//
// With --check (part of npm run check) it writes nothing, and fails when one of those files is not
// what it would write, or when src/db/schema.ts and the migrated database disagree.
// migrations/README.md says when to run it.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { generateSQLiteDrizzleJson, generateSQLiteMigration } from "drizzle-kit/api";
import * as schema from "../src/db/schema.ts";
import { HAND_WRITTEN_TABLES, type LiveSchema, readSchema, type UndeclaredObject } from "./schema-snapshot.ts";

const MIGRATIONS = "migrations";
const META = join(MIGRATIONS, "meta");
const JOURNAL = join(META, "_journal.json");
const README = join(MIGRATIONS, "README.md");
const README_START = "<!-- Written by npm run db:meta from the migrations. -->";
const README_END = "<!-- End of the part npm run db:meta writes. -->";
/** The `prevId` of the first snapshot. */
const ORIGIN = "00000000-0000-0000-0000-000000000000";

const checkOnly = process.argv.includes("--check");
const problems: string[] = [];
const pad = (idx: number) => String(idx).padStart(4, "0");
const snapshotPath = (idx: number) => join(META, `${pad(idx)}_snapshot.json`);

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A file's JSON, or undefined when it is missing or unreadable (conflict markers after a merge, say). */
function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readText(path) ?? "") as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted and `_meta` (Drizzle's record of renames) left out: what two snapshots are compared by. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (key, v: unknown) => {
    if (key === "_meta") return undefined;
    if (!v || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)));
  });

/** Where `migrated` and `declared` differ, one `path: migrations … | src/db/schema.ts …` line each. */
function differences(migrated: unknown, declared: unknown, path: string[] = []): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObject(migrated) && isObject(declared)) {
    return [...new Set([...Object.keys(migrated), ...Object.keys(declared)])]
      .sort()
      .flatMap((key) => differences(migrated[key], declared[key], [...path, key]));
  }
  if (canonical(migrated) === canonical(declared)) return [];
  const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v));
  return [`  ${path.join(".")}: migrations ${show(migrated)} | src/db/schema.ts ${show(declared)}`];
}

// The migrations, in order: NNNN_name.sql numbered from 0000, without gaps or repeats.
const files = readdirSync(MIGRATIONS)
  .filter((file) => file.endsWith(".sql"))
  .sort();
const misnumbered = files.filter((file, idx) => !file.startsWith(`${pad(idx)}_`));
if (misnumbered.length > 0) {
  console.error(
    `Migrations are numbered from 0000 without gaps or repeats; out of place: ${misnumbered.join(", ")}.\n` +
      "After a merge, renumber the one not applied anywhere yet (migrations/README.md).",
  );
  process.exit(1);
}

// Each migration applied in turn, and what the database holds after it.
const db = new DatabaseSync(":memory:");
const steps: { tag: string; sql: string; schema: LiveSchema }[] = [];
for (const file of files) {
  const sql = readFileSync(join(MIGRATIONS, file), "utf8");
  try {
    db.exec(sql);
  } catch (error) {
    console.error(`${file} fails on the database the migrations before it make: ${(error as Error).message}`);
    process.exit(1);
  }
  const schema = await readSchema(async (query) => db.prepare(query).all());
  steps.push({ tag: file.slice(0, -".sql".length), sql, schema });
}
const final = steps.at(-1)?.schema ?? { tables: {}, undeclared: [] };

for (const name of Object.keys(HAND_WRITTEN_TABLES)) {
  if (!final.undeclared.some((o) => o.name === name && o.kind === "table")) {
    problems.push(`HAND_WRITTEN_TABLES (scripts/schema-snapshot.ts) names ${name}, which the migrations do not make.`);
  }
}

// Where each undeclared object's current definition is. A migration that rebuilds a table (drizzle-kit's
// `__new_<table>`, DROP, RENAME) drops its triggers: unless it drops them by name, that is a mistake.
const definedIn = new Map<string, string>();
steps.forEach((step, idx) => {
  const before = new Map((steps[idx - 1]?.schema.undeclared ?? []).map((o) => [o.name, o]));
  const after = new Map(step.schema.undeclared.map((o) => [o.name, o]));
  for (const [name, object] of before) {
    const dropped = new RegExp(`DROP\\s+TRIGGER\\s+(IF\\s+EXISTS\\s+)?[\`"]?${name}\\b`, "i");
    if (object.kind === "trigger" && !after.has(name) && !dropped.test(step.sql)) {
      problems.push(
        `${step.tag} drops trigger ${name} without naming it (rebuilding ${object.table} drops its triggers): ` +
          "create it again after the rebuild, or DROP TRIGGER it.",
      );
    }
  }
  for (const [name, object] of after) {
    if (before.get(name)?.sql !== object.sql) definedIn.set(name, step.tag);
  }
});

// The journal: one entry per migration, keeping the times already written (in increasing order), read from
// the entries' text when conflict markers make the file unreadable.
const oldEntries = new Map(
  (
    (readJson(JOURNAL)?.entries as Record<string, unknown>[] | undefined) ??
    [...(readText(JOURNAL) ?? "").matchAll(/"when":\s*(\d+),\s*"tag":\s*"([^"]+)"/g)].map(
      ([, time, tag]): Record<string, unknown> => ({ when: Number(time), tag }),
    )
  ).map((entry) => [entry.tag, entry]),
);
let when = 0;
const journal = {
  version: "7",
  dialect: "sqlite",
  entries: steps.map(({ tag }, idx) => {
    const old = oldEntries.get(tag);
    if (typeof old?.when === "number" && old.when > when) when = old.when;
    else when = when === 0 ? Date.now() : when + 1;
    return { idx, version: "6", when, tag, breakpoints: old?.breakpoints !== false };
  }),
};

// The snapshots: one per migration, each naming the one before (the first names ORIGIN), keeping the ids
// already written unless one is repeated.
const usedIds = new Set([ORIGIN]);
let prevId = ORIGIN;
const snapshots = steps.map((step, idx) => {
  const oldId = readJson(snapshotPath(idx))?.id;
  const id = typeof oldId === "string" && !usedIds.has(oldId) ? oldId : randomUUID();
  usedIds.add(id);
  const snapshot = {
    version: "6" as const,
    dialect: "sqlite" as const,
    id,
    prevId,
    tables: step.schema.tables,
    views: {},
    enums: {},
    _meta: { schemas: {}, tables: {}, columns: {} },
    internal: { indexes: {} },
  };
  prevId = id;
  return snapshot;
});

// The README's table of what src/db/schema.ts does not declare.
const KIND_ORDER: UndeclaredObject["kind"][] = ["virtual table", "table", "index", "view", "trigger"];
const on = (object: UndeclaredObject): string => {
  if (object.kind === "index") return `\`${object.table}\``;
  if (object.kind !== "trigger") return "";
  const event = /\b(BEFORE|AFTER|INSTEAD\s+OF)\s+(DELETE|INSERT|UPDATE(?:\s+OF\s+[\s\S]+?)?)\s+ON\s/i.exec(object.sql);
  return `\`${object.table}\`${event ? `, ${`${event[1]} ${event[2]}`.replace(/\s+/g, " ")}` : ""}`;
};
const rows = final.undeclared
  .toSorted(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      (a.table ?? "").localeCompare(b.table ?? "") ||
      a.name.localeCompare(b.name),
  )
  .map((o) => `| \`${o.name}\` | ${o.kind} | ${on(o)} | [${definedIn.get(o.name)}](${definedIn.get(o.name)}.sql) |`);
const table = ["| Object | Kind | On | Current definition |", "| --- | --- | --- | --- |", ...rows].join("\n");
const readme = readText(README) ?? "";
const start = readme.indexOf(README_START);
const end = readme.lastIndexOf(README_END);
if (start === -1 || end < start) problems.push(`${README} lacks the lines ${README_START} and ${README_END}.`);
const newReadme = `${readme.slice(0, start + README_START.length)}\n${table}\n${readme.slice(end)}`;

// Each file as written, or as it would be (--check).
const outputs: { path: string; text: string; same: (old: string | undefined) => boolean }[] = [
  ...[journal, ...snapshots].map((value, idx) => {
    const path = idx === 0 ? JOURNAL : snapshotPath(idx - 1);
    return { path, text: JSON.stringify(value, null, 2), same: () => canonical(readJson(path)) === canonical(value) };
  }),
  ...(start === -1 || end < start
    ? []
    : [{ path: README, text: newReadme, same: (old?: string) => old === newReadme }]),
];
const outdated = outputs.filter((output) => !output.same(readText(output.path)));
const stale = readdirSync(META)
  .map((file) => join(META, file))
  .filter((path) => !outputs.some((output) => output.path === path));
if (checkOnly) {
  const paths = [...outdated.map((output) => output.path), ...stale];
  if (paths.length > 0) {
    problems.push(`Not what the migrations make: ${paths.join(", ")}. Run npm run db:meta (migrations/README.md).`);
  }
} else {
  for (const output of outdated) writeFileSync(output.path, output.text);
  for (const path of stale) rmSync(path);
  for (const output of outdated) console.log(`Wrote ${output.path}`);
  for (const path of stale) console.log(`Removed ${path}`);
  if (outdated.length + stale.length === 0) console.log(`${META} and ${README} are up to date.`);
}

// src/db/schema.ts against the migrated database: every difference, and what drizzle-kit generate would write.
const last = snapshots.at(-1);
if (last) {
  const declared = await generateSQLiteDrizzleJson(schema);
  const differing = differences(last.tables, declared.tables);
  const statements = await generateSQLiteMigration(last, declared);
  if (differing.length > 0 || statements.length > 0) {
    problems.push(
      [
        `src/db/schema.ts and the database the migrations make (up to ${steps.at(-1)?.tag}) disagree:`,
        ...differing,
        ...(statements.length > 0 ? ["drizzle-kit generate would write:", ...statements.map((s) => `  ${s}`)] : []),
      ].join("\n"),
    );
  }
}

if (problems.length > 0) {
  console.error(problems.join("\n\n"));
  process.exit(1);
}
