import { env } from "cloudflare:test";
import type { DatabaseView } from "../../src/schemas/views";
import { type ApiResponse, api, type TestUser } from "./api";
import { createDatabase, type TestDatabase } from "./databases";

export const VIEWS = "/api/database-views";

export { type DatabaseView, VIEW_TYPES } from "../../src/schemas/views";

export const postView = (user: TestUser, databaseId: string, body: unknown): Promise<ApiResponse<DatabaseView>> =>
  api<DatabaseView>(`${VIEWS}/${databaseId}`, { method: "POST", auth: user, body });

export const listViews = (user: TestUser, databaseId: string): Promise<ApiResponse<DatabaseView[]>> =>
  api<DatabaseView[]>(`${VIEWS}/${databaseId}`, { auth: user });

export const getView = (user: TestUser, viewId: string): Promise<ApiResponse<DatabaseView>> =>
  api<DatabaseView>(`${VIEWS}/view/${viewId}`, { auth: user });

export const patchView = (user: TestUser, viewId: string, body: unknown): Promise<ApiResponse<DatabaseView>> =>
  api<DatabaseView>(`${VIEWS}/view/${viewId}`, { method: "PATCH", auth: user, body });

/** Creates a view; throws unless 201. */
export async function createView(user: TestUser, databaseId: string, body: Record<string, unknown>) {
  const res = await postView(user, databaseId, body);
  if (res.status !== 201) throw new Error(`view create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A view's record straight from D1, JSON columns parsed (null when absent); its internal version left out. */
export async function storedView(id: string): Promise<DatabaseView | null> {
  const stored = await env.DB.prepare("SELECT * FROM database_views WHERE id = ?")
    .bind(id)
    .first<Record<string, unknown> & { filters: string; sorts: string; visible_properties: string | null }>();
  if (!stored) return null;
  const { version: _version, ...row } = stored;
  return {
    ...(row as unknown as DatabaseView),
    filters: JSON.parse(row.filters),
    sorts: JSON.parse(row.sorts),
    visible_properties: row.visible_properties === null ? null : JSON.parse(row.visible_properties),
  };
}

/** Every view record of a database in D1, whoever made it. */
export async function storedViewsOf(databaseId: string) {
  const { results } = await env.DB.prepare("SELECT id FROM database_views WHERE database_id = ? ORDER BY id")
    .bind(databaseId)
    .all<{ id: string }>();
  return Promise.all(results.map((r) => storedView(r.id)));
}

/** An owner's database with a calendar view on it. */
export async function setupViewTarget(owner: TestUser): Promise<{ id: string; database: TestDatabase }> {
  const database = await createDatabase(owner);
  const view = await createView(owner, database.id, {
    view_type: "calendar",
    name: "Owner calendar",
    date_property: "Due",
    filters: [{ property: "Status", operator: "equals", value: "Todo" }],
  });
  return { id: view.id, database };
}

/** What the owner sees of a view, and its record. */
export async function readViewTarget(owner: TestUser, target: { id: string; database: TestDatabase }) {
  const [one, all] = [await getView(owner, target.id), await listViews(owner, target.database.id)];
  return {
    one: { status: one.status, body: one.body },
    all: all.body,
    stored: await storedViewsOf(target.database.id),
  };
}
