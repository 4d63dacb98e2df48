// Turns a dataset into SQL files for `wrangler d1 execute --local --file`.
//
// Rows go in as multi-row INSERTs of at most MAX_STATEMENT_BYTES each: few
// statements (fast), yet each well under the statement size D1 accepts (100 KB).
// `wrangler d1 execute --local` runs one file as one batch, in one transaction,
// so a file holds at most ROWS_PER_FILE rows to keep each request to workerd modest.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NewApiKey } from "../src/auth/api-key-format.ts";
import type { BlockRow, Dataset } from "./dataset.ts";

const MAX_STATEMENT_BYTES = 90_000;
const ROWS_PER_FILE = 25_000;

const BLOCK_COLUMNS = [
  "id",
  "type",
  "parent_id",
  "database_id",
  "teamspace_id",
  "properties",
  "content",
  "position",
  "archived",
  "in_trash",
  "created_by",
  "last_edited_by",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof BlockRow)[];

type SqlValue = string | number | null;

function literal(value: SqlValue): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

export const tuple = (values: readonly SqlValue[]): string => `(${values.map(literal).join(",")})`;

/** Packs value tuples into INSERT statements no longer than MAX_STATEMENT_BYTES. */
export function* inserts(head: string, tuples: Iterable<string>): Generator<string> {
  let current: string[] = [];
  let bytes = head.length;
  for (const values of tuples) {
    if (current.length > 0 && bytes + values.length + 2 > MAX_STATEMENT_BYTES) {
      yield `${head}${current.join(",\n")};\n`;
      current = [];
      bytes = head.length;
    }
    current.push(values);
    bytes += values.length + 2;
  }
  if (current.length > 0) yield `${head}${current.join(",\n")};\n`;
}

/** Users and the bench user's API key (stored as its hash, as `npm run key` does). */
function accountsSql(dataset: Dataset, apiKey: NewApiKey): string {
  const users = inserts(
    "INSERT INTO users (id, email, name) VALUES\n",
    dataset.users.map((user) => tuple([user.id, user.email, user.name])),
  );
  const key = tuple([
    crypto.randomUUID(),
    dataset.fixtures.benchUserId,
    "Benchmark key",
    apiKey.hash,
    apiKey.displayPrefix,
    apiKey.displaySuffix,
  ]);
  return `${[...users].join("")}INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES ${key};\n`;
}

/**
 * Writes the seed as numbered files in `dir` and returns their paths in the
 * order they must run (accounts first; blocks parents before children).
 */
export async function writeSeedFiles(dataset: Dataset, apiKey: NewApiKey, dir: string): Promise<string[]> {
  const files: string[] = [];
  const write = async (sql: string) => {
    const file = join(dir, `seed-${String(files.length).padStart(3, "0")}.sql`);
    await writeFile(file, sql);
    files.push(file);
  };

  await write(accountsSql(dataset, apiKey));
  const head = `INSERT INTO blocks (${BLOCK_COLUMNS.join(", ")}) VALUES\n`;
  let batch: string[] = [];
  for (const row of dataset.blocks()) {
    batch.push(tuple(BLOCK_COLUMNS.map((column) => row[column])));
    if (batch.length === ROWS_PER_FILE) {
      await write([...inserts(head, batch)].join(""));
      batch = [];
    }
  }
  if (batch.length > 0) await write([...inserts(head, batch)].join(""));
  return files;
}
