import { env } from "cloudflare:test";
import type { PropagateResult, SyncedBlock } from "../../src/schemas/synced-blocks";
import { type ApiResponse, api, type TestUser } from "./api";
import { createBlock } from "./blocks";

export type { PropagateResult, SyncedBlock };

export const SYNCED = "/api/v1/synced-blocks";

export const postLink = (user: TestUser, body: unknown): Promise<ApiResponse<SyncedBlock>> =>
  api<SyncedBlock>(SYNCED, { method: "POST", auth: user, body });

/** Links `instance` to `source`; throws unless 201. */
export async function link(user: TestUser, source: string, instance: string): Promise<SyncedBlock> {
  const res = await postLink(user, { source_block_id: source, instance_block_id: instance });
  if (res.status !== 201) throw new Error(`link failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const listInstances = (user: TestUser, source: string, query = ""): Promise<ApiResponse<SyncedBlock[]>> =>
  api<SyncedBlock[]>(`${SYNCED}/source/${source}${query}`, { auth: user });

export const getInstance = (user: TestUser, instance: string): Promise<ApiResponse<SyncedBlock>> =>
  api<SyncedBlock>(`${SYNCED}/instance/${instance}`, { auth: user });

export const propagate = (user: TestUser, source: string): Promise<ApiResponse<PropagateResult>> =>
  api<PropagateResult>(`${SYNCED}/source/${source}/propagate`, { method: "POST", auth: user });

export const unlink = (user: TestUser, instance: string): Promise<ApiResponse<SyncedBlock>> =>
  api<SyncedBlock>(`${SYNCED}/instance/${instance}/unlink`, { method: "POST", auth: user });

/** The stored link of an instance, straight from D1 (null when none). */
export const storedLink = (instance: string) =>
  env.DB.prepare("SELECT * FROM synced_blocks WHERE instance_block_id = ?").bind(instance).first<SyncedBlock>();

export const storedLinksOf = async (source: string): Promise<SyncedBlock[]> =>
  (
    await env.DB.prepare("SELECT * FROM synced_blocks WHERE source_block_id = ? ORDER BY instance_block_id")
      .bind(source)
      .all<SyncedBlock>()
  ).results;

/** A source: a callout under its own page with a child, which has a child of its own. */
export interface SyncTarget {
  id: string;
  pageId: string;
  sourceId: string;
  childId: string;
  grandchildId: string;
}

/**
 * The target of auth-matrix checks: an instance (with a child of its own) linked to a
 * source with a two-level subtree, all owned by `owner`, under one page. `id` is the
 * instance or the source, as `of` says.
 */
export async function setupSyncTarget(owner: TestUser, of: "source" | "instance"): Promise<SyncTarget> {
  const page = await createBlock(owner, { type: "page", properties: { title: "Synced page" } });
  const source = await createBlock(owner, {
    type: "callout",
    parent_id: page.id,
    properties: { title: "Source", color: "blue" },
    content: [{ text: "source body" }],
  });
  const child = await createBlock(owner, { parent_id: source.id, properties: { title: "Source child" } });
  const grandchild = await createBlock(owner, { parent_id: child.id, properties: { title: "Source grandchild" } });
  const instance = await createBlock(owner, { parent_id: page.id, properties: { title: "Instance" } });
  await createBlock(owner, { parent_id: instance.id, properties: { title: "Instance child" } });
  await link(owner, source.id, instance.id);
  return {
    id: of === "source" ? source.id : instance.id,
    pageId: page.id,
    sourceId: source.id,
    childId: child.id,
    grandchildId: grandchild.id,
  };
}

/** Everything stored about a sync target: the page's blocks and the links, straight from D1. */
export async function readSyncTarget(_owner: TestUser, target: SyncTarget): Promise<unknown> {
  const blocks = await env.DB.prepare(
    `WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT b.id FROM blocks b JOIN tree ON b.parent_id = tree.id)
     SELECT b.* FROM blocks b WHERE b.id IN (SELECT id FROM tree) ORDER BY b.id`,
  )
    .bind(target.pageId)
    .all();
  return { blocks: blocks.results, links: await storedLinksOf(target.sourceId) };
}

/** A block's descendants straight from D1 (any owner or state), parents before children, by position. */
export async function storedSubtree(id: string): Promise<Record<string, unknown>[]> {
  const rows = await env.DB.prepare(
    `WITH RECURSIVE tree(id, depth) AS (
       SELECT b.id, 1 FROM blocks b WHERE b.parent_id = ?1
       UNION ALL SELECT b.id, tree.depth + 1 FROM blocks b JOIN tree ON b.parent_id = tree.id)
     SELECT b.*, tree.depth FROM blocks b JOIN tree ON tree.id = b.id ORDER BY tree.depth, b.position, b.id`,
  )
    .bind(id)
    .all<Record<string, unknown>>();
  return rows.results;
}

/** Writes a synced link straight to D1, for states the API refuses (a link made before a rule existed). */
export async function insertLink(source: string, instance: string, createdBy: string | null): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO synced_blocks (id, source_block_id, instance_block_id, status, created_by, created_at) VALUES (?, ?, ?, 'synced', ?, ?)",
  )
    .bind(id, source, instance, createdBy, new Date().toISOString())
    .run();
  return id;
}
