// What a migrated SQLite database holds, read as Drizzle's snapshots describe tables
// (migrations/meta/NNNN_snapshot.json, `tables`), and the objects Drizzle does not describe
// (views, triggers, FTS5 and other hand-written tables) with their SQL. Read by
// scripts/migrations-meta.ts (migrations applied to node:sqlite in memory) and by
// test/db/schema.test.ts (the tests' D1). No Node imports: it runs in both.

/** Runs one read-only statement and returns its rows. */
export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

export interface SnapshotColumn {
  name: string;
  type: string;
  primaryKey: boolean;
  notNull: boolean;
  autoincrement: boolean;
  default?: string | number | boolean;
  generated?: { as: string; type: "virtual" | "stored" };
}

export interface SnapshotIndex {
  name: string;
  columns: string[];
  where?: string;
  isUnique: boolean;
}

export interface SnapshotForeignKey {
  name: string;
  tableFrom: string;
  columnsFrom: string[];
  tableTo: string;
  columnsTo: string[];
  onUpdate: string;
  onDelete: string;
}

export interface SnapshotTable {
  name: string;
  columns: Record<string, SnapshotColumn>;
  indexes: Record<string, SnapshotIndex>;
  foreignKeys: Record<string, SnapshotForeignKey>;
  compositePrimaryKeys: Record<string, { columns: string[]; name: string }>;
  uniqueConstraints: Record<string, never>;
  checkConstraints: Record<string, never>;
}

/** An object src/db/schema.ts does not declare: a view, a trigger, a hand-written table or one of its indexes. */
export interface UndeclaredObject {
  name: string;
  kind: "view" | "trigger" | "table" | "virtual table" | "index";
  /** The table a trigger or index is on. */
  table?: string;
  sql: string;
}

export interface LiveSchema {
  /** The tables Drizzle can declare, as its snapshots hold them. */
  tables: Record<string, SnapshotTable>;
  /** Everything else the migrations made, by name. */
  undeclared: UndeclaredObject[];
}

/**
 * Tables the migrations make that Drizzle cannot declare, so src/db/schema.ts and the snapshots leave
 * them (and their indexes) out, with the reason. FTS5 (virtual) tables and their shadow tables are
 * left out by kind.
 */
export const HAND_WRITTEN_TABLES: Record<string, string> = {
  row_values: "WITHOUT ROWID, and `match`, `sort`, `sort_asc` have no declared type",
};

/** Tables of SQLite and of the platform (D1's own, wrangler's record of applied migrations), not of the migrations. */
const PLATFORM_TABLE = /^(sqlite_|_cf_|d1_migrations$)/;

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;
const text = (value: unknown) => String(value);

/** A column default as Drizzle's snapshots write it: numbers and booleans as such, SQL expressions in parentheses. */
function snapshotDefault(value: string): string | number | boolean {
  if (/^-?[\d.]+(?:e-?\d+)?$/i.test(value)) return Number(value);
  if (value === "false" || value === "true") return value === "true";
  if (value.startsWith("'") && value.endsWith("'")) return value;
  return `(${value})`;
}

/** The parenthesised expression of generated column `column` in `CREATE TABLE` text, and its kind. */
function generatedColumn(tableSql: string, column: string): SnapshotColumn["generated"] {
  const quoted = `[\`"[]?${column.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[\`"\\]]?`;
  const start = new RegExp(`[(,]\\s*${quoted}\\s[^,]*?\\bAS\\s*\\(`, "i").exec(tableSql);
  if (!start) throw new Error(`cannot find the expression of generated column ${column}`);
  const open = start.index + start[0].length - 1;
  let depth = 0;
  for (let at = open; at < tableSql.length; at++) {
    const char = tableSql[at];
    if (char === "'") at = tableSql.indexOf("'", at + 1);
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) {
      const stored = /^\s*STORED\b/i.test(tableSql.slice(at + 1));
      return { as: tableSql.slice(open, at + 1), type: stored ? "stored" : "virtual" };
    }
  }
  throw new Error(`unbalanced expression of generated column ${column}`);
}

async function readTable(query: Query, name: string, tableSql: string): Promise<SnapshotTable> {
  const columns: Record<string, SnapshotColumn> = {};
  const primaryKey: { name: string; position: number }[] = [];
  const autoincrement = /\bAUTOINCREMENT\b/i.test(tableSql);
  for (const row of await query(`SELECT * FROM pragma_table_xinfo(${literal(name)}) ORDER BY cid`)) {
    const column = text(row.name);
    const type = text(row.type).toLowerCase();
    if (type === "") {
      throw new Error(
        `${name}.${column} has no declared type, which Drizzle cannot declare: list ${name} in HAND_WRITTEN_TABLES`,
      );
    }
    const hidden = Number(row.hidden);
    const entry: SnapshotColumn = {
      name: column,
      type,
      primaryKey: false,
      notNull: Number(row.notnull) === 1,
      autoincrement: false,
    };
    if (row.dflt_value !== null) entry.default = snapshotDefault(text(row.dflt_value));
    if (hidden === 2 || hidden === 3) entry.generated = generatedColumn(tableSql, column);
    if (Number(row.pk) > 0) primaryKey.push({ name: column, position: Number(row.pk) });
    columns[column] = entry;
  }
  primaryKey.sort((a, b) => a.position - b.position);
  const compositePrimaryKeys: SnapshotTable["compositePrimaryKeys"] = {};
  const [single] = primaryKey;
  if (primaryKey.length === 1 && single) {
    Object.assign(columns[single.name] ?? {}, { primaryKey: true, autoincrement });
  } else if (primaryKey.length > 1) {
    const key = `${name}_${primaryKey.map((c) => c.name).join("_")}_pk`;
    compositePrimaryKeys[key] = { columns: primaryKey.map((c) => c.name), name: key };
  }

  const indexes: Record<string, SnapshotIndex> = {};
  const list = await query(`SELECT * FROM pragma_index_list(${literal(name)}) ORDER BY name`);
  for (const index of list) {
    const indexName = text(index.name);
    if (index.origin === "pk") continue;
    if (index.origin === "u") throw new Error(`${name}: UNIQUE constraints are not read (declare a unique index)`);
    const keyColumns = await query(
      `SELECT * FROM pragma_index_xinfo(${literal(indexName)}) WHERE key = 1 ORDER BY seqno`,
    );
    if (keyColumns.some((c) => c.name === null || Number(c.desc) === 1 || c.coll !== "BINARY")) {
      throw new Error(`${indexName}: indexes on expressions, DESC or COLLATE are not read`);
    }
    let where: string | undefined;
    if (Number(index.partial) === 1) {
      const [definition] = await query(
        `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ${literal(indexName)}`,
      );
      where = /\)\s*WHERE\s+([\s\S]+)$/i.exec(text(definition?.sql))?.[1]?.trim();
      if (!where) throw new Error(`${indexName}: cannot read its WHERE clause`);
    }
    indexes[indexName] = {
      name: indexName,
      columns: keyColumns.map((c) => text(c.name)),
      ...(where === undefined ? {} : { where }),
      isUnique: Number(index.unique) === 1,
    };
  }

  const foreignKeys: Record<string, SnapshotForeignKey> = {};
  const references = await query(`SELECT * FROM pragma_foreign_key_list(${literal(name)}) ORDER BY id, seq`);
  for (const id of new Set(references.map((r) => Number(r.id)))) {
    const parts = references.filter((r) => Number(r.id) === id);
    const [first] = parts;
    if (!first) continue;
    const columnsFrom = parts.map((r) => text(r.from));
    const columnsTo = parts.map((r) => text(r.to));
    const key = `${name}_${columnsFrom.join("_")}_${text(first.table)}_${columnsTo.join("_")}_fk`;
    foreignKeys[key] = {
      name: key,
      tableFrom: name,
      columnsFrom,
      tableTo: text(first.table),
      columnsTo,
      onUpdate: text(first.on_update).toLowerCase(),
      onDelete: text(first.on_delete).toLowerCase(),
    };
  }
  return {
    name,
    columns,
    indexes,
    foreignKeys: Object.fromEntries(Object.entries(foreignKeys).sort(([a], [b]) => a.localeCompare(b))),
    compositePrimaryKeys,
    uniqueConstraints: {},
    checkConstraints: {},
  };
}

/** The tables (as Drizzle's snapshots describe them) and the undeclared objects of the database `query` reads. */
export async function readSchema(query: Query): Promise<LiveSchema> {
  const objects = await query(
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name",
  );
  const kinds = new Map(
    (await query("SELECT name, type FROM pragma_table_list WHERE schema = 'main'")).map((t) => [text(t.name), t.type]),
  );
  const shadow = (table: string) => kinds.get(table) === "shadow";
  const declared = (table: string) =>
    !PLATFORM_TABLE.test(table) && kinds.get(table) === "table" && !(table in HAND_WRITTEN_TABLES);

  const tables: Record<string, SnapshotTable> = {};
  const undeclared: UndeclaredObject[] = [];
  for (const object of objects) {
    const name = text(object.name);
    const table = text(object.tbl_name);
    const sql = text(object.sql);
    if (PLATFORM_TABLE.test(table) || shadow(table)) continue;
    if (object.type === "table") {
      if (declared(name)) tables[name] = await readTable(query, name, sql);
      else undeclared.push({ name, kind: kinds.get(name) === "virtual" ? "virtual table" : "table", sql });
    } else if (object.type === "view") {
      undeclared.push({ name, kind: "view", sql });
    } else if (object.type === "trigger") {
      undeclared.push({ name, kind: "trigger", table, sql });
    } else if (object.type === "index" && !declared(table)) {
      undeclared.push({ name, kind: "index", table, sql });
    }
  }
  return { tables, undeclared };
}
