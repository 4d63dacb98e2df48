/**
 * The fuzzing user's world: fixture objects to aim valid ids at, the pools ids are drawn
 * from (read back from D1 after every accepted write, so deleted objects drop out and new
 * ones come in), and the fingerprint that shows whether a refused write stored anything.
 */
import { env } from "cloudflare:test";
import { LONE_SURROGATE } from "../../src/lib/lone-surrogates";
import { api, createUser, type TestUser } from "../helpers/api";
import { insertBlock, setupBlockTarget } from "../helpers/blocks";
import { createRow, insertLegacyDatabase, setupDatabaseTarget } from "../helpers/databases";
import { FakePushService } from "../helpers/fake-push-service";
import { createPage, PAGES, setupPageTarget } from "../helpers/pages";
import { createView } from "../helpers/views";
import type { Fit, PoolRef, Resolver } from "./template";
import { ODD_STRINGS } from "./values";

interface PoolProperty {
  id: string;
  name: string;
  type: string;
  options: { id: string; name: string }[];
}

interface PoolDatabase {
  id: string;
  properties: PoolProperty[];
}

export interface Pool {
  user: TestUser;
  blocks: { id: string; type: string; database_id: string | null }[];
  databases: PoolDatabase[];
  views: { id: string; database_id: string }[];
  comments: { id: string }[];
  mentions: { id: string }[];
  pushSubscriptions: { id: string }[];
}

/** How many of a user's blocks the pool holds: the oldest first, so the fixtures stay in it. */
const POOL_BLOCKS = 1000;

/** The fixture database (every writable property kind, a row) with two views on it. */
async function createDatabaseFixture(user: TestUser) {
  const database = await setupDatabaseTarget(user);
  await createViews(user, database.id);
  return database;
}

async function createViews(user: TestUser, databaseId: string): Promise<void> {
  await createView(user, databaseId, {
    view_type: "calendar",
    name: "Fuzz calendar",
    date_property: "Due",
    filters: [{ property: "Status", operator: "equals", value: "Todo" }],
    sorts: [{ property: "Priority", direction: "desc" }],
  });
  await createView(user, databaseId, { view_type: "timeline", start_date_property: "Due" });
}

/**
 * Text with every odd string of the catalog a body may hold: NUL, RTL overrides, emoji, markup. Lone
 * surrogates are left out: a body holding one is refused (lib/lone-surrogates.ts), and these are fixtures.
 */
const ODD_TEXT = ODD_STRINGS.filter((s) => !LONE_SURROGATE.test(s.value))
  .map((s) => s.value)
  .join(" | ");
const ODD_NAMES = [
  "\u00dcn\u00efc\u00f6d\u00e9 \u{1f600}",
  "a.b",
  "$[0]",
  `we"ird'`,
  "__proto__",
  " padded ",
  "\u202eRTL",
  "x\u0000y",
];
const ODD_TYPES = ["text", "number", "select", "multi_select", "date", "checkbox", "url", "email"];

/** Sends a fixture request that may be refused (odd values); a refusal only means one fixture fewer. */
async function attempt<T>(path: string, method: string, user: TestUser, body: unknown): Promise<T | undefined> {
  const res = await api<T>(path, { method, auth: user, body });
  return res.status < 300 ? res.body : undefined;
}

/** A body of every item type, its text odd and its spans, media and embed linking to what is given. */
function oddBody(link: string, mediaUrl: string, embedUrl = mediaUrl): unknown[] {
  const spans = [{ text: ODD_TEXT }, { text: "link", link, bold: true, italic: true, code: true }];
  return [
    { type: "paragraph", children: spans },
    { type: "heading-1", children: spans },
    { type: "numbered-list", children: spans, indent: 6 },
    { type: "to_do", children: spans, checked: true },
    { type: "callout", children: spans, icon: ODD_TEXT },
    { type: "code", children: [{ text: "<script>\u0000</script>" }], language: ODD_TEXT },
    { type: "divider" },
    {
      type: "toggle",
      children: spans,
      content: [{ type: "toggle", children: spans, content: [{ type: "quote", children: spans }] }],
    },
    {
      type: "table",
      rows: [
        [ODD_TEXT, ""],
        ["\u{1f600}", "\u202e"],
      ],
      has_header: true,
    },
    { type: "image", url: mediaUrl, children: spans },
    { type: "embed", url: embedUrl },
  ];
}

/**
 * A page tree, a page with a body, a database with every writable property kind, rows and
 * views, a legacy database with odd property ids, objects full of odd text, and bulk: a page
 * with 120 children, a chain 80 blocks deep and a database with 120 more rows.
 */
async function createFixtures(user: TestUser): Promise<void> {
  await setupBlockTarget(user);
  await setupPageTarget(user);
  const database = await createDatabaseFixture(user);
  const legacy = await insertLegacyDatabase(user.id, [
    { id: "t", name: "Name", type: "title" },
    { id: "tags", name: "Tags", type: "multi_select", options: ["Art", "Artist"] },
    { id: "when", name: "When", type: "date" },
    { id: "a.b", name: "Dotted", type: "text" },
    { id: 'we"ird', name: "Quoted", type: "number" },
    { id: "$[0]", name: "Path", type: "checkbox" },
  ]);
  await createRow(user, legacy, { Name: "Legacy row", Tags: ["Art"], Dotted: "d", Quoted: 3, Path: true });

  // Odd text everywhere a page keeps it: through the API with links it accepts, and straight in
  // D1 with links no write accepts (written before the rule), for the reads and exports to meet.
  await attempt(PAGES, "POST", user, {
    title: `Odd ${ODD_TEXT}`,
    properties: { icon: "\u{1f600}", [ODD_NAMES[1] as string]: ODD_TEXT, nested: { deep: [ODD_TEXT] } },
    content: oddBody(`https://example.com/?q=${ODD_TEXT}`, "https://example.com/a.png"),
  });
  await insertBlock({
    type: "page",
    created_by: user.id,
    properties: { title: `Unsafe links ${ODD_TEXT}` },
    content: oddBody("javascript:alert(1)", "javascript:alert(1)", `data:text/html,${ODD_TEXT}`),
  });
  await attempt(PAGES, "POST", user, {
    title: "Markdown",
    content_markdown: `# ${ODD_TEXT}\n\n- [x] ${ODD_TEXT}\n\n${"> ".repeat(30)}deep`,
  });
  const odd = await attempt<{ id: string }>(PAGES, "POST", user, { type: "database", title: ODD_TEXT });
  if (odd) {
    for (const [i, name] of ODD_NAMES.entries()) {
      const type = ODD_TYPES[i % ODD_TYPES.length];
      const options = type?.includes("select") ? ODD_NAMES.map((n) => ({ name: n.trim() || "blank" })) : undefined;
      await attempt(`/api/v1/databases/${odd.id}/properties`, "POST", user, {
        name,
        type,
        ...(options ? { options } : {}),
      });
    }
    await attempt(PAGES, "POST", user, { type: "database_row", database_id: odd.id, title: ODD_TEXT });
    await attempt(`/api/database-views/${odd.id}`, "POST", user, {
      view_type: "table",
      name: ODD_TEXT.slice(0, 200),
      filters: ODD_NAMES.map((name) => ({ property: name.trim(), operator: "is_not_empty" })),
      sorts: ODD_NAMES.slice(0, 3).map((property) => ({ property })),
      visible_properties: ODD_NAMES.map((name) => name.trim()),
    });
  }

  await createCollaborationFixtures(user);
  await createPushSubscriptionFixtures(user);

  // Bulk, written straight to D1 in one batch: wide, deep and long.
  const wide = await createPage(user, { title: "Wide" });
  const deep = await createPage(user, { title: "Deep" });
  const tag = crypto.randomUUID().slice(0, 8);
  const rowProperties = await env.DB.prepare("SELECT properties FROM blocks WHERE id = ?")
    .bind(database.rowId)
    .first<{ properties: string }>();
  const titleId = database.prop("title").id;
  const priorityId = database.prop("Priority").id;
  await env.DB.batch([
    env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
       INSERT INTO blocks (id, type, parent_id, properties, position, created_by, last_edited_by)
       SELECT 'wide-' || ?2 || '-' || i, 'fuzz_item', ?1, json_object('title', 'Item ' || i), i, ?3, ?3 FROM n`,
    ).bind(wide.id, tag, user.id),
    env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80)
       INSERT INTO blocks (id, type, parent_id, properties, position, created_by, last_edited_by)
       SELECT 'deep-' || ?2 || '-' || i, 'fuzz_item', CASE WHEN i = 1 THEN ?1 ELSE 'deep-' || ?2 || '-' || (i - 1) END,
         json_object('title', 'Level ' || i), 1, ?3, ?3 FROM n`,
    ).bind(deep.id, tag, user.id),
    env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
       INSERT INTO blocks (id, type, database_id, properties, position, created_by, last_edited_by)
       SELECT 'row-' || ?2 || '-' || i, 'database_row', ?1,
         json_set(?4, '$.' || ?5, 'Row ' || i, '$.' || ?6, i * 1.5), i + 1, ?3, ?3 FROM n`,
    ).bind(database.id, tag, user.id, rowProperties?.properties ?? "{}", titleId, priorityId),
  ]);
}

/** A comment thread (one resolved), a mention in content and one made through the API, a synced pair. */
async function createCollaborationFixtures(user: TestUser): Promise<void> {
  const target = await createPage(user, { title: "Mentioned" });
  const source = await createPage(user, {
    title: "Mentions",
    content: [{ type: "paragraph", children: [{ text: "@Mentioned", mention: { type: "page", id: target.id } }] }],
  });
  const comment = await attempt<{ id: string }>("/api/v1/comments", "POST", user, {
    block_id: source.id,
    content: "A comment",
  });
  if (comment) {
    await attempt("/api/v1/comments", "POST", user, { block_id: source.id, content: "A reply", parent_id: comment.id });
    await attempt(`/api/v1/comments/${comment.id}/resolve`, "POST", user, {});
  }
  await attempt("/api/v1/mentions", "POST", user, {
    block_id: source.id,
    target_type: "date",
    target_id: "2026-12-01",
  });
  const instance = await createPage(user, { title: "Synced copy" });
  await attempt("/api/v1/synced-blocks", "POST", user, { source_block_id: source.id, instance_block_id: instance.id });
}

/** Two browsers registered for Web Push (real keys, from a fake push service that is never called). */
async function createPushSubscriptionFixtures(user: TestUser): Promise<void> {
  const browsers = new FakePushService({ vapidPublicKey: env.VAPID_PUBLIC_KEY });
  for (const userAgent of ["Fuzz phone", "Fuzz laptop"]) {
    await attempt("/api/v1/push-subscriptions", "POST", user, {
      ...(await browsers.subscribe()),
      user_agent: userAgent,
    });
  }
}

export async function readPool(user: TestUser): Promise<Pool> {
  const [blocks, properties, views, comments, mentions, pushSubscriptions] = await env.DB.batch([
    env.DB.prepare(
      `SELECT id, type, database_id, CASE WHEN type = 'database' THEN properties END AS properties
       FROM blocks WHERE created_by = ? AND type <> 'fuzz_item' ORDER BY seq LIMIT ${POOL_BLOCKS}`,
    ).bind(user.id),
    env.DB.prepare(
      `SELECT p.database_id, p.id, p.name, p.type, p.options FROM database_properties p
       JOIN blocks b ON b.id = p.database_id WHERE b.created_by = ? ORDER BY b.seq, p.position, p.name`,
    ).bind(user.id),
    env.DB.prepare(
      `SELECT v.id, v.database_id FROM database_views v
       JOIN blocks b ON b.id = v.database_id WHERE b.created_by = ? ORDER BY b.seq, v.id`,
    ).bind(user.id),
    env.DB.prepare(
      `SELECT c.id FROM comments c JOIN blocks b ON b.id = c.block_id WHERE b.created_by = ? ORDER BY c.created_at, c.id`,
    ).bind(user.id),
    env.DB.prepare(
      `SELECT m.id FROM mentions m JOIN blocks b ON b.id = m.block_id WHERE b.created_by = ?
       ORDER BY m.origin, m.created_at, m.id LIMIT 100`,
    ).bind(user.id),
    env.DB.prepare("SELECT id FROM push_subscriptions WHERE user_id = ? ORDER BY created_at, id").bind(user.id),
  ]);
  const blockRows = (blocks?.results ?? []) as {
    id: string;
    type: string;
    database_id: string | null;
    properties: string | null;
  }[];
  const databases = new Map<string, PoolDatabase>();
  for (const block of blockRows) {
    if (block.type !== "database") continue;
    databases.set(block.id, { id: block.id, properties: legacyProperties(block.properties) });
  }
  for (const row of (properties?.results ?? []) as {
    database_id: string;
    id: string;
    name: string;
    type: string;
    options: string;
  }[]) {
    const database = databases.get(row.database_id);
    if (!database) continue;
    if (database.properties.every((p) => p.id !== row.id)) {
      database.properties.push({ id: row.id, name: row.name, type: row.type, options: parseOptions(row.options) });
    }
  }
  return {
    user,
    blocks: blockRows.map(({ id, type, database_id }) => ({ id, type, database_id })),
    databases: [...databases.values()],
    views: (views?.results ?? []) as { id: string; database_id: string }[],
    comments: (comments?.results ?? []) as { id: string }[],
    mentions: (mentions?.results ?? []) as { id: string }[],
    pushSubscriptions: (pushSubscriptions?.results ?? []) as { id: string }[],
  };
}

function parseOptions(text: string | null | undefined): { id: string; name: string }[] {
  try {
    const options = JSON.parse(text ?? "[]") as unknown;
    if (!Array.isArray(options)) return [];
    return options.map((option: unknown) =>
      typeof option === "string"
        ? { id: option, name: option }
        : { id: String((option as { id?: unknown }).id), name: String((option as { name?: unknown }).name) },
    );
  } catch {
    return [];
  }
}

/** The inline schema of an older database (`properties.schema`), when it has one. */
function legacyProperties(text: string | null): PoolProperty[] {
  try {
    const schema = (JSON.parse(text ?? "{}") as { schema?: unknown }).schema;
    if (!Array.isArray(schema)) return [];
    return schema.map((p: { id?: unknown; name?: unknown; type?: unknown; options?: unknown }) => ({
      id: String(p.id),
      name: String(p.name),
      type: String(p.type),
      options: parseOptions(JSON.stringify(p.options ?? [])),
    }));
  } catch {
    return [];
  }
}

/** Makes again, in a small way, each kind of fixture that fuzzing removed; true when it made any. */
async function replenish(pool: Pool): Promise<boolean> {
  const has = (type: string) => pool.blocks.some((b) => b.type === type);
  const fixture = pool.databases.find((d) =>
    ["Status", "Due", "Priority"].every((n) => d.properties.some((p) => p.name === n)),
  );
  let made = false;
  if (!has("page") || !has("paragraph")) {
    await setupBlockTarget(pool.user);
    made = true;
  }
  if (!fixture || !has("database_row")) {
    await createDatabaseFixture(pool.user);
    made = true;
  } else if (pool.comments.length === 0 || pool.mentions.length === 0) {
    await createCollaborationFixtures(pool.user);
    made = true;
  } else if (pool.pushSubscriptions.length === 0) {
    await createPushSubscriptionFixtures(pool.user);
    made = true;
  } else if (pool.views.length === 0) {
    // Fuzzing may have changed the fixture database so that the views no longer fit: then a new one.
    await createViews(pool.user, fixture.id).catch(() => createDatabaseFixture(pool.user));
    made = true;
  }
  return made;
}

/** A user with fixtures and a pool; the fixtures are made again whenever fuzzing removed some kind. */
export class World {
  private constructor(
    public pool: Pool,
    public other: Pool,
  ) {}

  /** A new fuzzing user with fixtures, beside `other` (whose pool is read again, as earlier operations changed it). */
  static async create(other: TestUser): Promise<World> {
    const user = await createUser();
    await createFixtures(user);
    return new World(await readPool(user), await readPool(other));
  }

  /** The other user, whose objects are the foreign ids: made once per run. */
  static async createOther(): Promise<TestUser> {
    const user = await createUser();
    await createFixtures(user);
    return user;
  }

  /** Reads the pools again after an accepted write; refills the fixtures when a kind ran out (then true). */
  async refresh(): Promise<boolean> {
    [this.pool, this.other] = await Promise.all([readPool(this.pool.user), readPool(this.other.user)]);
    if (!(await replenish(this.pool))) return false;
    this.pool = await readPool(this.pool.user);
    return true;
  }

  /** Resolves the markers of one request: a property is one of the database chosen before it, and so on. */
  resolver(): Resolver {
    const context: Context = {};
    return {
      id: (ref) => resolveRef(ref.owner === "self" ? this.pool : this.other, ref, context),
      fit: (fit) => resolveFit(fit, context.property),
    };
  }
}

/** What the earlier references of a request chose. */
interface Context {
  database?: PoolDatabase;
  /** The property referred to last: an option, a row value or an operator is for this one. */
  property?: PoolProperty;
}

function pickFrom<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}

/** An id that exists nowhere: what a reference resolves to when its pool is empty. */
const MISSING = "00000000-0000-4000-8000-000000000000";

const SELECT_TYPES = ["select", "multi_select", "status"];
const DATE_TYPES = ["date", "created_time", "last_edited_time"];

function resolveRef(pool: Pool, ref: PoolRef, context: Context): string {
  const blocksOf = (keep: (b: Pool["blocks"][number]) => boolean) => pool.blocks.filter(keep);
  const database = () => context.database ?? pool.databases.find((d) => d.properties.length > 0);
  const properties = (types?: string[]) => {
    const all = database()?.properties ?? [];
    const fitting = types ? all.filter((p) => types.includes(p.type)) : all;
    return fitting.length > 0 ? fitting : all;
  };
  switch (ref.role) {
    case "block":
      return (
        pickFrom(
          blocksOf((b) => b.type !== "database_row"),
          ref.pick,
        )?.id ?? MISSING
      );
    case "page":
      return (
        pickFrom(
          blocksOf((b) => b.type === "page"),
          ref.pick,
        )?.id ?? MISSING
      );
    case "row": {
      const rows = blocksOf((b) => b.type === "database_row");
      const own = rows.filter((r) => r.database_id === context.database?.id);
      const chosen = pickFrom(own.length > 0 ? own : rows, ref.pick);
      context.database ??= pool.databases.find((d) => d.id === chosen?.database_id);
      return chosen?.id ?? MISSING;
    }
    case "database": {
      const chosen = pickFrom(pool.databases, ref.pick);
      context.database ??= chosen;
      return chosen?.id ?? MISSING;
    }
    case "view": {
      const own = pool.views.filter((v) => v.database_id === context.database?.id);
      const chosen = pickFrom(own.length > 0 ? own : pool.views, ref.pick);
      context.database ??= pool.databases.find((d) => d.id === chosen?.database_id);
      return chosen?.id ?? MISSING;
    }
    case "comment":
      return pickFrom(pool.comments, ref.pick)?.id ?? MISSING;
    case "mention":
      return pickFrom(pool.mentions, ref.pick)?.id ?? MISSING;
    case "pushSubscription":
      return pickFrom(pool.pushSubscriptions, ref.pick)?.id ?? MISSING;
    case "property":
    case "propertyName":
    case "selectProperty":
    case "dateProperty": {
      const types = ref.role === "selectProperty" ? SELECT_TYPES : ref.role === "dateProperty" ? DATE_TYPES : undefined;
      const chosen = pickFrom(properties(types), ref.pick);
      context.property = chosen;
      const byName = ref.role === "propertyName" || (ref.role === "dateProperty" && ref.pick % 2 === 1);
      return (byName ? chosen?.name : chosen?.id) ?? MISSING;
    }
    case "option":
    case "optionName": {
      const withOptions = (d: PoolDatabase | undefined) => d?.properties.filter((p) => p.options.length > 0) ?? [];
      const property = context.property?.options.length
        ? context.property
        : (pickFrom(withOptions(database()), ref.pick) ?? pickFrom(pool.databases.flatMap(withOptions), ref.pick));
      const chosen = pickFrom(property?.options ?? [], ref.pick);
      return (ref.role === "option" ? chosen?.id : chosen?.name) ?? MISSING;
    }
  }
}

/** Filter operators by property type, as the query endpoint documents them. */
const OPERATORS: Record<string, string[]> = {
  select: ["equals", "not_equals", "is_empty", "is_not_empty"],
  status: ["equals", "not_equals", "is_empty", "is_not_empty"],
  multi_select: ["contains", "not_contains", "is_empty", "is_not_empty"],
  date: ["equals", "before", "after", "on_or_before", "on_or_after", "is_empty", "is_not_empty"],
  checkbox: ["equals"],
  number: ["equals", "not_equals", "greater_than", "less_than", "is_empty", "is_not_empty"],
  text: ["equals", "not_equals", "contains", "not_contains", "is_empty", "is_not_empty"],
};

/** A row value or a filter operator for `property` (by its type), or something plausible without one. */
function resolveFit(fit: Fit, property: PoolProperty | undefined): unknown {
  const type = property?.type ?? "text";
  const pick = fit.pick;
  if (fit.kind === "operator") {
    const operators = OPERATORS[DATE_TYPES.includes(type) ? "date" : type] ?? (OPERATORS.text as string[]);
    return operators[pick % operators.length];
  }
  const option = pickFrom(property?.options ?? [], pick);
  switch (type) {
    case "number":
      return [pick, -pick / 7, 0, 1e6][pick % 4];
    case "checkbox":
      return pick % 2 === 0;
    case "select":
    case "status":
      return pick % 3 === 2 ? null : pick % 2 === 0 ? option?.name : option?.id;
    case "multi_select":
      return (property?.options ?? []).filter((_, i) => (pick >> i) % 2 === 1).map((o) => (pick % 2 ? o.id : o.name));
    case "date":
    case "created_time":
    case "last_edited_time":
      return [
        "2026-01-05",
        "2026-01-05T10:30:00Z",
        { start: "2026-01-05", end: "2026-01-09" },
        { start: "2026-01-05T08:00:00+02:00" },
      ][pick % 4];
    case "url":
      return ["https://example.com/a?b=c", "mailto:x@example.com"][pick % 2];
    case "email":
      return "someone@example.com";
    case "phone_number":
      return "+1 555 0100";
    default:
      return ["Row title", "", "Notes with words", "\u00e9t\u00e9"][pick % 4];
  }
}

/**
 * What a user has stored, summarized: counts, the latest `updated_at` and sums over the
 * columns a write changes, for their blocks and for the schema records and views of their
 * databases. Equal before and after a request means the request stored nothing.
 */
export async function fingerprints(userIds: readonly string[]): Promise<string[]> {
  const statements = userIds.map((id) =>
    env.DB.prepare(
      `SELECT
        (SELECT json_array(count(*), max(updated_at), total(length(properties)), total(length(content)),
           total(archived), total(in_trash), total(position), total(length(parent_id)), total(length(database_id)),
           total(length(type)), total(length(teamspace_id)), total(length(last_edited_by)))
         FROM blocks WHERE created_by = ?1) AS blocks,
        (SELECT json_array(count(*), max(p.updated_at), total(length(p.options)), total(length(p.name)),
           total(p.position), total(length(p.type)))
         FROM database_properties p WHERE p.database_id IN (SELECT id FROM blocks WHERE created_by = ?1)) AS properties,
        (SELECT json_array(count(*), max(v.updated_at), total(length(v.name)), total(length(v.filters)),
           total(length(v.sorts)), total(length(v.visible_properties)), total(v.position), total(length(v.view_type)),
           total(length(v.date_property)), total(length(v.start_date_property)), total(length(v.end_date_property)),
           total(length(v.timeline_scale)))
         FROM database_views v WHERE v.database_id IN (SELECT id FROM blocks WHERE created_by = ?1)) AS views,
        (SELECT json_array(count(*), max(c.updated_at), total(length(c.content)), total(c.resolved),
           total(length(c.parent_id)), total(length(c.resolved_by)))
         FROM comments c WHERE c.block_id IN (SELECT id FROM blocks WHERE created_by = ?1)) AS comments,
        (SELECT json_array(count(*), total(length(m.target_id)), total(length(m.target_type)), total(length(m.snippet)),
           total(length(m.kind)), total(length(m.origin)))
         FROM mentions m WHERE m.block_id IN (SELECT id FROM blocks WHERE created_by = ?1)) AS mentions,
        (SELECT json_array(count(*), total(length(s.status)), max(s.last_synced_at), total(length(s.source_block_id)))
         FROM synced_blocks s WHERE s.instance_block_id IN (SELECT id FROM blocks WHERE created_by = ?1)) AS synced,
        (SELECT json_array(count(*), total(length(p.endpoint)), total(length(p.p256dh || p.auth)),
           total(p.expiration_time), total(length(p.user_agent)))
         FROM push_subscriptions p WHERE p.user_id = ?1) AS push_subscriptions`,
    ).bind(id),
  );
  const results = await env.DB.batch(statements);
  return results.map((result) => JSON.stringify(result.results[0]));
}
