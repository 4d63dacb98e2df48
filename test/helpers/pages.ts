import { env } from "cloudflare:test";
import type { Block } from "../../src/schemas/blocks";
import type { Page, PageSummary } from "../../src/schemas/pages";
import { type ApiResponse, api, type TestUser } from "./api";

export const PAGES = "/api/v1/pages";

export type { Page, PageSummary };

/** Creates a page (or database, or row) through POST /api/v1/pages; throws unless 201. */
export async function createPage(user: TestUser, body: Record<string, unknown> = {}): Promise<Page> {
  const res = await api<Page>(PAGES, { method: "POST", auth: user, body });
  if (res.status !== 201) throw new Error(`page create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const postPage = (user: TestUser, body: unknown): Promise<ApiResponse<Page>> =>
  api<Page>(PAGES, { method: "POST", auth: user, body });

export const getPage = (user: TestUser, id: string): Promise<ApiResponse<Page>> =>
  api<Page>(`${PAGES}/${id}`, { auth: user });

export const putPage = (user: TestUser, id: string, body: unknown): Promise<ApiResponse<Page>> =>
  api<Page>(`${PAGES}/${id}`, { method: "PUT", auth: user, body });

export const listPages = (user: TestUser, query = ""): Promise<ApiResponse<PageSummary[]>> =>
  api<PageSummary[]>(`${PAGES}${query ? `?${query}` : ""}`, { auth: user });

/** A block's `properties` exactly as stored in D1 (null when the block is absent). */
export async function storedProperties(id: string): Promise<Record<string, unknown> | null> {
  const row = await env.DB.prepare("SELECT properties FROM blocks WHERE id = ?")
    .bind(id)
    .first<{ properties: string }>();
  return row ? (JSON.parse(row.properties) as Record<string, unknown>) : null;
}

/** A block's `content` exactly as stored in D1 (undefined when the block is absent). */
export async function storedContent(id: string): Promise<unknown> {
  const row = await env.DB.prepare("SELECT content FROM blocks WHERE id = ?")
    .bind(id)
    .first<{ content: string | null }>();
  if (!row) return undefined;
  return row.content === null ? null : JSON.parse(row.content);
}

/** How many blocks (any type, owner or state) sit directly under `parentId` in D1. */
export async function countChildrenStored(parentId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE parent_id = ?")
    .bind(parentId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** A fresh top-level page to hang a test's pages under, so `parent_id=` listings show only them. */
export const containerPage = (user: TestUser, title = "Container"): Promise<Page> => createPage(user, { title });

/**
 * Everything the owner sees of a page: the page itself, its stored row in D1 and its
 * children listing, so a refused request that changed anything shows.
 */
export async function readPageTarget(owner: TestUser, target: { id: string }): Promise<unknown> {
  const [page, children] = await Promise.all([
    getPage(owner, target.id),
    api(`/api/v1/blocks/${target.id}/children`, { auth: owner }),
  ]);
  const stored = await env.DB.prepare("SELECT * FROM blocks WHERE id = ?").bind(target.id).first();
  return { page: { status: page.status, body: page.body }, children: children.body, stored };
}

/** A page owned by `owner` with a body, nested properties and one child block. */
export async function setupPageTarget(owner: TestUser): Promise<{ id: string }> {
  const page = await createPage(owner, {
    title: "Matrix page",
    properties: { meta: { a: 1 } },
    content: [{ type: "paragraph", children: [{ text: "matrix body" }] }],
  });
  const child = await api<Block>("/api/v1/blocks", {
    method: "POST",
    auth: owner,
    body: { type: "paragraph", parent_id: page.id, properties: { text: "child" } },
  });
  if (child.status !== 201) throw new Error("child create failed");
  return { id: page.id };
}

/** How many blocks `userId` owns in D1 (any type or state): a refused create must leave it unchanged. */
export async function countOwnedBlocks(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE created_by = ?")
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
