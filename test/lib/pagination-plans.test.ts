import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { UserContext } from "../../src/lib/context";
import { type PageWindow, pageWindow, type ResultPage } from "../../src/lib/pagination";
import { listApiKeys } from "../../src/services/api-keys/api-keys";
import { listBlocks } from "../../src/services/blocks/queries";
import { listBlockHistory } from "../../src/services/change-log/history";
import { listBlockComments, listPageComments } from "../../src/services/comments/comments";
import { listViews } from "../../src/services/database-views/views";
import { listMedia, searchMedia } from "../../src/services/media/queries";
import { listBacklinks } from "../../src/services/mentions/backlinks";
import { listBlockMentions, listPageMentions } from "../../src/services/mentions/mentions";
import { listPages } from "../../src/services/pages/pages";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../src/services/push/config";
import { listPushSubscriptions } from "../../src/services/push/subscriptions";
import { listDatabaseOptions } from "../../src/services/quick-tasks/database-options";
import { listNotifications } from "../../src/services/reminders/notifications";
import { listDueReminders, listReminders } from "../../src/services/reminders/reminders";
import { listInstances } from "../../src/services/synced-blocks/links";
import { api, createUser } from "../helpers/api";
import { createBlock, insertBlocks, uniqueType, uniqueWord } from "../helpers/blocks";
import { createComment } from "../helpers/comments";
import { createDatabase } from "../helpers/databases";
import { FakePushService } from "../helpers/fake-push-service";
import { createMedia } from "../helpers/media";
import { createPage } from "../helpers/pages";
import { fullSortsOf, indexesOf, planOf, recordingContext, type Statement, tableScansOf } from "../helpers/query-plans";
import { createReminder, reminderTarget } from "../helpers/reminders";
import { link } from "../helpers/synced-blocks";
import { createView } from "../helpers/views";

// What a page by cursor costs, read from SQLite's plans: every listing's page 1 and its next page
// by cursor, as the services send them, explained. The page by cursor reads the indexes page 1
// reads, seeks to the cursor where the first key allows it, and sorts nothing page 1 does not.

type Lister = (ctx: UserContext, window: PageWindow) => Promise<ResultPage<unknown>>;

describe("a page by cursor is planned as page 1 is", async () => {
  const user = await createUser();
  const word = uniqueWord();
  const type = uniqueType();
  const page = await createPage(user, { title: `Plans ${word}` });
  await insertBlocks(
    [1, null, 2, 2, null].map((position, i) => ({
      type,
      parent_id: page.id,
      position,
      properties: { title: `${word} ${i}` },
      created_by: user.id,
    })),
  );
  for (let i = 0; i < 3; i++) await createComment(user, page.id, `Comment ${i}`);
  for (let i = 1; i <= 3; i++) {
    await api("/api/v1/mentions", {
      method: "POST",
      auth: user,
      body: { block_id: page.id, target_type: "date", target_id: `2026-12-0${i}` },
    });
  }
  for (let i = 0; i < 3; i++) {
    await createPage(user, {
      title: `Source ${i}`,
      content: [{ type: "paragraph", children: [{ text: "@", mention: { type: "page", id: page.id } }] }],
    });
  }
  const target = await reminderTarget(user);
  for (let day = 1; day <= 3; day++) await createReminder(user, target, `2031-01-0${day}T09:00:00.000Z`);
  for (let i = 0; i < 3; i++) {
    const at = new Date(Date.UTC(2020, 0, 1, 0, 0, i)).toISOString();
    await env.DB.prepare(
      "INSERT INTO notifications (id, user_id, occurrence, title, channel, created_at) VALUES (?, ?, ?, 'Due', 'in_app', ?)",
    )
      .bind(crypto.randomUUID(), user.id, at, at)
      .run();
  }
  const database = await createDatabase(user, { title: "Tasks", properties: [] });
  for (const position of [1, null, 2]) await createView(user, database.id, { view_type: "table", position });
  await createDatabase(user, { title: "Reading", properties: [] });
  for (let i = 0; i < 3; i++) await createMedia(user, { filename: `${word}-${i}.txt` });
  for (let i = 0; i < 3; i++) {
    await env.DB.prepare(
      "INSERT INTO api_keys (id, user_id, name, key_hash, display_prefix, display_suffix) VALUES (?, ?, 'k', ?, 'sr_', 'abcd')",
    )
      .bind(crypto.randomUUID(), user.id, crypto.randomUUID())
      .run();
  }
  const browser = new FakePushService({ vapidPublicKey: DEVELOPMENT_VAPID_PUBLIC_KEY });
  for (let i = 0; i < 3; i++) {
    await api("/api/v1/push-subscriptions", { method: "POST", auth: user, body: await browser.subscribe() });
  }
  // Versions of the page in its history.
  for (let i = 0; i < 2; i++) {
    await api(`/api/v1/blocks/${page.id}`, { method: "PATCH", auth: user, body: { properties: { version: i } } });
  }
  const source = await createBlock(user, { type: "callout" });
  for (let i = 0; i < 3; i++) await link(user, source.id, (await createBlock(user, {})).id);

  const blockQuery = { archived: false, inTrash: false, sortOrder: "desc" as const };
  /** Each listing, and (where its first key allows an index range) the seek its page by cursor makes. */
  const listings: [string, Lister, RegExp | null][] = [
    [
      "blocks",
      (ctx, w) => listBlocks(ctx, { ...w, ...blockQuery, type }),
      /blocks_owner_updated_idx \(created_by=\? AND updated_at</,
    ],
    [
      "blocks by parent, by position",
      (ctx, w) => listBlocks(ctx, { ...w, ...blockQuery, parentId: page.id, sortBy: "position", sortOrder: "asc" }),
      /blocks_parent_position_idx \(parent_id=\? AND position[>=]/,
    ],
    ["blocks search", (ctx, w) => listBlocks(ctx, { ...w, ...blockQuery, q: word }), null],
    ["pages", (ctx, w) => listPages(ctx, { ...w, archived: false, inTrash: false }), /updated_at</],
    [
      "comments.block",
      (ctx, w) => listBlockComments(ctx, page.id, {}, w),
      /comments_block_idx \(block_id=\? AND created_at>/,
    ],
    [
      "comments.page",
      (ctx, w) => listPageComments(ctx, page.id, {}, w),
      /comments_block_idx \(block_id=\? AND created_at>/,
    ],
    ["reminders", (ctx, w) => listReminders(ctx, {}, w), null],
    ["reminders.due", (ctx, w) => listDueReminders(ctx, "2031-02-01T00:00:00Z", w), null],
    [
      "notifications",
      (ctx, w) => listNotifications(ctx, {}, w),
      /notifications_user_created_idx \(user_id=\? AND created_at</,
    ],
    [
      "mentions.block",
      (ctx, w) => listBlockMentions(ctx, page.id, w),
      /mentions_block_idx \(block_id=\? AND created_at>/,
    ],
    [
      "mentions.page",
      (ctx, w) => listPageMentions(ctx, page.id, w),
      /mentions_block_idx \(block_id=\? AND created_at>/,
    ],
    ["backlinks", (ctx, w) => listBacklinks(ctx, page.id, w), null],
    [
      "database-views",
      (ctx, w) => listViews(ctx, database.id, w),
      /database_views_database_idx \(database_id=\? AND position/,
    ],
    ["media", (ctx, w) => listMedia(ctx, w), /media_owner_created_idx \(created_by=\? AND created_at</],
    [
      "media.search",
      (ctx, w) => searchMedia(ctx, { q: word }, w),
      /media_owner_created_idx \(created_by=\? AND created_at</,
    ],
    ["api-keys", (ctx, w) => listApiKeys(ctx, w), /api_keys_user_idx \(user_id=\? AND created_at</],
    ["push-subscriptions", (ctx, w) => listPushSubscriptions(ctx, w), null],
    ["tasks.database-options", (ctx, w) => listDatabaseOptions(ctx, w), null],
    [
      "blocks.history",
      (ctx, w) => listBlockHistory(ctx, page.id, w),
      // The block's present life bounds the seek below as well (services/change-log/history.ts).
      /change_events_object_idx \(object_id=\? AND id>\? AND id</,
    ],
    [
      "synced-blocks.instances",
      (ctx, w) => listInstances(ctx, source.id, w),
      /synced_blocks_source_idx \(source_block_id=\? AND created_at>/,
    ],
  ];

  it.each(listings)("%s", async (name, list, seek) => {
    const first = recordingContext(user);
    const page1 = await list(first.ctx, pageWindow({ limit: 1 }));
    expect(page1.nextCursor).not.toBeNull();
    const next = recordingContext(user);
    const page2 = await list(next.ctx, pageWindow({ limit: 1, cursor: page1.nextCursor as string }));
    expect(page2.items).toHaveLength(1);
    const pageStatement = (statements: Statement[]) => {
      const found = statements.find((statement) => statement.sql.includes("AS _key0"));
      if (!found) throw new Error("no page statement");
      return found;
    };
    const [plan1, plan2] = [
      await planOf(pageStatement(first.statements)),
      await planOf(pageStatement(next.statements)),
    ];
    console.log(`${name}\n  page 1:\n    ${plan1.join("\n    ")}\n  by cursor:\n    ${plan2.join("\n    ")}`);
    // The same indexes; no sort of every row and no full scan that page 1 does not make.
    expect([...indexesOf(plan2)].sort()).toEqual([...indexesOf(plan1)].sort());
    for (const sort of fullSortsOf(plan2)) expect(fullSortsOf(plan1)).toContain(sort);
    for (const scan of tableScansOf(plan2)) expect(tableScansOf(plan1)).toContain(scan);
    // Where the first key allows it, the index seeks to the cursor rather than reading from the start.
    if (seek) expect(plan2.join("\n")).toMatch(seek);
  });
});
