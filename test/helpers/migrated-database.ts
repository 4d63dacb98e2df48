import { env } from "cloudflare:test";

// What each test file starts from: the migrated database, with only the rows the migrations seed
// (such as the change log's horizon). Test files are not isolated (vitest.config.ts), so they share
// one D1: each file undoes what the files before it did, both rows (many assertions are about
// everything the caller can see, and shared blocks are visible to all) and schema (tests add
// triggers that inject failures, and scratch tables).

type Row = Record<string, unknown>;
interface SchemaObject {
  type: "table" | "index" | "trigger" | "view";
  name: string;
  sql: string;
}

/** The schema and the seeded rows, read once from the freshly migrated database. */
let migrated: { schema: SchemaObject[]; seeded: { table: string; rows: Row[] }[] } | null = null;

// What SQLite and D1 keep for themselves, and the search index's shadow tables (its FTS table's own).
const OWN_OBJECTS = `name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'
  AND name <> 'd1_migrations' AND name NOT LIKE 'blocks\\_search\\_%' ESCAPE '\\'`;

async function readSchema(): Promise<SchemaObject[]> {
  const { results } = await env.DB.prepare(
    `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND ${OWN_OBJECTS}`,
  ).all<SchemaObject>();
  return results;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const tablesOf = (schema: SchemaObject[]) => schema.filter((object) => object.type === "table").map(({ name }) => name);

/** Reads the schema and what the migrations seeded: call it right after they ran on an empty database. */
export async function recordMigratedDatabase(): Promise<void> {
  const schema = await readSchema();
  const tables = tablesOf(schema);
  const reads = await env.DB.batch<Row>(tables.map((table) => env.DB.prepare(`SELECT * FROM ${quoted(table)}`)));
  const seeded = tables
    .map((table, i) => ({ table, rows: reads[i]?.results ?? [] }))
    .filter(({ rows }) => rows.length > 0);
  migrated = { schema, seeded };
}

/**
 * Puts the database back as the migrations left it, in one batch: what a test added to the schema
 * is dropped (triggers first, so none fires on the deletes), what it dropped or changed is made
 * again, every table is emptied, and the seeded rows go back. Deletes run twice, because they fire
 * triggers that write to other tables (the change log).
 */
export async function resetToMigratedDatabase(): Promise<void> {
  if (!migrated) throw new Error("resetToMigratedDatabase: the migrated database was never recorded");
  const { schema, seeded } = migrated;
  const current = await readSchema();
  const key = (object: SchemaObject) => `${object.type} ${object.name}`;
  const wanted = new Map(schema.map((object) => [key(object), object]));
  const present = new Map(current.map((object) => [key(object), object]));
  const dropOrder = ["trigger", "view", "index", "table"] as const;
  const drops = dropOrder.flatMap((type) =>
    current
      .filter((object) => object.type === type && wanted.get(key(object))?.sql !== object.sql)
      .map((object) => `DROP ${type.toUpperCase()} IF EXISTS ${quoted(object.name)}`),
  );
  const creates = [...dropOrder]
    .reverse()
    .flatMap((type) =>
      schema
        .filter((object) => object.type === type && present.get(key(object))?.sql !== object.sql)
        .map(({ sql }) => sql),
    );
  const deletes = tablesOf(schema).map((table) => `DELETE FROM ${quoted(table)}`);
  const statements = [
    env.DB.prepare("PRAGMA defer_foreign_keys = ON"),
    ...[...drops, ...creates, ...deletes, ...deletes].map((sql) => env.DB.prepare(sql)),
    ...seeded.flatMap(({ table, rows }) =>
      rows.map((row) => {
        const columns = Object.keys(row);
        const placeholders = columns.map(() => "?").join(", ");
        return env.DB.prepare(
          `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES (${placeholders})`,
        ).bind(...Object.values(row));
      }),
    ),
  ];
  await env.DB.batch(statements);
}
