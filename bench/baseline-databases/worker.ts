// The baseline of `npm run bench -- databases`: the D1 work of the Worker's row query as
// it was before the row-value index (the "before" of issue 13), and of its writes as they
// are, with nothing around it. No framework, no auth (the user id comes in the
// X-Bench-User header), no validation beyond finding the properties a query names, no
// presenters: prepared statements, rows returned as D1 gives them.
//
// Row queries: the schema read of loadDatabaseSchema (one batch), then the SQL of
// `queryRows` in src/services/databases/row-query.ts as of commit 8715ced~1, which reads
// every row of the database through `blocks_database_idx` and evaluates each filter on its
// JSON, sorts the matches in a temporary B-tree, and counts up to 10,001 matches beside
// the page (one batch). The Worker's answer must hold the same rows in the same order;
// the bench checks that before it measures.
//
// Writes: the statements the Worker sends for each write (src/services/blocks/commands.ts,
// src/services/block-writes/writes.ts, src/services/pages/pages.ts), in the same round
// trips: the read batch where the Worker reads first, then the write. The bench sends the
// values as the Worker stores them (canonical property ids, options as {id, name, color}),
// so there is nothing to validate. The triggers of the schema (full-text index, row-value
// index, change log) run for both: they are part of the write's cost, not of the Worker's. The
// writes are also measured against a second copy of this Worker on a state without the change
// log's triggers: the Worker with its log against bare writes without one.
// Each request counts once against the quota's binding, as the Worker's does (see bench/baseline).
import type { D1Database, D1PreparedStatement } from "@cloudflare/workers-types/index.ts";

interface Env {
  DB: D1Database;
  /** The Worker's per-credential quota binding (Workers Rate Limiting), counted as the Worker counts it. */
  API_RATE_LIMITER: { limit(options: { key: string }): Promise<{ success: boolean }> };
}

const INTERNAL = "provider_audit_log";
const visible = (alias: string) =>
  `(${alias}.created_by = ? OR ${alias}.created_by IS NULL) AND ${alias}.type <> '${INTERNAL}'`;
/** pagination.ts TOTAL_COUNT_CAP before the index: the count read up to 10,001 matches. */
const TOTAL_COUNT_CAP = 10_000;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });

interface PropertyRecord {
  id: string;
  name: string;
  type: string;
  options: string;
}

interface Schema {
  databaseId: string;
  version: number;
  properties: (PropertyRecord & { parsed: { id: string; name: string }[] })[];
}

/** loadDatabaseSchema: the database block and its schema records, one batch. */
async function loadSchema(db: D1Database, user: string, databaseId: string): Promise<Schema | null> {
  const [databases, records] = await db.batch<Record<string, unknown>>([
    db
      .prepare(`SELECT b.id, b.type, b.properties, b.schema_version FROM blocks b WHERE b.id = ? AND ${visible("b")}`)
      .bind(databaseId, user),
    db.prepare("SELECT * FROM database_properties WHERE database_id = ? ORDER BY position, name").bind(databaseId),
  ]);
  const database = databases?.results[0] as { type: string; schema_version: number } | undefined;
  if (database?.type !== "database") return null;
  const properties = ((records?.results ?? []) as unknown as PropertyRecord[]).map((record) => ({
    ...record,
    parsed: JSON.parse(record.options) as { id: string; name: string }[],
  }));
  return { databaseId, version: database.schema_version, properties };
}

/** resolvePropertyKey: id, exact name, the one case-insensitive name, or `title` for the title property. */
function resolve(schema: Schema, key: string) {
  const { properties } = schema;
  const found =
    properties.find((p) => p.id === key) ??
    properties.find((p) => p.name === key) ??
    (() => {
      const folded = properties.filter((p) => p.name.toLowerCase() === key.toLowerCase());
      return folded.length === 1 ? folded[0] : undefined;
    })() ??
    (key === "title" ? properties.find((p) => p.type === "title") : undefined);
  if (!found) throw new Error(`unknown property ${key}`);
  return found;
}

/** The JSON path of a property, inlined as an SQL literal (property-path.ts). */
const pathOf = (id: string) => `'${`$."${id.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`.replaceAll("'", "''")}'`;

const COMPUTED: Record<string, string> = {
  created_time: "b.created_at",
  last_edited_time: "b.updated_at",
  created_by: "b.created_by",
  last_edited_by: "b.last_edited_by",
};

function valueExpression(property: PropertyRecord): string {
  const computed = COMPUTED[property.type];
  if (computed) return computed;
  const path = pathOf(property.id);
  if (property.type === "select" || property.type === "status") {
    return `(CASE json_type(b.properties, ${path}) WHEN 'object' THEN b.properties -> ${path} ->> '$.id' ELSE b.properties ->> ${path} END)`;
  }
  if (property.type === "date") {
    return `(CASE json_type(b.properties, ${path}) WHEN 'object' THEN b.properties -> ${path} ->> '$.start' ELSE b.properties ->> ${path} END)`;
  }
  return `(b.properties ->> ${path})`;
}

interface Filter {
  property: string;
  operator: string;
  value?: unknown;
}

/** One filter as the pre-index filterCondition wrote it: the SQL and its bound values. */
function filterCondition(schema: Schema, filter: Filter): [string, unknown[]] {
  const property = resolve(schema, filter.property);
  const value = valueExpression(property);
  const path = pathOf(property.id);
  const optionId = () => {
    const wanted = filter.value;
    const option = property.parsed.find((o) => o.id === wanted || o.name === wanted);
    if (!option) throw new Error(`'${String(wanted)}' is not an option of ${property.name}`);
    return option.id;
  };
  const op = filter.operator;
  if (op === "is_empty" || op === "is_not_empty") {
    const empty =
      property.type === "multi_select"
        ? `coalesce(json_array_length(b.properties, ${path}), 0) = 0`
        : `(${value} IS NULL OR ${value} = '')`;
    return [op === "is_empty" ? empty : `NOT ${empty}`, []];
  }
  switch (property.type) {
    case "select":
    case "status":
      return [op === "equals" ? `${value} = ?` : `${value} IS NOT ?`, [optionId()]];
    case "multi_select": {
      const contains = `EXISTS (SELECT 1 FROM json_each(b.properties, ${path}) e
        WHERE CASE e.type WHEN 'object' THEN e.value ->> '$.id' WHEN 'text' THEN e.value END = ?)`;
      return [op === "contains" ? contains : `NOT ${contains}`, [optionId()]];
    }
    case "checkbox":
      return [filter.value ? `${value} = 1` : `coalesce(${value}, 0) = 0`, []];
    case "number": {
      const sign = { equals: "=", not_equals: "<>", greater_than: ">", less_than: "<" }[op];
      if (!sign) throw new Error(`operator ${op}`);
      return [`${value} ${sign} ?`, [filter.value]];
    }
    case "date":
    case "created_time":
    case "last_edited_time": {
      const wanted = String(filter.value);
      const sign = { equals: "=", before: "<", after: ">", on_or_before: "<=", on_or_after: ">=" }[op];
      if (!sign) throw new Error(`operator ${op}`);
      if (op === "equals") return [`substr(${value}, 1, 10) = ?`, [wanted.slice(0, 10)]];
      return wanted.length === 10
        ? [`substr(${value}, 1, 10) ${sign} ?`, [wanted.slice(0, 10)]]
        : [`julianday(${value}) ${sign} julianday(?)`, [wanted]];
    }
    default: {
      switch (op) {
        case "equals":
          return [`${value} = ?`, [filter.value]];
        case "not_equals":
          return [`${value} IS NOT ?`, [filter.value]];
        case "contains":
          return [`instr(lower(${value}), lower(?)) > 0`, [filter.value]];
        default:
          return [`coalesce(instr(lower(${value}), lower(?)), 0) = 0`, [filter.value]];
      }
    }
  }
}

function sortExpression(schema: Schema, sort: { property: string; direction?: string }): string {
  const property = resolve(schema, sort.property);
  const path = pathOf(property.id);
  const key =
    property.type === "select" || property.type === "status"
      ? `(b.properties -> ${path} ->> '$.name')`
      : property.type === "multi_select"
        ? `(b.properties -> ${path} ->> '$[0].name')`
        : property.type === "date"
          ? `julianday(${valueExpression(property)})`
          : valueExpression(property);
  return `${key} ${sort.direction === "desc" ? "DESC" : "ASC"} NULLS LAST`;
}

interface QueryBody {
  filters?: Filter[];
  sorts?: { property: string; direction?: string }[];
  limit?: number;
  offset?: number;
}

/** The schema read, then the page and the capped count in one batch: two round trips, as the Worker. */
async function queryRows(db: D1Database, user: string, databaseId: string, body: QueryBody): Promise<Response> {
  const schema = await loadSchema(db, user, databaseId);
  if (!schema) return json({ error: "Database not found" }, 404);
  const limit = Math.min(body.limit ?? 50, 100);
  const offset = body.offset ?? 0;
  const conditions = [
    "b.database_id = ?",
    "b.type = 'database_row'",
    visible("b"),
    "b.archived = 0 AND b.in_trash = 0",
  ];
  const values: unknown[] = [databaseId, user];
  try {
    for (const filter of body.filters ?? []) {
      const [condition, bound] = filterCondition(schema, filter);
      conditions.push(condition);
      values.push(...bound);
    }
    const order = [
      ...(body.sorts ?? []).map((sort) => sortExpression(schema, sort)),
      "b.position ASC NULLS LAST",
      "b.seq",
    ];
    const from = `FROM blocks b WHERE ${conditions.join(" AND ")}`;
    const [page, counts] = await db.batch<Record<string, unknown>>([
      db.prepare(`SELECT b.* ${from} ORDER BY ${order.join(", ")} LIMIT ? OFFSET ?`).bind(...values, limit + 1, offset),
      db.prepare(`SELECT count(*) AS total FROM (SELECT 1 ${from} LIMIT ?)`).bind(...values, TOTAL_COUNT_CAP + 1),
    ]);
    const rows = page?.results ?? [];
    const total = Number(counts?.results[0]?.total ?? 0);
    return json(rows.slice(0, limit), 200, {
      ...(total > TOTAL_COUNT_CAP ? {} : { "X-Total-Count": String(total) }),
      "X-Has-More": String(rows.length > limit),
    });
  } catch (error) {
    return json({ error: (error as Error).message }, 400);
  }
}

/** findVisibleBlockWithSchema: the block, its database and that database's schema records, one batch. */
function blockWithSchema(db: D1Database, user: string, id: string): Promise<D1Result[]> {
  const databaseOf = "(SELECT r.database_id FROM blocks r WHERE r.id = ?)";
  return db.batch([
    db.prepare(`SELECT b.* FROM blocks b WHERE b.id = ? AND ${visible("b")}`).bind(id, user),
    db
      .prepare(
        `SELECT b.id, b.type, b.properties, b.schema_version FROM blocks b WHERE b.id = ${databaseOf} AND ${visible("b")}`,
      )
      .bind(id, user),
    db.prepare(`SELECT * FROM database_properties WHERE database_id = ${databaseOf} ORDER BY position, name`).bind(id),
  ]);
}
type D1Result = Awaited<ReturnType<D1PreparedStatement["all"]>>;

const visibleExists = `EXISTS (SELECT 1 FROM blocks r WHERE r.id = ? AND ${visible("r")})`;
const schemaUnchanged =
  "EXISTS (SELECT 1 FROM blocks sv WHERE sv.id = ? AND sv.type = 'database' AND sv.schema_version = ?)";

/** createBlock: one INSERT ... SELECT guarded by the references, placed after the last sibling the user sees. */
function insertBlock(
  db: D1Database,
  user: string,
  block: { type: string; parentId: string | null; databaseId: string | null; properties: unknown; content: unknown },
  guard: { sql: string; values: unknown[] } = { sql: "1", values: [] },
) {
  const now = new Date().toISOString();
  const refs: unknown[] = [];
  const guardVisible = (id: string | null) => {
    if (id === null) return "1";
    refs.push(id, user);
    return visibleExists;
  };
  const parent = guardVisible(block.parentId);
  const database = guardVisible(block.databaseId);
  return db
    .prepare(
      `INSERT INTO blocks (id, type, parent_id, database_id, teamspace_id, properties, content, position,
      created_by, last_edited_by, created_at, updated_at)
    SELECT ?, ?, ?, ?, ?, ?, ?, (coalesce((SELECT max(position) FROM (
        SELECT max(s.position) AS position FROM blocks s
        WHERE s.parent_id IS ? AND s.created_by = ? AND s.type <> '${INTERNAL}'
        UNION ALL
        SELECT max(s.position) AS position FROM blocks s
        WHERE s.parent_id IS ? AND s.created_by IS NULL AND s.type <> '${INTERNAL}')), 0) + 1),
      ?, ?, ?, ?
    WHERE ${parent} AND ${database}
      AND ${guard.sql}
    ON CONFLICT (id) DO NOTHING
    RETURNING *`,
    )
    .bind(
      crypto.randomUUID(),
      block.type,
      block.parentId,
      block.databaseId,
      null,
      JSON.stringify(block.properties),
      block.content === undefined || block.content === null ? null : JSON.stringify(block.content),
      block.parentId,
      user,
      block.parentId,
      user,
      user,
      now,
      now,
      ...refs,
      ...guard.values,
    );
}

/** updateBlock: one UPDATE ... RETURNING, its checks in the WHERE clause. */
function updateBlock(
  db: D1Database,
  user: string,
  id: string,
  assignments: { sql: string; values: unknown[] }[],
  guard: { sql: string; values: unknown[] } | null = null,
) {
  const now = new Date().toISOString();
  const set = ["last_edited_by = ?", "updated_at = ?", ...assignments.map((a) => a.sql)].join(", ");
  return db
    .prepare(
      `UPDATE blocks AS b SET ${set}
    WHERE b.id = ? AND ${visible("b")}${guard ? ` AND ${guard.sql}` : ""}
    RETURNING *`,
    )
    .bind(user, now, ...assignments.flatMap((a) => a.values), id, user, ...(guard?.values ?? []));
}

const written = async (statement: D1PreparedStatement, status: number) => {
  const { results } = await statement.all();
  return results[0] ? json(results[0], status) : json({ error: "write matched nothing" }, 409);
};

const BLOCK_ROUTE = /^\/api\/v1\/blocks\/([^/]+)$/;
const PAGE_ROUTE = /^\/api\/v1\/pages\/([^/]+)$/;
const QUERY_ROUTE = /^\/api\/v1\/databases\/([^/]+)\/query$/;

/** The writes' bodies, as the bench sends them here: values as stored. */
interface WriteBody {
  type?: string;
  parent_id?: string | null;
  database_id?: string | null;
  properties?: Record<string, unknown>;
  content?: unknown;
  /** PUT /api/v1/pages: "page" merges properties (RFC 7396), "row" replaces each value whole. */
  mode?: "page" | "row";
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const db = env.DB;
    // Readiness probe, and proof that this server reads the seeded databases: rows per database.
    if (url.pathname === "/") {
      const { results } = await db
        .prepare("SELECT database_id, count(*) AS rows FROM blocks WHERE type = 'database_row' GROUP BY database_id")
        .all<{ database_id: string; rows: number }>();
      return json(Object.fromEntries(results.map((row) => [row.database_id, row.rows])));
    }
    const user = request.headers.get("X-Bench-User") ?? "";
    // Every request counts once against its credential's quota, before its work, as the Worker's
    // does (src/auth/credential-limit.ts): a call to the platform, like D1's.
    if (!(await env.API_RATE_LIMITER.limit({ key: `60|user:${user}` })).success) {
      return json({ error: "Too many requests" }, 429);
    }
    const query = QUERY_ROUTE.exec(url.pathname);
    if (query && request.method === "POST") {
      return queryRows(db, user, decodeURIComponent(query[1] ?? ""), (await request.json()) as QueryBody);
    }
    const body = request.method === "GET" ? {} : ((await request.json()) as WriteBody);

    // POST /api/v1/blocks: a block under a visible parent (createBlock, one round trip).
    if (url.pathname === "/api/v1/blocks" && request.method === "POST") {
      const block = {
        type: body.type ?? "paragraph",
        parentId: body.parent_id ?? null,
        databaseId: null,
        properties: body.properties ?? {},
        content: body.content,
      };
      return written(insertBlock(db, user, block), 201);
    }
    // POST /api/v1/pages with type database_row: the schema read, then the guarded INSERT.
    if (url.pathname === "/api/v1/pages" && request.method === "POST") {
      const databaseId = body.database_id ?? "";
      const schema = await loadSchema(db, user, databaseId);
      if (!schema) return json({ error: "Database not found" }, 404);
      const block = {
        type: "database_row",
        parentId: null,
        databaseId,
        properties: body.properties ?? {},
        content: null,
      };
      const guard = { sql: schemaUnchanged, values: [databaseId, schema.version] };
      return written(insertBlock(db, user, block, guard), 201);
    }
    // PATCH /api/v1/blocks/{id}: the block (with its schema, as for any typed change), then the UPDATE.
    const blockMatch = BLOCK_ROUTE.exec(url.pathname);
    if (blockMatch && request.method === "PATCH") {
      const id = decodeURIComponent(blockMatch[1] ?? "");
      const [blocks] = await blockWithSchema(db, user, id);
      if (!blocks?.results[0]) return json({ error: "Block not found" }, 404);
      const content = body.content === null || body.content === undefined ? null : JSON.stringify(body.content);
      return written(updateBlock(db, user, id, [{ sql: "content = ?", values: [content] }]), 200);
    }
    // PUT /api/v1/pages/{id}: the page with its schema, then the UPDATE (a row's guarded by its schema).
    const pageMatch = PAGE_ROUTE.exec(url.pathname);
    if (pageMatch && request.method === "PUT") {
      const id = decodeURIComponent(pageMatch[1] ?? "");
      const [blocks, databases] = await blockWithSchema(db, user, id);
      const stored = blocks?.results[0] as { type: string; database_id: string | null } | undefined;
      if (!stored) return json({ error: "Page not found" }, 404);
      const patch = JSON.stringify(body.properties ?? {});
      if (body.mode === "row") {
        const database = databases?.results[0] as { id: string; schema_version: number } | undefined;
        if (!database) return json({ error: "Database not found" }, 404);
        const cleared = JSON.stringify(
          Object.fromEntries(Object.keys(body.properties ?? {}).map((key) => [key, null])),
        );
        const assignment = { sql: "properties = json_patch(json_patch(properties, ?), ?)", values: [cleared, patch] };
        const guard = {
          sql: `${schemaUnchanged} AND b.type = ? AND b.database_id IS ?`,
          values: [database.id, database.schema_version, stored.type, stored.database_id],
        };
        return written(updateBlock(db, user, id, [assignment], guard), 200);
      }
      const assignments = [{ sql: "properties = json_patch(properties, ?)", values: [patch] }];
      if (body.content !== undefined) assignments.push({ sql: "content = ?", values: [JSON.stringify(body.content)] });
      return written(updateBlock(db, user, id, assignments), 200);
    }
    return json({ error: "Route not found" }, 404);
  },
};
