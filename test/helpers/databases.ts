import { env } from "cloudflare:test";
import { expect } from "vitest";
import type {
  PropertyDefinition as Property,
  Row,
  DatabaseSchemaResponse as SchemaResponse,
  SelectOption,
} from "../../src/schemas/databases";
import { type ApiResponse, api, type TestUser } from "./api";
import { insertBlock } from "./blocks";
import { createPage, type Page, storedProperties } from "./pages";

export const DATABASES = "/api/v1/databases";
export const PROP_ID = /^prop_[0-9a-f]{16}$/;
export const OPT_ID = /^opt_[0-9a-f]{16}$/;

export type { Property, Row, SchemaResponse, SelectOption };

/** A property to add; `type` is a string so tests can send types the API refuses. */
export interface NewProperty {
  name: string;
  type: string;
  options?: { name: string; color?: string }[];
}

/** The default columns every new database gets (contract, Block rule 8), in order. */
export const DEFAULT_COLUMNS = [
  { name: "title", type: "title" },
  { name: "created_time", type: "created_time" },
  { name: "created_by", type: "created_by" },
  { name: "last_edited_time", type: "last_edited_time" },
  { name: "last_edited_by", type: "last_edited_by" },
];

/** A schema with one property of each writable kind, options chosen to catch substring matching. */
export const FIXTURE_PROPERTIES: NewProperty[] = [
  {
    name: "Status",
    type: "select",
    options: [
      { name: "Todo", color: "red" },
      { name: "Doing", color: "yellow" },
      { name: "Done", color: "green" },
    ],
  },
  {
    name: "Tags",
    type: "multi_select",
    options: [
      { name: "Art", color: "pink" },
      { name: "Artist", color: "blue" },
      { name: "Music", color: "purple" },
    ],
  },
  {
    name: "Stage",
    type: "status",
    options: [
      { name: "Not started", color: "gray" },
      { name: "In progress", color: "blue" },
      { name: "Complete", color: "green" },
    ],
  },
  { name: "Priority", type: "number" },
  { name: "Due", type: "date" },
  { name: "Urgent", type: "checkbox" },
  { name: "Notes", type: "text" },
];

export interface TestDatabase {
  id: string;
  block: Page;
  properties: Property[];
  /** The property with this display name; throws when absent. */
  prop(name: string): Property;
  /** The option `optionName` of property `propertyName`; throws when absent. */
  option(propertyName: string, optionName: string): SelectOption;
}

export function describeSchema(id: string, block: Page, properties: Property[]): TestDatabase {
  const prop = (name: string) => {
    const found = properties.find((p) => p.name === name);
    if (!found) throw new Error(`no property ${name}`);
    return found;
  };
  return {
    id,
    block,
    properties,
    prop,
    option: (propertyName, optionName) => {
      const found = prop(propertyName).options.find((o) => o.name === optionName);
      if (!found) throw new Error(`no option ${optionName} of ${propertyName}`);
      return found;
    },
  };
}

export const getSchema = (user: TestUser, databaseId: string): Promise<ApiResponse<SchemaResponse>> =>
  api<SchemaResponse>(`${DATABASES}/${databaseId}/schema`, { auth: user });

export const postProperty = (user: TestUser, databaseId: string, body: unknown): Promise<ApiResponse<Property>> =>
  api<Property>(`${DATABASES}/${databaseId}/properties`, { method: "POST", auth: user, body });

/** Adds a property through the schema endpoint; throws unless 201. */
export async function addProperty(user: TestUser, databaseId: string, body: NewProperty): Promise<Property> {
  const res = await postProperty(user, databaseId, body);
  if (res.status !== 201) throw new Error(`add property failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A database created through POST /api/v1/pages with the given properties added through
 * the schema endpoints (the fixture schema unless given).
 */
export async function createDatabase(
  user: TestUser,
  options: { title?: string; parentId?: string; properties?: NewProperty[] } = {},
): Promise<TestDatabase> {
  const block = await createPage(user, {
    type: "database",
    title: options.title ?? "Tasks",
    ...(options.parentId ? { parent_id: options.parentId } : {}),
  });
  for (const property of options.properties ?? FIXTURE_PROPERTIES) await addProperty(user, block.id, property);
  const schema = await getSchema(user, block.id);
  return describeSchema(block.id, block, schema.body.properties);
}

/** Creates a row through POST /api/v1/pages; throws unless 201. */
export function createRow(
  user: TestUser,
  databaseId: string,
  properties: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<Page> {
  return createPage(user, { type: "database_row", database_id: databaseId, properties, ...extra });
}

export const queryRows = (user: TestUser, databaseId: string, body?: unknown): Promise<ApiResponse<Row[]>> =>
  api<Row[]>(`${DATABASES}/${databaseId}/query`, { method: "POST", auth: user, body });

/** The schema records of a database straight from D1, in schema order. */
export async function schemaRecords(databaseId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, database_id, name, type, options, position FROM database_properties WHERE database_id = ? ORDER BY position, name",
  )
    .bind(databaseId)
    .all<{ id: string; database_id: string; name: string; type: string; options: string; position: number }>();
  return results.map((record) => ({ ...record, options: JSON.parse(record.options) as SelectOption[] }));
}

/** Ids of the rows of a database as stored in D1 (any owner or state). */
export async function storedRowIds(databaseId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT id FROM blocks WHERE database_id = ? ORDER BY seq")
    .bind(databaseId)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

/** Stored properties of every row of a database, keyed by row id. */
export async function storedRows(databaseId: string): Promise<Record<string, Record<string, unknown> | null>> {
  const ids = await storedRowIds(databaseId);
  return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await storedProperties(id)] as const)));
}

/**
 * An older database: a `database` block written straight to D1 with its schema inline in
 * `properties.schema` and no schema records.
 */
export async function insertLegacyDatabase(
  createdBy: string | null,
  schema: unknown,
  title = "Legacy",
): Promise<string> {
  return insertBlock({ type: "database", created_by: createdBy, properties: { title, schema } });
}

/** What the owner sees of a database: its schema records, its rows as queried and as stored. */
export async function readDatabaseTarget(owner: TestUser, target: { id: string }): Promise<unknown> {
  const [schema, rows] = await Promise.all([getSchema(owner, target.id), queryRows(owner, target.id)]);
  return {
    schema: { status: schema.status, body: schema.body },
    rows: { status: rows.status, body: rows.body },
    records: await schemaRecords(target.id),
    stored: await storedRows(target.id),
  };
}

/** A database with the fixture schema and one row, owned by `owner`. */
export async function setupDatabaseTarget(owner: TestUser): Promise<TestDatabase & { rowId: string }> {
  const database = await createDatabase(owner);
  const row = await createRow(owner, database.id, { title: "Row", Status: "Todo", Tags: ["Art"], Priority: 1 });
  return { ...database, rowId: row.id };
}

/**
 * The row-value index of a database (migrations/0012_row_values.sql) equals what its rows and
 * schema derive (the `row_values_source` view), values with their SQL types (text that looks like
 * a number must stay text), and every `sort_asc` is `sort` with NULL as X'FF'.
 */
export async function expectRowIndexExact(databaseId: string): Promise<void> {
  const columns =
    "row_seq, property_id, ordinal, database_id, position_key, created_by, active, typeof(match) AS match_type, match, typeof(sort) AS sort_type, sort";
  const [held, derived, sentinels] = await Promise.all([
    env.DB.prepare(`SELECT ${columns} FROM row_values WHERE database_id = ? ORDER BY 1, 2, 3`).bind(databaseId).all(),
    env.DB.prepare(`SELECT ${columns} FROM row_values_source WHERE database_id = ? ORDER BY 1, 2, 3`)
      .bind(databaseId)
      .all(),
    env.DB.prepare(
      "SELECT count(*) AS wrong FROM row_values WHERE database_id = ? AND sort_asc IS NOT coalesce(sort, X'FF')",
    )
      .bind(databaseId)
      .first<{ wrong: number }>(),
  ]);
  expect(held.results.length).toBeGreaterThan(0);
  expect(held.results).toEqual(derived.results);
  expect(sentinels?.wrong).toBe(0);
}
