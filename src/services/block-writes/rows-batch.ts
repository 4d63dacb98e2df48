import { sql } from "drizzle-orm";
import { batchAll } from "../../db/batch";
import type { UserContext } from "../../lib/context";
import { ApiError, badRequest } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { retryWhileStale, StaleWrite } from "../../lib/stale-write-retry";
import { lastSiblingPosition } from "../blocks/positions";
import { visibleTo } from "../blocks/visibility";
import type { DatabaseSchema } from "../databases/property-types";
import { loadDatabaseSchema, schemaUnchanged } from "../databases/schema-records";
import { normalizeTypedFields } from "./typed-fields";

// Bulk rows: many rows of one database, each validated exactly as a single row
// created through the pages API is (normalizeTypedFields with the database's
// schema), written in one atomic D1 batch guarded by the schema version they
// were validated against. Two round trips whatever the number of rows: the
// schema read and the batch of inserts.

/** Rows one request may create. */
export const MAX_BATCH_ROWS = 1000;

/**
 * Largest stored JSON of one row (its properties and content together), in UTF-8 bytes: D1
 * refuses a string, bound parameter or table row above 1,000,000 bytes, and the row's other
 * columns and its entry in a chunk's parameter need room too.
 */
export const MAX_ROW_BYTES = 900_000;

/**
 * Target size of one INSERT's bound JSON parameter, in UTF-8 bytes: well under D1's
 * 1,000,000-byte limit on a string or bound parameter. A chunk holds whole rows, so one
 * row larger than this (up to MAX_ROW_BYTES) is a chunk of its own.
 */
export const CHUNK_BYTES = 512 * 1024;

export interface BatchRow {
  title?: string;
  properties?: Record<string, unknown>;
  content?: unknown;
}

/** What is wrong with one row: a single row's error message and details, and its index in the request. */
export interface RowProblem {
  index: number;
  error: string;
  [detail: string]: unknown;
}

/** Each row of a request: its fields, or the problem its shape already has (found by the route's schema). */
export type BatchRowInput = { row: BatchRow } | { problem: { error: string; [detail: string]: unknown } };

export interface CreatedRows {
  created: number;
  /** The new rows' ids, in request order. */
  ids: string[];
}

const encoder = new TextEncoder();
const utf8Bytes = (text: string) => encoder.encode(text).byteLength;

interface PreparedRow {
  id: string;
  /** The row's entry of a chunk's JSON parameter: `{"i": id, "p": properties, "c": content}`. */
  entry: string;
  bytes: number;
}

/**
 * Validates every row against `schema` as a single row create does, and returns each
 * row's entry for the INSERT; a 400 listing every row at fault (and nothing stored) otherwise.
 */
async function prepareRows(ctx: UserContext, schema: DatabaseSchema, rows: BatchRowInput[]): Promise<PreparedRow[]> {
  const prepared: PreparedRow[] = [];
  const problems: RowProblem[] = [];
  const target = { type: "database_row", databaseId: schema.databaseId };
  for (const [index, input] of rows.entries()) {
    if ("problem" in input) {
      problems.push({ index, ...input.problem });
      continue;
    }
    const { row } = input;
    try {
      // The single-row rules, with the schema already read: aliases, options, dates, computed
      // properties refused, the title placed on the title property, content canonical.
      const fields = await normalizeTypedFields(
        ctx,
        target,
        { properties: row.properties ?? {}, title: row.title, content: row.content },
        undefined,
        schema,
      );
      const properties = JSON.stringify(fields.properties ?? {});
      const content = fields.content === undefined || fields.content === null ? "null" : JSON.stringify(fields.content);
      const stored = utf8Bytes(properties) + utf8Bytes(content);
      if (stored > MAX_ROW_BYTES) {
        problems.push({
          index,
          error: `Row too large: its properties and content take ${stored} bytes as stored, at most ${MAX_ROW_BYTES}`,
          bytes: stored,
          max_bytes: MAX_ROW_BYTES,
        });
        continue;
      }
      const id = newId();
      prepared.push({ id, entry: `{"i":"${id}","p":${properties},"c":${content}}`, bytes: stored + 60 });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "validation_failed")) throw error;
      problems.push({ index, error: error.message, ...error.details });
    }
  }
  if (problems.length > 0) {
    throw badRequest(
      `${problems.length} of ${rows.length} row${rows.length === 1 ? "" : "s"} refused; nothing was stored`,
      { rows: problems },
    );
  }
  return prepared;
}

/** Consecutive rows in chunks whose JSON parameter stays near CHUNK_BYTES. */
function chunksOf(rows: PreparedRow[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const row of rows) {
    if (current.length > 0 && size + row.bytes > CHUNK_BYTES) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      size = 0;
    }
    current.push(row.entry);
    size += row.bytes + 1;
  }
  if (current.length > 0) chunks.push(`[${current.join(",")}]`);
  return chunks;
}

/**
 * One chunk's rows in one statement, in request order: positions follow the array's keys
 * after the last of the database's rows and of the top-level blocks the caller sees (a single
 * row goes after its last top-level sibling: rows have no parent). Each chunk reads that last
 * position when it runs, so the next chunk continues after this one. It lands only while
 * the database is visible and its schema is still the version the rows were validated
 * against; every chunk checks the same in one transaction, so a batch writes all or none.
 */
function insertChunk(ctx: UserContext, schema: DatabaseSchema, chunk: string, timestamp: string) {
  const userId = ctx.actor.userId;
  return sql`
    INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      created_by, last_edited_by, created_at, updated_at)
    SELECT r.value ->> '$.i', 'database_row', NULL, ${schema.databaseId}, NULL, r.value ->> '$.p', r.value ->> '$.c',
      last.position + r.key + 1, ${userId}, ${userId}, ${timestamp}, ${timestamp}
    FROM (SELECT max(
        ${lastSiblingPosition(ctx.actor, null)},
        coalesce((SELECT max(s.position) FROM blocks s
          WHERE s.database_id = ${schema.databaseId} AND ${visibleTo(ctx.actor, "s")}), 0)
      ) AS position) AS last,
      json_each(${chunk}) AS r
    WHERE EXISTS (SELECT 1 FROM blocks d WHERE d.id = ${schema.databaseId} AND ${visibleTo(ctx.actor, "d")})
      AND ${schemaUnchanged(schema)}
    RETURNING id`;
}

/**
 * Creates rows in a database visible to the caller (in any state, as a single row create
 * does), all or none: 404 when the database is not visible or not a database, 400 listing
 * every row at fault. A schema change between validation and write makes the batch write
 * nothing; it is then validated again against the new schema (retryWhileStale).
 */
export function createRows(ctx: UserContext, databaseId: string, rows: BatchRowInput[]): Promise<CreatedRows> {
  return retryWhileStale("database schema", async () => {
    const schema = await loadDatabaseSchema(ctx, databaseId);
    const prepared = await prepareRows(ctx, schema, rows);
    const timestamp = ctx.now().toISOString();
    const results = await batchAll<{ id: string }[]>(
      ctx.db,
      chunksOf(prepared).map((chunk) => insertChunk(ctx, schema, chunk, timestamp)),
    );
    const written = results.reduce((sum, records) => sum + records.length, 0);
    // Every chunk holds the same guard in one transaction: none landed means it failed.
    if (written === 0) throw new StaleWrite();
    if (written !== prepared.length) throw new Error(`Bulk row insert wrote ${written} of ${prepared.length} rows`);
    return { created: written, ids: prepared.map((row) => row.id) };
  });
}
