import { env } from "cloudflare:test";
import type { Block, BlockTree } from "../../src/schemas/blocks";
import { type ApiResponse, api, type TestUser } from "./api";

export type { Block, BlockTree };

export const BLOCKS = "/api/v1/blocks";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A block type no other test uses, so a `type` filter isolates one test's blocks. */
export const uniqueType = (): string => `t${crypto.randomUUID().replaceAll("-", "")}`;
/**
 * A search word no other block contains. Consonants without `s` or `y`, so the
 * porter stemmer leaves it (and any prefix of it) as it is.
 */
export const uniqueWord = (): string =>
  `zq${Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => "bcdfghjklmnpqrtvwxz"[b % 19]).join("")}`;

/** Creates a block through the API (type `paragraph` unless given); throws unless 201. */
export async function createBlock(user: TestUser, body: Record<string, unknown> = {}): Promise<Block> {
  const res = await api<Block>(BLOCKS, { method: "POST", auth: user, body: { type: "paragraph", ...body } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const getBlock = (user: TestUser, id: string): Promise<ApiResponse<Block>> =>
  api<Block>(`${BLOCKS}/${id}`, { auth: user });

export const listBlocks = (user: TestUser, query: string): Promise<ApiResponse<Block[]>> =>
  api<Block[]>(`${BLOCKS}?${query}`, { auth: user });

export const childrenOf = (user: TestUser, id: string): Promise<ApiResponse<Block[]>> =>
  api<Block[]>(`${BLOCKS}/${id}/children`, { auth: user });

export const hierarchyOf = (user: TestUser, id: string, query = ""): Promise<ApiResponse<BlockTree>> =>
  api<BlockTree>(`${BLOCKS}/${id}/hierarchy${query}`, { auth: user });

export interface RawBlock {
  id?: string;
  type?: string;
  parent_id?: string | null;
  database_id?: string | null;
  properties?: Record<string, unknown>;
  content?: unknown;
  position?: number | null;
  archived?: boolean;
  in_trash?: boolean;
  /** Owner user id; null makes a shared block. */
  created_by: string | null;
  created_at?: string;
  updated_at?: string;
}

/** Writes blocks straight to D1 (one batch), for states the API cannot create. Returns their ids. */
export async function insertBlocks(rows: RawBlock[]): Promise<string[]> {
  const now = new Date().toISOString();
  const ids = rows.map((row) => row.id ?? crypto.randomUUID());
  await env.DB.batch(
    rows.map((row, i) =>
      env.DB.prepare(
        `INSERT INTO blocks (id, type, parent_id, database_id, properties, content, position, archived, in_trash,
          created_by, last_edited_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        ids[i],
        row.type ?? "paragraph",
        row.parent_id ?? null,
        row.database_id ?? null,
        JSON.stringify(row.properties ?? {}),
        row.content === undefined ? null : JSON.stringify(row.content),
        row.position === undefined ? i + 1 : row.position,
        row.archived ? 1 : 0,
        row.in_trash ? 1 : 0,
        row.created_by,
        row.created_by,
        row.created_at ?? now,
        row.updated_at ?? now,
      ),
    ),
  );
  return ids;
}

export async function insertBlock(row: RawBlock): Promise<string> {
  const [id] = await insertBlocks([row]);
  return id as string;
}

/** The stored row of a block straight from D1, whatever its type, owner or state (null when absent). */
export const storedRow = (id: string) =>
  env.DB.prepare("SELECT * FROM blocks WHERE id = ?").bind(id).first<Record<string, unknown>>();

export async function countStored(ids: string[]): Promise<number> {
  const placeholders = ids.map(() => "?").join(", ");
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM blocks WHERE id IN (${placeholders})`)
    .bind(...ids)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The target of an auth-matrix check: a block under its own page, with one child of its own. */
export interface BlockTarget {
  id: string;
  pageId: string;
  childId: string;
}

/** Creates a page with the target block (and a child of it) under it, owned by `owner`. */
export async function setupBlockTarget(owner: TestUser): Promise<BlockTarget> {
  const page = await createBlock(owner, { type: "page", properties: { title: "Matrix page" } });
  const target = await createBlock(owner, {
    parent_id: page.id,
    properties: { title: "Target", nested: { a: 1 } },
    content: [{ type: "paragraph", children: [{ text: "target body" }] }],
  });
  const child = await createBlock(owner, { parent_id: target.id, properties: { title: "Child" } });
  return { id: target.id, pageId: page.id, childId: child.id };
}

/**
 * Everything the owner sees of a target's page: the page's tree and its children
 * in each state, so any change to the target, its subtree or its siblings shows.
 */
export async function readBlockTarget(owner: TestUser, target: BlockTarget): Promise<unknown> {
  const responses = await Promise.all([
    hierarchyOf(owner, target.pageId, "?depth=25"),
    getBlock(owner, target.id),
    childrenOf(owner, target.id),
    listBlocks(owner, `parent_id=${target.pageId}&sortBy=position&sortOrder=asc`),
    listBlocks(owner, `parent_id=${target.pageId}&archived=true`),
    listBlocks(owner, `parent_id=${target.pageId}&in_trash=true`),
    listBlocks(owner, `parent_id=${target.pageId}&archived=true&in_trash=true`),
  ]);
  return responses.map(({ status, body }) => ({ status, body }));
}

/** Reads the `details.issues` paths of a validation 400. */
export function issuePaths(body: unknown): string[] {
  const issues = (body as { details?: { issues?: { path: string }[] } }).details?.issues ?? [];
  return issues.map((issue) => issue.path);
}

/** Depth of a tree: 0 for a node without children. */
export function treeDepth(node: BlockTree): number {
  return node.children.length === 0 ? 0 : 1 + Math.max(...node.children.map(treeDepth));
}

/** All ids in a tree, root first, depth-first. */
export function treeIds(node: BlockTree): string[] {
  return [node.id, ...node.children.flatMap(treeIds)];
}
