// The databases bench's data, in a fresh local D1 (migrations first, then these
// rows by SQL), as the API would have stored it:
//
//   - one database per size in DATABASES.sizes (1,000 / 10,000 / 100,000 rows), each with
//     the same realistic schema in `database_properties`: a title, a status (4 options),
//     a select (3), a multi-select (5), a number, a date, a checkbox and a text, and the
//     four computed columns every new database gets; its rows' values keyed by those
//     `prop_...` ids in `blocks.properties`, spread by dataset.ts's seeded generator;
//   - a page with one paragraph (PATCH block, PUT page, parent of created blocks);
//   - a small database (WRITE_ROWS rows) that create row and PUT row write to;
//   - an empty database with the same schema, for the bulk-rows endpoint;
//   - a page tree of exactly DATABASES.duplicateBlocks blocks (duplicate).
//
// Rows go in as plain INSERTs into `blocks` after the schema records, so the triggers the
// migrations define (the full-text index, the row-value index, whatever else exists when
// the bench runs) fill their tables exactly as they do for rows written through the API.
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateApiKey } from "../src/auth/api-key-format.ts";
import { DATABASES } from "./config.ts";
import { createRandom } from "./dataset.ts";
import { inserts, tuple } from "./seed-sql.ts";
import { applyMigrations, executeFile } from "./wrangler.ts";

/** Rows of the database that create row and PUT row write to. */
const WRITE_ROWS = 100;
/** Rows per seed file: `wrangler d1 execute --file` runs one file as one batch. */
const ROWS_PER_FILE = 20_000;

export interface Option {
  id: string;
  name: string;
  color: string;
}

export interface Property {
  id: string;
  name: string;
  type: string;
  options: Option[];
}

/** One seeded database: its block id, its properties by role, and its row count. */
export interface SeededTable {
  id: string;
  rows: number;
  properties: Property[];
}

export interface DatabasesSeed {
  benchUserId: string;
  apiKey: string;
  /** The databases the row queries run on, one per size, in DATABASES.sizes order. */
  tables: SeededTable[];
  /** Written to by create row and PUT row; `rowId` is the row the PUTs change. */
  writes: { database: SeededTable; rowId: string; pageId: string; paragraphId: string };
  /** The empty database the bulk endpoint fills. */
  bulk: SeededTable;
  /** Root of the tree of DATABASES.duplicateBlocks blocks. */
  treeRootId: string;
  workerState: string;
  baselineState: string;
  /** The baseline's state without the change log's triggers (CHANGE_LOG_TRIGGERS): what the log costs a write. */
  logFreeState: string;
}

const STATUS = [
  ["Backlog", "gray"],
  ["Todo", "blue"],
  ["In progress", "yellow"],
  ["Done", "green"],
] as const;
const PRIORITY = [
  ["Low", "gray"],
  ["Medium", "orange"],
  ["High", "red"],
] as const;
const TAGS = [
  ["Frontend", "blue"],
  ["Backend", "purple"],
  ["Design", "pink"],
  ["Research", "brown"],
  ["Ops", "green"],
] as const;

const WORDS = (
  "project plan review meeting notes team design roadmap customer release feature bug fix sprint goal " +
  "metric budget launch draft spec api migration index query cache deploy incident onboarding audit " +
  "access backup schedule deadline owner priority decision summary proposal risk estimate scope " +
  "milestone vendor contract invoice payment support ticket feedback survey research report"
).split(" ");

/** The text property's values: a fixed pool, so text equality matches about 1% of rows at every size. */
export const NOTES = (() => {
  const random = createRandom(7);
  return Array.from({ length: 100 }, () => `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.pick(WORDS)}`);
})();

/** Dates of the date property: days over the two years from DATE_FROM. */
const DATE_FROM = Date.parse("2025-01-01T00:00:00Z");
const DATE_DAYS = 730;
const DAY = 86_400_000;
const ROWS_CREATED = Date.parse("2026-01-01T00:00:00Z");

/** Property names, as the API's clients name them in filters and sorts. */
export const NAMES = {
  title: "Name",
  status: "Status",
  select: "Priority",
  multi: "Tags",
  number: "Estimate",
  date: "Due",
  checkbox: "Reviewed",
  text: "Notes",
} as const;

type Ids = ReturnType<typeof createIds>;

function createIds(seed: number) {
  const random = createRandom(seed);
  const hex = (length: number) => Array.from({ length }, () => random.int(16).toString(16)).join("");
  return { uuid: random.uuid, propertyId: () => `prop_${hex(16)}`, optionId: () => `opt_${hex(16)}` };
}

/** A database's schema records: the eight typed properties and the four computed ones. */
function schemaFor(ids: Ids): Property[] {
  const options = (list: readonly (readonly [string, string])[]) =>
    list.map(([name, color]) => ({ id: ids.optionId(), name, color }));
  const property = (name: string, type: string, list: readonly (readonly [string, string])[] = []): Property => ({
    id: ids.propertyId(),
    name,
    type,
    options: options(list),
  });
  return [
    property(NAMES.title, "title"),
    property(NAMES.status, "status", STATUS),
    property(NAMES.select, "select", PRIORITY),
    property(NAMES.multi, "multi_select", TAGS),
    property(NAMES.number, "number"),
    property(NAMES.date, "date"),
    property(NAMES.checkbox, "checkbox"),
    property(NAMES.text, "text"),
    property("Created", "created_time"),
    property("Created by", "created_by"),
    property("Last edited", "last_edited_time"),
    property("Last edited by", "last_edited_by"),
  ];
}

export const propertyNamed = (table: SeededTable, name: string): Property => {
  const property = table.properties.find((candidate) => candidate.name === name);
  if (!property) throw new Error(`No property ${name}`);
  return property;
};

const optionNamed = (property: Property, name: string): Option => {
  const option = property.options.find((candidate) => candidate.name === name);
  if (!option) throw new Error(`No option ${name} in ${property.name}`);
  return option;
};

/** A row's values as the API stores them (canonical ids, options as {id, name, color}). */
export function storedValues(table: SeededTable, values: Partial<Record<keyof typeof NAMES, unknown>>) {
  const stored: Record<string, unknown> = {};
  for (const [role, value] of Object.entries(values)) {
    const property = propertyNamed(table, NAMES[role as keyof typeof NAMES]);
    if (value === undefined) continue;
    if (property.type === "status" || property.type === "select")
      stored[property.id] = optionNamed(property, String(value));
    else if (property.type === "multi_select") {
      stored[property.id] = (value as string[]).map((name) => optionNamed(property, name));
    } else stored[property.id] = value;
  }
  return stored;
}

/** One row's values, drawn from `random`: the same spread at every size. */
function rowValues(random: ReturnType<typeof createRandom>, index: number) {
  const tagCount = random.int(4);
  const tags: string[] = [];
  while (tags.length < tagCount) {
    const [name] = random.pick(TAGS);
    if (!tags.includes(name)) tags.push(name);
  }
  const estimate = random.next() < 0.05 ? undefined : 1 + random.int(1000);
  const due =
    random.next() < 0.1 ? undefined : new Date(DATE_FROM + random.int(DATE_DAYS) * DAY).toISOString().slice(0, 10);
  return {
    title: `${random.pick(WORDS)} ${random.pick(WORDS)} ${index}`,
    status: random.pick(STATUS)[0],
    select: random.pick(PRIORITY)[0],
    multi: tags,
    number: estimate,
    date: due,
    checkbox: random.next() < 0.3,
    text: random.pick(NOTES),
  };
}

interface SeedSql {
  blocks: string[];
  properties: string[];
}

const BLOCK_HEAD =
  "INSERT INTO blocks (id, type, parent_id, database_id, properties, content, position, created_by, last_edited_by, created_at, updated_at) VALUES\n";
const PROPERTY_HEAD =
  "INSERT INTO database_properties (id, database_id, name, name_key, type, options, position, created_at, updated_at) VALUES\n";

/** Writes the seed as SQL files in `dir`, in the order they must run; returns them and what they hold. */
async function writeSeed(dir: string, benchUserId: string, keySql: string) {
  const ids = createIds(20_000);
  const created = new Date(ROWS_CREATED - 30 * DAY).toISOString();
  const files: string[] = [];
  const write = async (sql: string) => {
    const file = join(dir, `databases-${String(files.length).padStart(3, "0")}.sql`);
    await writeFile(file, sql);
    files.push(file);
  };
  const head: SeedSql = { blocks: [], properties: [] };
  const block = (
    id: string,
    type: string,
    parent: string | null,
    database: string | null,
    properties: unknown,
    content: unknown,
    position: number,
    at = created,
  ) =>
    tuple([
      id,
      type,
      parent,
      database,
      JSON.stringify(properties),
      content === null ? null : JSON.stringify(content),
      position,
      benchUserId,
      benchUserId,
      at,
      at,
    ]);
  const paragraph = (text: string) => ({ rich_text: [{ type: "text", text }] });

  // Top level: a home page holding the databases, the writes page, the tree.
  const homeId = ids.uuid();
  head.blocks.push(block(homeId, "page", null, null, { title: "Databases bench" }, null, 1));
  const database = (title: string, rows: number, position: number): SeededTable => {
    const table = { id: ids.uuid(), rows, properties: schemaFor(ids) };
    head.blocks.push(block(table.id, "database", homeId, null, { title }, null, position));
    for (const [i, property] of table.properties.entries()) {
      head.properties.push(
        tuple([
          property.id,
          table.id,
          property.name,
          property.name.toLowerCase(),
          property.type,
          JSON.stringify(property.options),
          i,
          created,
          created,
        ]),
      );
    }
    return table;
  };
  const tables = DATABASES.sizes.map((size, i) => database(`Tasks ${size / 1000}k`, size, i + 1));
  const writesTable = database("Writes", WRITE_ROWS, tables.length + 1);
  const bulk = database("Bulk", 0, tables.length + 2);

  const pageId = ids.uuid();
  const paragraphId = ids.uuid();
  head.blocks.push(block(pageId, "page", homeId, null, { title: "Writes page" }, null, tables.length + 3));
  head.blocks.push(block(paragraphId, "paragraph", pageId, null, { color: "default" }, paragraph("first"), 1));

  // The duplicate's tree: a root, sub-pages, paragraphs under them; exactly duplicateBlocks blocks.
  const treeRootId = ids.uuid();
  const words = createRandom(30_000);
  head.blocks.push(block(treeRootId, "page", null, null, { title: "Tree to duplicate" }, null, 2));
  const subpages = 9;
  const perSubpage = Math.floor((DATABASES.duplicateBlocks - 1 - subpages) / subpages);
  let left = DATABASES.duplicateBlocks - 1 - subpages;
  for (let s = 1; s <= subpages; s++) {
    const subpageId = ids.uuid();
    head.blocks.push(block(subpageId, "page", treeRootId, null, { title: `Section ${s}` }, null, s));
    const count = s === subpages ? left : perSubpage;
    left -= count;
    for (let p = 1; p <= count; p++) {
      const text = Array.from({ length: 12 }, () => words.pick(WORDS)).join(" ");
      head.blocks.push(block(ids.uuid(), "paragraph", subpageId, null, { color: "default" }, paragraph(text), p));
    }
  }

  await write(
    [
      `INSERT INTO users (id, email, name) VALUES ${tuple([benchUserId, "bench@example.test", "Bench User"])};\n`,
      keySql,
      ...inserts(BLOCK_HEAD, head.blocks),
      ...inserts(PROPERTY_HEAD, head.properties),
    ].join(""),
  );

  // Rows, after their databases' schema records: the triggers see the schema when a row lands.
  let writesRowId = "";
  for (const table of [...tables, writesTable]) {
    const random = createRandom(table.rows);
    let batch: string[] = [];
    for (let i = 1; i <= table.rows; i++) {
      const values = rowValues(random, i);
      const id = random.uuid();
      if (table === writesTable && i === 1) writesRowId = id;
      // Created over the year before ROWS_CREATED, in row order.
      const at = new Date(ROWS_CREATED - 365 * DAY + Math.floor((i / table.rows) * 365 * DAY)).toISOString();
      batch.push(block(id, "database_row", null, table.id, storedValues(table, values), null, i, at));
      if (batch.length === ROWS_PER_FILE) {
        await write([...inserts(BLOCK_HEAD, batch)].join(""));
        batch = [];
      }
    }
    if (batch.length > 0) await write([...inserts(BLOCK_HEAD, batch)].join(""));
  }
  return {
    files,
    tables,
    writes: { database: writesTable, rowId: writesRowId, pageId, paragraphId },
    bulk,
    treeRootId,
  };
}

/**
 * The change log's triggers (migration 0021), named so a second baseline's copy can go without
 * them: the Worker's writes with the log on are also measured against bare writes without it.
 */
export const CHANGE_LOG_TRIGGERS = [
  "change_events_block_insert",
  "change_events_block_update",
  "change_events_block_delete",
  "change_events_schema_update",
  "change_events_comment_insert",
  "change_events_comment_update",
  "change_events_comment_delete",
] as const;

async function writeChangeLogOff(sqlDir: string): Promise<string> {
  const file = join(sqlDir, "change-log-off.sql");
  await writeFile(file, CHANGE_LOG_TRIGGERS.map((name) => `DROP TRIGGER ${name};\n`).join(""));
  return file;
}

/**
 * Migrations, then the seed, in a fresh local D1 under `workDir`, copied once per server; the
 * second baseline's copy without the change log (its writes leave no event).
 */
export async function seedDatabases(workDir: string): Promise<DatabasesSeed> {
  const workerState = join(workDir, "worker-state");
  const baselineState = join(workDir, "baseline-state");
  const logFreeState = join(workDir, "log-free-state");
  const sqlDir = join(workDir, "seed");
  await mkdir(sqlDir, { recursive: true });
  const benchUserId = createIds(1).uuid();
  const key = await generateApiKey();
  const keySql = `INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES ${tuple([
    crypto.randomUUID(),
    benchUserId,
    "Benchmark key",
    key.hash,
    key.displayPrefix,
    key.displaySuffix,
  ])};\n`;
  const seed = await writeSeed(sqlDir, benchUserId, keySql);
  await applyMigrations(workerState);
  for (const file of seed.files) await executeFile(workerState, file);
  await cp(workerState, baselineState, { recursive: true });
  await cp(workerState, logFreeState, { recursive: true });
  await executeFile(logFreeState, await writeChangeLogOff(sqlDir));
  const { files: _files, ...rest } = seed;
  return { ...rest, benchUserId, apiKey: key.raw, workerState, baselineState, logFreeState };
}
