// The baseline of `npm run bench`: the same D1 work as the real Worker's read
// endpoints, and the same R2 work as its media upload and signed download, with
// nothing around it. No framework, no auth (the user id comes in the
// X-Bench-User header), no validation, no presenters: prepared statements with
// the SQL the service sends (src/services/blocks/queries.ts,
// src/services/media/storage.ts), rows returned as JSON, objects put and
// streamed back as they are. The benchmark divides the Worker's throughput by
// this one's, so the ratio is the cost of everything the Worker adds on top of
// its queries, its R2 calls and its quota's count (one `limit()` of the Workers
// Rate Limiting binding per request with a credential: a platform call whose
// local simulation, a Durable Object writing a SQLite row, costs about what a
// D1 query does, while deployed it is a counter in the Cloudflare location).
//
// Keep the SQL and the R2 calls in step with the service. The bench compares
// both servers' answers (ids, order, totals; the bytes and type of a download)
// before it measures, which catches a change in what a query returns, but not
// in what it costs: copy every change over.
import type { D1Database, D1PreparedStatement, R2Bucket } from "@cloudflare/workers-types/index.ts";

interface Env {
  DB: D1Database;
  MEDIA: R2Bucket;
  /** The Worker's per-credential quota binding (Workers Rate Limiting), counted as the Worker counts it. */
  API_RATE_LIMITER: { limit(options: { key: string }): Promise<{ success: boolean }> };
}

const VISIBLE = "(b.created_by = ? OR b.created_by IS NULL) AND b.type <> 'provider_audit_log'";
const ACTIVE = "b.archived = 0 AND b.in_trash = 0";
const HIERARCHY_MAX_NODES = 10_000;
const TOTAL_COUNT_CAP = 10_000;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });

/** `.all()` then the first row: what Drizzle's `db.get(sql)` does on D1. */
async function getOne(db: D1Database, user: string, id: string): Promise<Response> {
  const { results } = await db
    .prepare(`SELECT b.* FROM blocks b WHERE b.id = ? AND ${VISIBLE} AND ${ACTIVE}`)
    .bind(id, user)
    .all();
  return results[0] ? json(results[0]) : json({ error: "Block not found" }, 404);
}

/** Parent check and children in one batch, as the service does: one round trip. */
async function children(db: D1Database, user: string, id: string): Promise<Response> {
  const [parents, rows] = await db.batch([
    db.prepare(`SELECT b.id FROM blocks b WHERE b.id = ? AND ${VISIBLE} AND ${ACTIVE}`).bind(id, user),
    db
      .prepare(
        `SELECT b.* FROM blocks b WHERE b.parent_id = ? AND ${VISIBLE} AND ${ACTIVE}
         ORDER BY b.position ASC NULLS LAST, b.created_at ASC, b.seq ASC`,
      )
      .bind(id, user),
  ]);
  if (!parents?.results.length) return json({ error: "Block not found" }, 404);
  return json(rows?.results ?? []);
}

/** The recursive CTE of getHierarchy; rows come back flat (nesting them is presenter work). */
async function hierarchy(db: D1Database, user: string, id: string, depth: number): Promise<Response> {
  const { results } = await db
    .prepare(
      `WITH RECURSIVE tree AS (
         SELECT b.*, 0 AS depth FROM blocks b WHERE b.id = ? AND ${VISIBLE} AND ${ACTIVE}
         UNION ALL
         SELECT b.*, tree.depth + 1 FROM tree
         JOIN blocks b ON b.parent_id = tree.id
         WHERE tree.depth < ? AND ${VISIBLE} AND ${ACTIVE}
       )
       SELECT * FROM tree
       ORDER BY depth ASC, position ASC NULLS LAST, created_at ASC, seq ASC
       LIMIT ?`,
    )
    .bind(id, user, depth, user, HIERARCHY_MAX_NODES + 1)
    .all();
  return results.length > 0 ? json(results) : json({ error: "Block not found" }, 404);
}

/** The FTS5 query the service builds from free text: words ANDed, the last one as a prefix. */
function toFtsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word}"${i === words.length - 1 ? "*" : ""}`).join(" ");
}

/**
 * listBlocks for the two shapes the bench asks for: the unfiltered first page by
 * updated_at desc, and a `q` search by relevance. Page and total in one batch.
 */
async function list(db: D1Database, user: string, limit: number, q: string | null): Promise<Response> {
  const fetchCount = limit + 1;
  let statements: [D1PreparedStatement, D1PreparedStatement];
  const ftsQuery = q === null ? undefined : toFtsQuery(q);
  if (ftsQuery === null) return json([], 200, { "X-Total-Count": "0" });
  if (ftsQuery !== undefined) {
    const from = `blocks_search s JOIN blocks b ON b.seq = s.rowid
      WHERE blocks_search MATCH ? AND ${VISIBLE} AND b.archived = ? AND b.in_trash = ?`;
    statements = [
      db
        .prepare(`SELECT b.* FROM ${from} ORDER BY bm25(blocks_search, 4.0, 1.0) ASC, b.seq DESC LIMIT ? OFFSET ?`)
        .bind(ftsQuery, user, 0, 0, fetchCount, 0),
      db
        .prepare(`SELECT COUNT(*) AS total FROM (SELECT 1 FROM ${from} LIMIT ?)`)
        .bind(ftsQuery, user, 0, 0, TOTAL_COUNT_CAP + 1),
    ];
  } else {
    const owned = "b.created_by = ? AND b.type <> 'provider_audit_log' AND b.archived = ? AND b.in_trash = ?";
    const shared = "b.created_by IS NULL AND b.type <> 'provider_audit_log' AND b.archived = ? AND b.in_trash = ?";
    const order = "updated_at DESC, seq DESC";
    statements = [
      db
        .prepare(
          `SELECT * FROM (
             SELECT * FROM (SELECT b.* FROM blocks b WHERE ${owned} ORDER BY ${order} LIMIT ?)
             UNION ALL
             SELECT * FROM (SELECT b.* FROM blocks b WHERE ${shared} ORDER BY ${order} LIMIT ?)
           ) ORDER BY ${order} LIMIT ? OFFSET ?`,
        )
        .bind(user, 0, 0, fetchCount, 0, 0, fetchCount, fetchCount, 0),
      db
        .prepare(
          `SELECT
             (SELECT COUNT(*) FROM (SELECT 1 FROM blocks b WHERE ${owned} LIMIT ?)) +
             (SELECT COUNT(*) FROM (SELECT 1 FROM blocks b WHERE ${shared} LIMIT ?)) AS total`,
        )
        .bind(user, 0, 0, TOTAL_COUNT_CAP + 1, 0, 0, TOTAL_COUNT_CAP + 1),
    ];
  }
  const [page, counts] = await db.batch<Record<string, unknown>>(statements);
  const total = Number(counts?.results[0]?.total ?? 0);
  const headers: Record<string, string> = total > TOTAL_COUNT_CAP ? {} : { "X-Total-Count": String(total) };
  return json((page?.results ?? []).slice(0, limit), 200, headers);
}

/** The bucket name media records carry (MEDIA_BUCKET in src/services/media/config.ts). */
const MEDIA_BUCKET = "media";

/**
 * The storage work of uploadMedia: the record inserted (the service's INSERT,
 * one statement in a batch as batchAll sends it), then the object put at
 * `<user>/<uuid>` with its type, its ids and its SHA-256 for R2 to check, as
 * the service puts it. The body is the file itself, read whole first: the
 * Worker holds the whole file before its put too (it parses it out of the
 * multipart body). What the service does besides is left to the Worker's side
 * of the ratio: parsing the multipart body, sniffing the type and hashing the
 * bytes (here the bench sends the type and the hash in headers), the second D1
 * round trip that marks the record ready after the put, and the signed URL.
 */
async function upload(env: Env, user: string, request: Request): Promise<Response> {
  const bytes = await request.arrayBuffer();
  const contentType = request.headers.get("Content-Type") ?? "application/octet-stream";
  const sha256 = request.headers.get("X-Bench-Sha256");
  const filename = request.headers.get("X-Bench-Filename") ?? "file";
  const id = crypto.randomUUID();
  const path = `${user}/${id}`;
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO media (id, bucket, path, filename, content_type, size, sha256, metadata, state, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'uploading', ?, ?, ?)`,
    ).bind(id, MEDIA_BUCKET, path, filename, contentType, bytes.byteLength, sha256 ?? "", "{}", user, now, now),
  ]);
  await env.MEDIA.put(path, bytes, {
    httpMetadata: { contentType },
    customMetadata: { media_id: id, created_by: user },
    ...(sha256 ? { sha256 } : {}),
  });
  return json({ id, path, size: bytes.byteLength }, 201);
}

/** What a signed link serves, without the link: the object streamed back with its stored type. */
async function download(env: Env, path: string): Promise<Response> {
  const object = await env.MEDIA.get(path);
  if (!object) return json({ error: "Media not found" }, 404);
  // This file is type-checked with the DOM's globals (tsconfig.node.json) beside the
  // Workers types of its bindings; the two ReadableStream types are one at runtime.
  return new Response(object.body as unknown as ReadableStream, {
    headers: { "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream" },
  });
}

const BLOCK_ROUTE = /^\/api\/v1\/blocks\/([^/]+)(?:\/(children|hierarchy))?$/;
const MEDIA_ROUTE = /^\/media\/(.+)$/;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    // Readiness probe, and proof that this server reads the seeded database.
    if (url.pathname === "/") {
      const row = await env.DB.prepare("SELECT COUNT(*) AS blocks FROM blocks").first<{ blocks: number }>();
      return json({ blocks: row?.blocks ?? 0 });
    }
    const user = request.headers.get("X-Bench-User") ?? "";
    const media = MEDIA_ROUTE.exec(url.pathname);
    if (media) return download(env, decodeURIComponent(media[1] ?? ""));
    // Every request with a credential counts once against its quota, before its work, as the
    // Worker's does (src/auth/credential-limit.ts): a call to the platform, like D1's and R2's.
    if (!(await env.API_RATE_LIMITER.limit({ key: `60|user:${user}` })).success) {
      return json({ error: "Too many requests" }, 429);
    }
    if (url.pathname === "/api/v1/media/upload" && request.method === "POST") return upload(env, user, request);
    if (url.pathname === "/api/v1/blocks") {
      return list(env.DB, user, Number(url.searchParams.get("limit") ?? 50), url.searchParams.get("q"));
    }
    const match = BLOCK_ROUTE.exec(url.pathname);
    const id = decodeURIComponent(match?.[1] ?? "");
    if (match?.[2] === "children") return children(env.DB, user, id);
    if (match?.[2] === "hierarchy") return hierarchy(env.DB, user, id, Number(url.searchParams.get("depth") ?? 10));
    if (match) return getOne(env.DB, user, id);
    return json({ error: "Route not found" }, 404);
  },
};
