import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_VAPID_PUBLIC_KEY } from "../../src/services/push/config";
import { api, createUser, type TestUser } from "../helpers/api";
import { addApiKey } from "../helpers/auth-matrix";
import { createBlock, insertBlocks, uniqueType, uniqueWord } from "../helpers/blocks";
import { createComment } from "../helpers/comments";
import { type ArrangedListing, type CursorCase, describeCursorMatrix } from "../helpers/cursor-matrix";
import { createDatabase, createRow } from "../helpers/databases";
import { FakePushService } from "../helpers/fake-push-service";
import { createMedia } from "../helpers/media";
import { createPage } from "../helpers/pages";
import { createReminder, reminderTarget } from "../helpers/reminders";
import { link } from "../helpers/synced-blocks";
import { createView } from "../helpers/views";
import { createWebhook, deliveriesOf, receiverUrl } from "../helpers/webhooks";

// Cursor forgery, for every listing of the contract and the row query: a cursor continues only
// the walk of the user it was given to, in its own listing with its own filters, unaltered. The
// listings on objects two users both see (shared blocks, pages, databases) are arranged shared, so
// the intruder is refused a cursor of a listing they may walk themselves.

/** Makes blocks shared (created_by NULL: visible to every user). */
const share = (table: "blocks" | "database_views", ...ids: string[]) =>
  env.DB.batch(ids.map((id) => env.DB.prepare(`UPDATE ${table} SET created_by = NULL WHERE id = ?`).bind(id)));

/**
 * A case's arrangement: an owner whose items `fill` makes (it answers the listing and the others)
 * and an intruder; `shared` when the intruder sees the owner's items too.
 */
const arrangedBy =
  (shared: boolean, fill: (owner: TestUser) => Promise<Pick<ArrangedListing, "listing" | "others">>) =>
  async (): Promise<ArrangedListing> => {
    const owner = await createUser();
    return { owner, intruder: await createUser(), shared, ...(await fill(owner)) };
  };

/** Three reminders of the owner's, due in January 2031. */
async function reminders(owner: TestUser): Promise<void> {
  const target = await reminderTarget(owner);
  for (const day of [1, 2, 3]) await createReminder(owner, target, `2031-01-0${day}T09:00:00.000Z`);
}

/** A page both users see. */
async function sharedPage(owner: TestUser, title = "Shared") {
  const page = await createPage(owner, { title });
  await share("blocks", page.id);
  return page;
}

async function mention(user: TestUser, blockId: string, day: number): Promise<void> {
  const res = await api("/api/v1/mentions", {
    method: "POST",
    auth: user,
    body: { block_id: blockId, target_type: "date", target_id: `2026-12-${String(day).padStart(2, "0")}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const browser = new FakePushService({ vapidPublicKey: DEVELOPMENT_VAPID_PUBLIC_KEY });

const insertNotification = (userId: string) =>
  env.DB.prepare(
    "INSERT INTO notifications (id, user_id, occurrence, title, channel, created_at) VALUES (?, ?, ?, 'Due', 'in_app', ?)",
  )
    .bind(crypto.randomUUID(), userId, new Date().toISOString(), new Date().toISOString())
    .run();

const CURSOR_CASES: CursorCase[] = [
  {
    operation: "GET /api/v1/blocks",
    variant: "shared blocks",
    arrange: arrangedBy(true, async () => {
      const type = uniqueType();
      await insertBlocks([1, 2, 3].map(() => ({ type, created_by: null })));
      return {
        listing: { path: `/api/v1/blocks?type=${type}` },
        others: [
          { path: `/api/v1/blocks?type=${uniqueType()}` },
          { path: `/api/v1/blocks?type=${type}&sortBy=created_at` },
          { path: `/api/v1/blocks?type=${type}&q=word` },
          { path: "/api/v1/pages" },
        ],
      };
    }),
  },
  {
    operation: "GET /api/v1/blocks",
    variant: "search",
    arrange: arrangedBy(true, async () => {
      const word = uniqueWord();
      await insertBlocks(
        [1, 2, 3].map((i) => ({ type: "page", properties: { title: `${word} ${i}` }, created_by: null })),
      );
      return {
        listing: { path: `/api/v1/blocks?q=${word}` },
        others: [{ path: `/api/v1/blocks?q=${uniqueWord()}` }, { path: `/api/v1/blocks?q=${word}&sortBy=created_at` }],
      };
    }),
  },
  {
    operation: "GET /api/v1/pages",
    arrange: arrangedBy(true, async (owner) => {
      const container = await sharedPage(owner, "Container");
      await insertBlocks(
        [1, 2, 3].map((i) => ({
          type: "page",
          parent_id: container.id,
          properties: { title: `Page ${i}` },
          created_by: null,
        })),
      );
      return {
        listing: { path: `/api/v1/pages?parent_id=${container.id}` },
        others: [{ path: "/api/v1/pages" }, { path: `/api/v1/blocks?parent_id=${container.id}` }],
      };
    }),
  },
  {
    operation: "GET /api/v1/comments/block/{blockId}",
    arrange: arrangedBy(true, async (owner) => {
      const page = await sharedPage(owner);
      for (let i = 0; i < 3; i++) await createComment(owner, page.id, `Comment ${i}`);
      return {
        listing: { path: `/api/v1/comments/block/${page.id}` },
        others: [
          { path: `/api/v1/comments/block/${page.id}?resolved=false` },
          { path: `/api/v1/comments/page/${page.id}` },
          { path: `/api/v1/mentions/block/${page.id}` },
        ],
      };
    }),
  },
  {
    operation: "GET /api/v1/comments/page/{pageId}",
    arrange: arrangedBy(true, async (owner) => {
      const page = await sharedPage(owner);
      for (let i = 0; i < 3; i++) await createComment(owner, page.id, `Comment ${i}`);
      return {
        listing: { path: `/api/v1/comments/page/${page.id}` },
        others: [
          { path: `/api/v1/comments/page/${page.id}?resolved=true` },
          { path: `/api/v1/comments/page/${(await sharedPage(owner, "Another")).id}` },
          { path: `/api/v1/comments/block/${page.id}` },
        ],
      };
    }),
  },
  {
    operation: "GET /api/v1/mentions/block/{blockId}",
    arrange: arrangedBy(true, async (owner) => {
      const page = await sharedPage(owner);
      for (let day = 1; day <= 3; day++) await mention(owner, page.id, day);
      return {
        listing: { path: `/api/v1/mentions/block/${page.id}` },
        others: [{ path: `/api/v1/mentions/page/${page.id}` }, { path: `/api/v1/comments/block/${page.id}` }],
      };
    }),
  },
  {
    operation: "GET /api/v1/mentions/page/{pageId}",
    arrange: arrangedBy(true, async (owner) => {
      const page = await sharedPage(owner);
      for (let day = 1; day <= 3; day++) await mention(owner, page.id, day);
      return {
        listing: { path: `/api/v1/mentions/page/${page.id}` },
        others: [{ path: `/api/v1/mentions/block/${page.id}` }, { path: `/api/v1/backlinks/${page.id}` }],
      };
    }),
  },
  {
    operation: "GET /api/v1/backlinks/{targetPageId}",
    arrange: arrangedBy(true, async (owner) => {
      const target = await sharedPage(owner, "Target");
      for (let i = 0; i < 3; i++) {
        const source = await createPage(owner, {
          title: `Source ${i}`,
          content: [{ type: "paragraph", children: [{ text: "@Target", mention: { type: "page", id: target.id } }] }],
        });
        await share("blocks", source.id);
      }
      return {
        listing: { path: `/api/v1/backlinks/${target.id}` },
        others: [
          { path: `/api/v1/backlinks/${(await sharedPage(owner, "Another")).id}` },
          { path: `/api/v1/mentions/page/${target.id}` },
        ],
      };
    }),
  },
  {
    operation: "GET /api/database-views/{database_id}",
    arrange: arrangedBy(true, async (owner) => {
      const database = await createDatabase(owner, { properties: [] });
      await share("blocks", database.id);
      for (let i = 0; i < 3; i++) {
        await share(
          "database_views",
          (await createView(owner, database.id, { view_type: "table", name: `View ${i}` })).id,
        );
      }
      const other = await createDatabase(owner, { properties: [] });
      return {
        listing: { path: `/api/database-views/${database.id}` },
        others: [{ path: `/api/database-views/${other.id}` }, { path: `/api/v1/blocks?database_id=${database.id}` }],
      };
    }),
  },
  {
    operation: "GET /api/v1/synced-blocks/source/{sourceBlockId}",
    arrange: arrangedBy(true, async (owner) => {
      const source = await createBlock(owner, { type: "callout", properties: { title: "Source" } });
      const instances: string[] = [];
      for (let i = 0; i < 3; i++) {
        const instance = await createBlock(owner, { type: "paragraph" });
        await link(owner, source.id, instance.id);
        instances.push(instance.id);
      }
      await share("blocks", source.id, ...instances);
      return {
        listing: { path: `/api/v1/synced-blocks/source/${source.id}` },
        others: [
          { path: `/api/v1/synced-blocks/source/${source.id}?status=synced` },
          { path: `/api/v1/comments/block/${source.id}` },
        ],
      };
    }),
  },
  {
    operation: "POST /api/v1/databases/{id}/query",
    variant: "shared database",
    arrange: arrangedBy(true, async (owner) => {
      const database = await createDatabase(owner);
      await share("blocks", database.id);
      for (const title of ["a", "b", "c"]) await share("blocks", (await createRow(owner, database.id, { title })).id);
      // Rows only the owner sees, beside the shared ones.
      for (const title of ["d", "e"]) await createRow(owner, database.id, { title });
      const other = await createDatabase(owner, { properties: [] });
      await share("blocks", other.id);
      const sorts = [{ property: "title", direction: "asc" }];
      const path = `/api/v1/databases/${database.id}/query`;
      return {
        listing: { method: "POST", path, body: { sorts } },
        others: [
          { method: "POST", path, body: { sorts: [{ property: "title", direction: "desc" }] } },
          { method: "POST", path, body: { sorts, filters: [{ property: "title", operator: "is_not_empty" }] } },
          { method: "POST", path, body: {} },
          { method: "POST", path: `/api/v1/databases/${other.id}/query`, body: { sorts } },
        ],
      };
    }),
  },
  {
    operation: "POST /api/v1/databases/{id}/query",
    variant: "shared database, sorted by a value too long to carry (the cursor names the row)",
    arrange: arrangedBy(true, async (owner) => {
      const database = await createDatabase(owner);
      await share("blocks", database.id);
      for (const tail of ["a", "b", "c"]) {
        await share(
          "blocks",
          (await createRow(owner, database.id, { title: tail, Notes: `${"long ".repeat(300)}${tail}` })).id,
        );
      }
      const sorts = [{ property: "Notes", direction: "asc" }];
      const path = `/api/v1/databases/${database.id}/query`;
      return {
        listing: { method: "POST", path, body: { sorts } },
        others: [
          { method: "POST", path, body: { sorts: [{ property: "Notes", direction: "desc" }] } },
          { method: "POST", path, body: {} },
        ],
      };
    }),
  },
  {
    operation: "POST /api/v1/databases/{id}/query",
    variant: "a query the index cannot serve (the cursor holds an offset)",
    arrange: arrangedBy(true, async (owner) => {
      const database = await createDatabase(owner);
      await share("blocks", database.id);
      for (const [title, priority] of [
        ["a", 1],
        ["b", 2],
        ["c", 2],
      ] as const) {
        await share("blocks", (await createRow(owner, database.id, { title, Priority: priority })).id);
      }
      const sorts = [
        { property: "Priority", direction: "asc" },
        { property: "title", direction: "desc" },
      ];
      const path = `/api/v1/databases/${database.id}/query`;
      return {
        listing: { method: "POST", path, body: { sorts } },
        others: [{ method: "POST", path, body: { sorts: sorts.slice(0, 1) } }],
      };
    }),
  },
  {
    operation: "GET /api/v1/reminders",
    arrange: arrangedBy(false, async (owner) => {
      await reminders(owner);
      return {
        listing: { path: "/api/v1/reminders" },
        others: [
          { path: "/api/v1/reminders?status=scheduled" },
          { path: "/api/v1/reminders/due?before=2031-02-01T00:00:00Z" },
        ],
      };
    }),
  },
  {
    operation: "GET /api/v1/reminders/due",
    arrange: arrangedBy(false, async (owner) => {
      await reminders(owner);
      return {
        listing: { path: "/api/v1/reminders/due?before=2031-02-01T00:00:00Z" },
        others: [{ path: "/api/v1/reminders/due?before=2031-03-01T00:00:00Z" }, { path: "/api/v1/reminders" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/notifications",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) await insertNotification(owner.id);
      return {
        listing: { path: "/api/v1/notifications" },
        others: [{ path: "/api/v1/notifications?unread=true" }, { path: "/api/v1/media" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/media",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) await createMedia(owner, { filename: `photo-${i}.txt` });
      return {
        listing: { path: "/api/v1/media" },
        others: [{ path: "/api/v1/media/search?q=photo" }, { path: "/api/v1/notifications" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/media/search",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) await createMedia(owner, { filename: `holiday-${i}.txt` });
      return {
        listing: { path: "/api/v1/media/search?q=holiday" },
        others: [{ path: "/api/v1/media/search?q=work" }, { path: "/api/v1/media" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/api-keys",
    sessionOnly: true,
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 2; i++) await addApiKey(owner);
      return {
        listing: { path: "/api/v1/api-keys" },
        others: [{ path: "/api/v1/push-subscriptions" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/push-subscriptions",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) {
        const res = await api("/api/v1/push-subscriptions", {
          method: "POST",
          auth: owner,
          body: await browser.subscribe(),
        });
        expect(res.status).toBe(201);
      }
      return {
        listing: { path: "/api/v1/push-subscriptions" },
        others: [{ path: "/api/v1/api-keys" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/tasks/database-options",
    arrange: arrangedBy(false, async (owner) => {
      for (const title of ["Tasks", "Reading", "Backlog"]) await createDatabase(owner, { title, properties: [] });
      return {
        listing: { path: "/api/v1/tasks/database-options" },
        others: [{ path: "/api/v1/pages" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/changes",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) await createBlock(owner, { properties: { i } });
      return {
        listing: { path: "/api/v1/changes" },
        others: [{ path: "/api/v1/changes?types=block.created" }, { path: "/api/v1/blocks" }],
      };
    }),
  },
  {
    operation: "GET /api/v1/blocks/{id}/history",
    arrange: arrangedBy(true, async (owner) => {
      const page = await sharedPage(owner, "Versions");
      for (let i = 0; i < 3; i++) {
        const res = await api(`/api/v1/blocks/${page.id}`, {
          method: "PATCH",
          auth: owner,
          body: { properties: { title: `Version ${i}` } },
        });
        expect(res.status).toBe(200);
      }
      return {
        listing: { path: `/api/v1/blocks/${page.id}/history` },
        others: [
          { path: `/api/v1/blocks/${(await sharedPage(owner, "Another")).id}/history` },
          { path: `/api/v1/comments/block/${page.id}` },
        ],
      };
    }),
  },
  {
    operation: "GET /api/v1/webhooks",
    arrange: arrangedBy(false, async (owner) => {
      for (let i = 0; i < 3; i++) await createWebhook(owner, { url: receiverUrl(), description: `hook ${i}` });
      return { listing: { path: "/api/v1/webhooks" }, others: [{ path: "/api/v1/changes" }] };
    }),
  },
  {
    operation: "GET /api/v1/webhooks/{id}/deliveries",
    arrange: arrangedBy(false, async (owner) => {
      const webhook = await createWebhook(owner, { url: receiverUrl() });
      const other = await createWebhook(owner, { url: receiverUrl() });
      // Three changes, each one delivery to each webhook.
      for (let i = 0; i < 3; i++) await createBlock(owner, { properties: { i } });
      expect(await deliveriesOf(webhook.id)).toHaveLength(3);
      return {
        listing: { path: `/api/v1/webhooks/${webhook.id}/deliveries` },
        others: [{ path: `/api/v1/webhooks/${other.id}/deliveries` }, { path: "/api/v1/webhooks" }],
      };
    }),
  },
];

describeCursorMatrix(CURSOR_CASES);

describe("cursor forgery: every listing of the contract is in the matrix", () => {
  it("the cases name exactly the operations that answer X-Next-Cursor", async () => {
    type Operation = { responses: Record<string, { headers?: Record<string, unknown> }> };
    const contract = await api<{ paths: Record<string, Record<string, Operation>> }>("/documentation/openapi.json");
    const listings = Object.entries(contract.body.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.responses["200"]?.headers?.["X-Next-Cursor"])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(CURSOR_CASES.map((c) => c.operation))).toEqual(new Set(listings));
  });
});
