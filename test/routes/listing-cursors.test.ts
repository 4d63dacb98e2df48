import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../src/services/push/config";
import { type ApiResponse, api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { createBlock, insertBlocks, uniqueType, uniqueWord } from "../helpers/blocks";
import { createComment } from "../helpers/comments";
import { createDatabase, createRow } from "../helpers/databases";
import { FakePushService } from "../helpers/fake-push-service";
import { createMedia } from "../helpers/media";
import { createPage } from "../helpers/pages";
import { createReminder, reminderTarget } from "../helpers/reminders";
import { link } from "../helpers/synced-blocks";
import { createView } from "../helpers/views";

// Every listing of the shared pagination module walked by cursor: the pages by cursor are the
// pages by offset, each item once, and an item added before the cursor between two requests
// shifts nothing (it is simply not in this walk, where an offset walk would repeat an item).

type Item = Record<string, unknown>;
/** One request of a listing with these window parameters (`limit=2&cursor=...`). */
type Lister = (params: string) => Promise<ApiResponse<Item[]>>;

const lister =
  (auth: TestUser | string, path: string): Lister =>
  (params) =>
    api<Item[]>(`${path}${path.includes("?") ? "&" : "?"}${params}`, { auth });

const PAGE_SIZE = 2;
const MAX_PAGES = 100;

/** The whole listing by offset, PAGE_SIZE at a time. */
async function walkByOffset(list: Lister, between?: () => Promise<void>): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await list(`limit=${PAGE_SIZE}&offset=${page * PAGE_SIZE}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body);
    if (res.headers.get("X-Has-More") !== "true") return items;
    await between?.();
  }
  throw new Error("the offset walk did not end");
}

interface CursorWalk {
  items: Item[];
  /** X-Total-Count of each page. */
  totals: (string | null)[];
  /** The cursors passed, in order. */
  cursors: string[];
}

/** The whole listing by cursor, PAGE_SIZE at a time, checking each page's headers; `between` runs between pages. */
async function walkByCursor(list: Lister, between?: () => Promise<void>): Promise<CursorWalk> {
  const walk: CursorWalk = { items: [], totals: [], cursors: [] };
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await list(`limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("X-Pagination-Offset")).toBe("0");
    expect(res.headers.get("X-Pagination-Limit")).toBe(String(PAGE_SIZE));
    const next = res.headers.get("X-Next-Cursor");
    expect(next !== null).toBe(res.headers.get("X-Has-More") === "true");
    if (next !== null) expect(res.body).toHaveLength(PAGE_SIZE);
    walk.items.push(...res.body);
    walk.totals.push(res.headers.get("X-Total-Count"));
    if (next === null) return walk;
    expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
    walk.cursors.push(next);
    await between?.();
    cursor = next;
  }
  throw new Error("the cursor walk did not end");
}

const past = (n: number) => new Date(Date.UTC(2020, 0, 1, 0, 0, n)).toISOString();
let earlier = 0;
/** An instant before every other this file writes, earlier at each call. */
const beforeEverything = () => new Date(Date.UTC(2000, 0, 1) - ++earlier * 1000).toISOString();

const setColumn = (table: string, column: string, value: unknown, id: string) =>
  env.DB.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`).bind(value, id).run();

interface Case {
  list: Lister;
  /** An item's identity in the listing. */
  key: (item: Item) => string;
  /** Adds an item that sorts before every item there is (so before any cursor). */
  addFirst?: () => Promise<void>;
}

const byId = (item: Item) => String(item.id);
const paragraph = (...children: unknown[]) => ({ type: "paragraph", children });

async function signIn(): Promise<string> {
  const res = await api<{ sessionData: { token: string } }>("/auth/complete", {
    method: "POST",
    body: { sessionId: `dev:${crypto.randomUUID()}@example.test` },
  });
  expect(res.status).toBe(200);
  return res.body.sessionData.token;
}

const browser = new FakePushService({ vapidPublicKey: DEVELOPMENT_VAPID_PUBLIC_KEY });

/** Every listing of the module, each with 7 or more items (ties in its first key included) of a fresh user. */
const CASES: Record<string, () => Promise<Case>> = {
  "a block's history (newest version first)": async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { n: 0 } });
    const edit = async (n: number) => {
      const res = await api(`/api/v1/blocks/${block.id}`, { method: "PATCH", auth: user, body: { properties: { n } } });
      expect(res.status).toBe(200);
    };
    for (let n = 1; n < 7; n++) await edit(n);
    let next = 7;
    return {
      list: lister(user, `/api/v1/blocks/${block.id}/history`),
      key: (item) => String(item.event_id),
      addFirst: () => edit(next++),
    };
  },
  "blocks (owner's and shared, newest change first)": async () => {
    const user = await createUser();
    const type = uniqueType();
    // Ties on updated_at (broken by seq), and shared blocks merged in.
    await insertBlocks(
      [0, 0, 1, 2, 2, 2, 3].map((n, i) => ({
        type,
        created_by: i % 3 === 0 ? null : user.id,
        updated_at: past(n),
      })),
    );
    return {
      list: lister(user, `/api/v1/blocks?type=${type}`),
      key: byId,
      addFirst: async () =>
        void (await insertBlocks([{ type, created_by: user.id, updated_at: new Date().toISOString() }])),
    };
  },
  "blocks (children by position, unpositioned last)": async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page", properties: { title: "Parent" } });
    await insertBlocks(
      [3, null, 1, 3, null, 2, 5, null].map((position) => ({ parent_id: parent.id, position, created_by: user.id })),
    );
    let first = 0;
    return {
      list: lister(user, `/api/v1/blocks?parent_id=${parent.id}&sortBy=position&sortOrder=asc`),
      key: byId,
      addFirst: async () =>
        void (await insertBlocks([{ parent_id: parent.id, position: --first, created_by: user.id }])),
    };
  },
  "blocks (children by position, descending)": async () => {
    const user = await createUser();
    const parent = await createBlock(user, { type: "page", properties: { title: "Parent" } });
    await insertBlocks(
      [3, null, 1, 3, null, 2, 5].map((position) => ({ parent_id: parent.id, position, created_by: user.id })),
    );
    let last = 100;
    return {
      list: lister(user, `/api/v1/blocks?parent_id=${parent.id}&sortBy=position&sortOrder=desc`),
      key: byId,
      addFirst: async () =>
        void (await insertBlocks([{ parent_id: parent.id, position: ++last, created_by: user.id }])),
    };
  },
  "blocks (search, by relevance)": async () => {
    const user = await createUser();
    const word = uniqueWord();
    // Title weighs more than body, and more occurrences more: ranks with ties.
    const titles = [word, `${word} ${word}`, word, "other", word, "x", `${word} ${word}`];
    await insertBlocks(
      titles.map((title, i) => ({
        type: "page",
        properties: { title },
        content: i % 2 ? [paragraph({ text: `${word} in the body` })] : [],
        created_by: user.id,
      })),
    );
    return { list: lister(user, `/api/v1/blocks?q=${word}`), key: byId };
  },
  "blocks (search, oldest first)": async () => {
    const user = await createUser();
    const word = uniqueWord();
    await insertBlocks(
      [0, 1, 1, 2, 3, 3, 4].map((n) => ({
        type: "page",
        properties: { title: `${word} note` },
        created_by: user.id,
        created_at: past(n),
      })),
    );
    return {
      list: lister(user, `/api/v1/blocks?q=${word}&sortBy=created_at&sortOrder=asc`),
      key: byId,
      addFirst: async () =>
        void (await insertBlocks([
          { type: "page", properties: { title: `${word} early` }, created_by: user.id, created_at: beforeEverything() },
        ])),
    };
  },
  pages: async () => {
    const user = await createUser();
    const container = await createPage(user, { title: "Container" });
    const ids = await insertBlocks(
      [0, 1, 1, 2, 3, 3, 4].map((n, i) => ({
        type: i === 3 ? "database" : "page",
        parent_id: container.id,
        properties: { title: `Page ${i}` },
        created_by: user.id,
        updated_at: past(n),
      })),
    );
    expect(ids).toHaveLength(7);
    return {
      list: lister(user, `/api/v1/pages?parent_id=${container.id}`),
      key: byId,
      addFirst: async () => void (await createPage(user, { title: "Newest", parent_id: container.id })),
    };
  },
  "comments on a block": async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Discussed" });
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await createComment(user, page.id, `Comment ${i}`));
    // Ties on created_at, broken by insertion order.
    for (const [i, comment] of made.entries())
      await setColumn("comments", "created_at", past(Math.floor(i / 2)), comment.id);
    return {
      list: lister(user, `/api/v1/comments/block/${page.id}`),
      key: byId,
      addFirst: async () => {
        const comment = await createComment(user, page.id, "Late, dated early");
        await setColumn("comments", "created_at", beforeEverything(), comment.id);
      },
    };
  },
  "comments on a page (with its blocks)": async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Discussed" });
    const block = await createBlock(user, { parent_id: page.id });
    for (let i = 0; i < 7; i++) await createComment(user, i % 2 ? block.id : page.id, `Comment ${i}`);
    return {
      list: lister(user, `/api/v1/comments/page/${page.id}?resolved=false`),
      key: byId,
      addFirst: async () => {
        const comment = await createComment(user, block.id, "Late, dated early");
        await setColumn("comments", "created_at", beforeEverything(), comment.id);
      },
    };
  },
  reminders: async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    for (const day of [3, 1, 2, 2, 5, 4, 4]) await createReminder(user, target, `2031-01-0${day}T09:00:00.000Z`);
    let day = 28;
    return {
      list: lister(user, `/api/v1/reminders?target_block_id=${target.rowId}`),
      key: byId,
      addFirst: async () => void (await createReminder(user, target, `2030-12-${--day}T09:00:00.000Z`)),
    };
  },
  "due reminders": async () => {
    const user = await createUser();
    const target = await reminderTarget(user);
    for (const day of [3, 1, 2, 2, 5, 4, 4]) await createReminder(user, target, `2031-01-0${day}T09:00:00.000Z`);
    let day = 28;
    return {
      list: lister(user, "/api/v1/reminders/due?before=2031-02-01T00:00:00Z"),
      key: byId,
      addFirst: async () => void (await createReminder(user, target, `2030-12-${--day}T09:00:00.000Z`)),
    };
  },
  notifications: async () => {
    const user = await createUser();
    const insert = (createdAt: string) =>
      env.DB.prepare(
        `INSERT INTO notifications (id, user_id, occurrence, title, channel, created_at) VALUES (?, ?, ?, ?, 'in_app', ?)`,
      )
        .bind(crypto.randomUUID(), user.id, createdAt, "Due", createdAt)
        .run();
    for (const n of [0, 1, 1, 2, 3, 3, 3]) await insert(past(n));
    return {
      list: lister(user, "/api/v1/notifications"),
      key: byId,
      addFirst: async () => void (await insert(new Date().toISOString())),
    };
  },
  "mentions in a block": async () => {
    const user = await createUser();
    const block = await createBlock(user, { type: "page", properties: { title: "Dates" } });
    const mention = async (day: number) => {
      const res = await api<Item>("/api/v1/mentions", {
        method: "POST",
        auth: user,
        body: { block_id: block.id, target_type: "date", target_id: `2026-12-${String(day).padStart(2, "0")}` },
      });
      expect(res.status).toBe(201);
      return String(res.body.id);
    };
    for (let day = 1; day <= 7; day++) await setColumn("mentions", "created_at", past(day % 3), await mention(day));
    let day = 10;
    return {
      list: lister(user, `/api/v1/mentions/block/${block.id}`),
      key: byId,
      addFirst: async () => void (await setColumn("mentions", "created_at", beforeEverything(), await mention(++day))),
    };
  },
  "mentions on a page": async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Links" });
    const block = await createBlock(user, { parent_id: page.id });
    for (let i = 0; i < 7; i++) {
      const res = await api("/api/v1/mentions", {
        method: "POST",
        auth: user,
        body: { block_id: i % 2 ? page.id : block.id, target_type: "date", target_id: `2026-11-0${i + 1}` },
      });
      expect(res.status).toBe(201);
    }
    return { list: lister(user, `/api/v1/mentions/page/${page.id}`), key: byId };
  },
  backlinks: async () => {
    const user = await createUser();
    const target = await createPage(user, { title: "Target" });
    const refer = (title: string) =>
      createPage(user, {
        title,
        content: [paragraph({ text: "See " }, { text: "@Target", mention: { type: "page", id: target.id } })],
      });
    for (let i = 0; i < 7; i++) await refer(`Source ${i}`);
    return {
      list: lister(user, `/api/v1/backlinks/${target.id}`),
      key: (item) => String(item.source_block_id),
      addFirst: async () => {
        const source = await refer("Late source");
        await env.DB.prepare("UPDATE mentions SET created_at = ? WHERE block_id = ?")
          .bind(beforeEverything(), source.id)
          .run();
      },
    };
  },
  "saved views (unpositioned last)": async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [] });
    for (const position of [2, null, 1, 2, null, 3, null, 0.5])
      await createView(user, database.id, { view_type: "table", name: `View ${position}`, position });
    let first = 0;
    return {
      list: lister(user, `/api/database-views/${database.id}`),
      key: byId,
      addFirst: async () =>
        void (await createView(user, database.id, { view_type: "list", name: "First", position: --first })),
    };
  },
  media: async () => {
    const user = await createUser();
    for (let i = 0; i < 7; i++) await createMedia(user, { filename: `photo-${i}.txt` });
    return {
      list: lister(user, "/api/v1/media"),
      key: byId,
      addFirst: async () => void (await createMedia(user, { filename: "newest.txt" })),
    };
  },
  "media search": async () => {
    const user = await createUser();
    for (let i = 0; i < 10; i++) await createMedia(user, { filename: `${i % 5 ? "holiday" : "work"}-${i}.txt` });
    return {
      list: lister(user, "/api/v1/media/search?q=holiday"),
      key: byId,
      addFirst: async () => void (await createMedia(user, { filename: "holiday-latest.txt" })),
    };
  },
  "API keys": async () => {
    const session = await signIn();
    const create = async (name: string) => {
      const res = await api<Item>("/api/v1/api-keys", { method: "POST", auth: session, body: { name } });
      expect(res.status).toBe(201);
      return String(res.body.id);
    };
    for (let i = 0; i < 7; i++) await setColumn("api_keys", "created_at", past(i % 3), await create(`Key ${i}`));
    return {
      list: lister(session, "/api/v1/api-keys"),
      key: byId,
      addFirst: async () => void (await create("Newest")),
    };
  },
  "push subscriptions": async () => {
    const user = await createUser();
    const register = async () => {
      const res = await api<Item>("/api/v1/push-subscriptions", {
        method: "POST",
        auth: user,
        body: await browser.subscribe(),
      });
      expect(res.status).toBe(201);
      return String(res.body.id);
    };
    for (let i = 0; i < 7; i++) await setColumn("push_subscriptions", "created_at", past(i % 2), await register());
    return {
      list: lister(user, "/api/v1/push-subscriptions"),
      key: byId,
      addFirst: async () =>
        void (await setColumn("push_subscriptions", "created_at", beforeEverything(), await register())),
    };
  },
  "quick-task database options": async () => {
    const user = await createUser();
    // Titles that tie (case aside), wrapper pages, and databases alone.
    for (const title of ["Tasks", "tasks", "Reading", "Backlog", "TASKS"]) {
      const wrapper = title === "Reading" ? undefined : await createPage(user, { title: `${title} home` });
      await createDatabase(user, { title, properties: [], ...(wrapper ? { parentId: wrapper.id } : {}) });
    }
    let n = 0;
    return {
      list: lister(user, "/api/v1/tasks/database-options"),
      key: (item) => `${item.database_id}/${item.page_id}`,
      addFirst: async () => void (await createDatabase(user, { title: `0${++n} first`, properties: [] })),
    };
  },
  "synced block instances": async () => {
    const user = await createUser();
    const source = await createBlock(user, { type: "callout", properties: { title: "Source" } });
    const follow = async () => {
      const instance = await createBlock(user, { type: "paragraph" });
      return (await link(user, source.id, instance.id)).id;
    };
    for (let i = 0; i < 7; i++) await setColumn("synced_blocks", "created_at", past(i % 3), await follow());
    return {
      list: lister(user, `/api/v1/synced-blocks/source/${source.id}?status=synced`),
      key: byId,
      addFirst: async () => void (await setColumn("synced_blocks", "created_at", beforeEverything(), await follow())),
    };
  },
};

const keysOf = (c: Case, items: Item[]) => items.map(c.key);

describe("every listing walks by cursor", () => {
  it.each(Object.keys(CASES))(
    "%s: the cursor walk is the offset walk and the whole listing, each item once",
    async (name) => {
      const c = await (CASES[name] as () => Promise<Case>)();
      const whole = await c.list("limit=100");
      expect(whole.status).toBe(200);
      expect(whole.headers.get("X-Next-Cursor")).toBeNull();
      const all = keysOf(c, whole.body);
      expect(all.length).toBeGreaterThanOrEqual(7);
      expect(new Set(all).size).toBe(all.length);

      expect(keysOf(c, await walkByOffset(c.list))).toEqual(all);
      const walk = await walkByCursor(c.list);
      expect(keysOf(c, walk.items)).toEqual(all);
      // X-Total-Count counts the whole listing on every page, not what is left after the cursor.
      expect(new Set(walk.totals)).toEqual(new Set([String(all.length)]));
      // Items carry nothing of the keyset (the key columns are taken off).
      for (const item of walk.items) expect(Object.keys(item).some((field) => field.startsWith("_key"))).toBe(false);
      // The same cursor again gives the same page.
      const cursor = walk.cursors[1] as string;
      const again = await c.list(`limit=${PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`);
      expect(keysOf(c, again.body)).toEqual(all.slice(2 * PAGE_SIZE, 3 * PAGE_SIZE));
    },
  );

  const shifting = Object.keys(CASES).filter(
    (name) => name !== "blocks (search, by relevance)" && name !== "mentions on a page",
  );
  it.each(shifting)("%s: items added before the cursor between requests shift nothing", async (name) => {
    const c = await (CASES[name] as () => Promise<Case>)();
    const before = keysOf(c, (await c.list("limit=100")).body);
    const addFirst = c.addFirst as () => Promise<void>;
    const walk = await walkByCursor(c.list, addFirst);
    // Each page continued where the previous one stopped: exactly the items there were, once, in order.
    expect(keysOf(c, walk.items)).toEqual(before);
    const after = keysOf(c, (await c.list("limit=100")).body);
    expect(after.length).toBe(before.length + walk.cursors.length);
    expect(after.slice(walk.cursors.length)).toEqual(before);
    // The totals follow the whole listing as it grows.
    expect(walk.totals.map(Number)).toEqual(walk.totals.map((_, page) => before.length + page));
  });

  it("an offset walk under the same writes repeats items (what the cursor avoids)", async () => {
    const c = await (CASES.notifications as () => Promise<Case>)();
    const before = keysOf(c, (await c.list("limit=100")).body);
    const walked = keysOf(c, await walkByOffset(c.list, c.addFirst));
    expect(new Set(walked).size).toBeLessThan(walked.length);
    expect(walked).not.toEqual(before);
  });
});

describe("cursor refusals", async () => {
  const user = await createUser();
  const page = await createPage(user, { title: "Discussed" });
  for (let i = 0; i < 3; i++) await createComment(user, page.id, `Comment ${i}`);
  const type = uniqueType();
  await insertBlocks([0, 1, 2].map(() => ({ type, created_by: user.id })));
  await insertBlocks(
    [0, 1, 2].map((i) => ({ type: "page", properties: { title: `cursorword ${i}` }, created_by: user.id })),
  );
  const nextOf = async (path: string) => {
    const res = await api(path, { auth: user });
    const next = res.headers.get("X-Next-Cursor");
    expect(next).not.toBeNull();
    return next as string;
  };
  const refused = async (path: string) => {
    const res = await api(path, { auth: user });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { parameter: "cursor" } });
  };

  it.each([
    "/api/v1/blocks?",
    "/api/v1/pages?",
    `/api/v1/comments/block/${page.id}?`,
    `/api/v1/comments/page/${page.id}?`,
    "/api/v1/reminders?",
    "/api/v1/reminders/due?",
    "/api/v1/notifications?",
    `/api/v1/mentions/block/${page.id}?`,
    `/api/v1/mentions/page/${page.id}?`,
    `/api/v1/backlinks/${page.id}?`,
    "/api/v1/media?",
    "/api/v1/media/search?q=x&",
    "/api/v1/push-subscriptions?",
    "/api/v1/tasks/database-options?",
    `/api/v1/synced-blocks/source/${page.id}?`,
    "/api/v1/blocks?q=word&",
  ])("%s a malformed cursor is a 400 naming it", async (path) => {
    for (const cursor of ["x", "not-a-cursor!", btoa('{"l":"x"}'), ""]) {
      await refused(`${path}cursor=${encodeURIComponent(cursor)}`);
    }
  });

  it("a cursor of another listing, or of other filters, is a 400 naming it", async () => {
    const comments = await nextOf(`/api/v1/comments/block/${page.id}?limit=1`);
    await refused(`/api/v1/comments/page/${page.id}?cursor=${comments}`);
    await refused(`/api/v1/comments/block/${page.id}?resolved=false&cursor=${comments}`);
    await refused(`/api/v1/mentions/block/${page.id}?cursor=${comments}`);
    const blocks = await nextOf(`/api/v1/blocks?type=${type}&limit=1`);
    await refused(`/api/v1/blocks?type=${uniqueType()}&cursor=${blocks}`);
    await refused(`/api/v1/blocks?type=${type}&sortBy=created_at&cursor=${blocks}`);
    await refused(`/api/v1/pages?type=page&cursor=${blocks}`);
    // The one it came from continues.
    const res = await api(`/api/v1/blocks?type=${type}&limit=1&cursor=${blocks}`, { auth: user });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it.each([
    ["blocks, the default order spelled out", `/api/v1/blocks?type=${type}`, "sortBy=updated_at&sortOrder=desc"],
    ["blocks, the default order in part", `/api/v1/blocks?type=${type}`, "sortOrder=desc"],
    ["blocks, the default flags spelled out", `/api/v1/blocks?type=${type}`, "archived=false&in_trash=false"],
    ["blocks by relevance, whatever sortOrder says", "/api/v1/blocks?q=cursorword", "sortOrder=asc"],
    ["pages, the default flags spelled out", "/api/v1/pages?q=cursorword", "archived=false&in_trash=false"],
  ])("%s: a cursor continues the same listing whichever way its defaults are written", async (_name, path, spelled) => {
    for (const [first, next] of [
      [path, `${path}&${spelled}`],
      [`${path}&${spelled}`, path],
    ] as const) {
      const cursor = await nextOf(`${first}&limit=1`);
      const res = await api<Item[]>(`${next}&limit=1&cursor=${encodeURIComponent(cursor)}`, { auth: user });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toHaveLength(1);
    }
  });

  it("row queries: a sort's default direction spelled out or left out continues the same query", async () => {
    const database = await createDatabase(user, { properties: [] });
    for (const title of ["a", "b", "c"]) await createRow(user, database.id, {}, { title });
    const query = (sorts: unknown, cursor?: string) =>
      api<Item[]>(`/api/v1/databases/${database.id}/query`, {
        method: "POST",
        auth: user,
        body: { sorts, limit: 1, ...(cursor ? { cursor } : {}) },
      });
    const bare = [{ property: "title" }];
    const spelled = [{ property: "title", direction: "asc" }];
    for (const [first, next] of [
      [bare, spelled],
      [spelled, bare],
    ]) {
      const cursor = (await query(first)).headers.get("X-Next-Cursor");
      expect(cursor).not.toBeNull();
      const res = await query(next, cursor as string);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toHaveLength(1);
    }
  });

  it("media search: another spelling of the same instants continues the same listing", async () => {
    for (let i = 0; i < 2; i++) await createMedia(user, { filename: `cursorfile-${i}.txt` });
    const search = "/api/v1/media/search?q=cursorfile&limit=1";
    const cursor = await nextOf(`${search}&created_after=2020-01-01T00:00:00Z`);
    const res = await api<Item[]>(`${search}&created_after=2020-01-01T01:00:00%2B01:00&cursor=${cursor}`, {
      auth: user,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it("a cursor with a non-zero offset is a 400 naming both; with offset=0 it is accepted", async () => {
    const cursor = await nextOf(`/api/v1/comments/block/${page.id}?limit=1`);
    const res = await api(`/api/v1/comments/block/${page.id}?limit=1&offset=1&cursor=${cursor}`, { auth: user });
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ code: "validation_failed", details: { parameters: ["cursor", "offset"] } });
    const ok = await api(`/api/v1/comments/block/${page.id}?limit=1&offset=0&cursor=${cursor}`, { auth: user });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("X-Pagination-Offset")).toBe("0");
  });

  it("the next cursor is exposed to browsers", async () => {
    const res = await api(`/api/v1/comments/block/${page.id}?limit=1`, {
      auth: user,
      headers: { Origin: "https://app.example" },
    });
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("X-Next-Cursor");
  });
});
