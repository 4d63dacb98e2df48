import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pageWindow } from "../../../src/lib/pagination";
import { listChanges } from "../../../src/services/change-log/feed";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, createBlock, getBlock, ISO_DATE_TIME, insertBlocks } from "../../helpers/blocks";
import { about, CHANGES, changesAfter, feedEnd, readFeed, summary } from "../../helpers/changes";
import { createComment, deleteComment, patchComment, resolveComment } from "../../helpers/comments";
import { cronTick } from "../../helpers/cron";
import { createPage, PAGES } from "../../helpers/pages";
import { planOf, recordingContext, type Statement, tableScansOf } from "../../helpers/query-plans";
import { link, propagate } from "../../helpers/synced-blocks";

describeAuthMatrix({ name: "GET /api/v1/changes", method: "GET", path: () => CHANGES });

describe("the change feed", () => {
  it("has every change of a block, in commit order, with the block as it was after it, who and which request", async () => {
    const user = await createUser();
    const start = await feedEnd(user);
    const parent = await createBlock(user, { type: "page", properties: { title: "Parent" } });
    const created = await api<{ id: string }>(BLOCKS, {
      method: "POST",
      auth: user,
      body: { type: "paragraph", properties: { text: "one" } },
      headers: { "X-Request-Id": "feed-test-create" },
    });
    const id = created.body.id;
    const send = (path: string, body?: unknown, method = "POST") =>
      api(`${BLOCKS}/${id}${path}`, { method, auth: user, body }).then((res) => {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res;
      });
    await send("", { properties: { text: "two" } }, "PATCH");
    await send("/move", { parent_id: parent.id, position: 5 });
    await send("/archive");
    await send("/trash");
    await send("/restore");
    await send("", undefined, "DELETE");

    const events = about((await changesAfter(user, start)).events, [parent.id, id]);
    expect(events.map(summary)).toEqual([
      { type: "block.created", object_id: parent.id, changed_fields: null },
      { type: "block.created", object_id: id, changed_fields: null },
      { type: "block.updated", object_id: id, changed_fields: ["properties"] },
      { type: "block.updated", object_id: id, changed_fields: ["parent_id", "position"] },
      { type: "block.updated", object_id: id, changed_fields: ["archived"] },
      { type: "block.updated", object_id: id, changed_fields: ["in_trash"] },
      { type: "block.updated", object_id: id, changed_fields: ["archived", "in_trash"] },
      { type: "block.deleted", object_id: id, changed_fields: null },
    ]);
    const ids = events.map((event) => event.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const event of events) {
      expect(event.actor_id).toBe(user.id);
      expect(event.occurred_at).toMatch(ISO_DATE_TIME);
    }
    expect(events[1]?.request_id).toBe("feed-test-create");
    // The object as GET answered it right after each change.
    expect(events[1]?.data).toEqual(created.body);
    expect(events[3]?.data).toMatchObject({ id, parent_id: parent.id, position: 5, properties: { text: "two" } });
    expect(events[6]?.data).toMatchObject({ archived: false, in_trash: false });
    expect(events[7]?.data).toBeNull();
  });

  it("has comment changes, and a schema change of a database as one event however many rows it rewrites", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Commented" } });
    const { database, status, rows } = await databaseWithRows(
      user,
      Array.from({ length: 5 }, (_, i) => `Row ${i}`),
    );
    const start = await feedEnd(user);

    const comment = await createComment(user, page.id, "First");
    expect((await patchComment(user, comment.id, { content: "Edited" })).status).toBe(200);
    expect((await resolveComment(user, comment.id)).status).toBe(200);
    expect((await deleteComment(user, comment.id)).status).toBe(200);
    const option = status.body.options[0]?.id;
    const renamed = await api(`/api/v1/databases/${database.body.id}/properties/${status.body.id}/options/${option}`, {
      method: "PATCH",
      auth: user,
      body: { name: "To do" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);

    const events = about((await changesAfter(user, start)).events, [comment.id, database.body.id, ...rows.body.ids]);
    expect(events.map(summary)).toEqual([
      { type: "comment.created", object_id: comment.id, changed_fields: null },
      { type: "comment.updated", object_id: comment.id, changed_fields: ["content"] },
      { type: "comment.updated", object_id: comment.id, changed_fields: ["resolved", "resolved_at", "resolved_by"] },
      { type: "comment.deleted", object_id: comment.id, changed_fields: null },
      // The five rows holding the option were rewritten in the same batch: no event of their own.
      { type: "database.schema_updated", object_id: database.body.id, changed_fields: null },
    ]);
    expect(events[1]?.data).toMatchObject({ id: comment.id, content: "Edited", resolved: false });
    const schema = await api(`/api/v1/databases/${database.body.id}/schema`, { auth: user });
    expect(events[4]?.data).toEqual(schema.body);
  });

  it("a row not owned as its private database is has its own event when a schema change rewrites it, for those the database's does not reach", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const { database, status, rows } = await databaseWithRows(alice, ["Owned", "Shared"]);
    const [owned, shared] = rows.body.ids as [string, string];
    // No API makes a shared block: one of Alice's rows becomes one.
    await env.DB.prepare("UPDATE blocks SET created_by = NULL WHERE id = ?").bind(shared).run();
    // Bob's copy of it is Bob's, still in Alice's database.
    const copied = await api<{ id: string; database_id: string }>(`${BLOCKS}/${shared}/duplicate`, {
      method: "POST",
      auth: bob,
    });
    expect(copied.body.database_id).toBe(database.body.id);
    const copy = copied.body.id;
    const [aliceStart, bobStart] = [await feedEnd(alice), await feedEnd(bob)];

    const option = status.body.options[0]?.id;
    const renamed = await api(`/api/v1/databases/${database.body.id}/properties/${status.body.id}/options/${option}`, {
      method: "PATCH",
      auth: alice,
      body: { name: "To do" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);

    const ids = [database.body.id, owned, shared, copy];
    const seenByBob = about((await changesAfter(bob, bobStart)).events, ids);
    expect(seenByBob.map(summary).sort((a, b) => a.object_id.localeCompare(b.object_id))).toEqual(
      [shared, copy].sort().map((id) => ({ type: "block.updated", object_id: id, changed_fields: ["properties"] })),
    );
    for (const event of seenByBob) {
      expect(event.data).toEqual((await getBlock(bob, event.object_id)).body);
      expect(JSON.stringify(event.data)).toContain("To do");
    }
    // The owner's rows are still the database's one event.
    expect(about((await changesAfter(alice, aliceStart)).events, ids).map(summary)).toEqual([
      { type: "block.updated", object_id: shared, changed_fields: ["properties"] },
      { type: "database.schema_updated", object_id: database.body.id, changed_fields: null },
    ]);
  });

  it("never shows another user's changes; shared blocks' changes are everyone's", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const [aliceStart, bobStart] = [await feedEnd(alice), await feedEnd(bob)];
    const own = await createBlock(bob, { properties: { text: "Bob's" } });
    const comment = await createComment(bob, own.id, "Bob's comment");
    await api(`${BLOCKS}/${own.id}`, { method: "DELETE", auth: bob });
    const [shared] = await insertBlocks([{ type: "page", created_by: null, properties: { title: "Shared" } }]);
    const edited = await api(`${BLOCKS}/${shared}`, { method: "PATCH", auth: bob, body: { properties: { x: 1 } } });
    expect(edited.status).toBe(200);

    const ids = [own.id, comment.id, shared as string];
    const seenByAlice = about((await changesAfter(alice, aliceStart)).events, ids);
    expect(seenByAlice.map(summary)).toEqual([
      { type: "block.created", object_id: shared, changed_fields: null },
      { type: "block.updated", object_id: shared, changed_fields: ["properties"] },
    ]);
    // Written straight to D1, outside any request: no actor.
    expect(seenByAlice.map((event) => event.actor_id)).toEqual([null, bob.id]);
    const seenByBob = about((await changesAfter(bob, bobStart)).events, ids);
    expect(seenByBob.map((event) => event.type)).toEqual([
      "block.created",
      "comment.created",
      "block.deleted",
      "block.created",
      "block.updated",
    ]);
    // From the start of the log, too: none of Bob's own objects ever reaches Alice.
    const everything = (await changesAfter(alice)).events;
    expect(about(everything, [own.id, comment.id])).toEqual([]);
  });

  it("names each writer when two users write at once", async () => {
    const users = [await createUser(), await createUser()];
    const starts = await Promise.all(users.map((user) => feedEnd(user)));
    await Promise.all(
      users.flatMap((user) =>
        Array.from({ length: 12 }, (_, i) =>
          api(BLOCKS, { method: "POST", auth: user, body: { type: "paragraph", properties: { i } } }).then((res) => {
            expect(res.status).toBe(201);
          }),
        ),
      ),
    );
    for (const [i, user] of users.entries()) {
      const { events } = await changesAfter(user, starts[i]);
      const own = events.filter((event) => (event.data as { created_by?: string } | null)?.created_by === user.id);
      expect(own).toHaveLength(12);
      for (const event of own) {
        expect(event.actor_id).toBe(user.id);
        expect((event.data as { created_by: string }).created_by).toBe(user.id);
      }
    }
  });
});

describe("a block's version and its events", () => {
  /** The block's one event since `start`, checked against what GET answers now (its ETag moved on from `before`). */
  async function oneEventOf(user: Awaited<ReturnType<typeof createUser>>, id: string, start: string, before: string) {
    const events = about((await changesAfter(user, start)).events, [id]);
    expect(events.map(summary)).toHaveLength(1);
    const read = await getBlock(user, id);
    expect(read.headers.get("ETag")).not.toBe(before);
    expect(events[0]?.data).toEqual(read.body);
    return events[0];
  }

  it("one PUT of a page is one event: the version it bumps is no change of its own, and `data` is the block as GET answers it", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Before" });
    const before = (await getBlock(user, page.id)).headers.get("ETag") ?? "";
    const start = await feedEnd(user);
    const put = await api(`${PAGES}/${page.id}`, {
      method: "PUT",
      auth: user,
      body: { properties: { title: "After" } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const event = await oneEventOf(user, page.id, start, before);
    expect(event?.changed_fields).toEqual(["properties"]);
  });

  it("a write whose version the trigger bumps (synced-block propagation) is one event too", async () => {
    const user = await createUser();
    const source = await createBlock(user, { type: "callout", properties: { title: "Checklist" } });
    const instance = await createBlock(user);
    await link(user, source.id, instance.id);
    const before = (await getBlock(user, instance.id)).headers.get("ETag") ?? "";
    const start = await feedEnd(user);
    expect((await propagate(user, source.id)).status).toBe(200);
    const event = await oneEventOf(user, instance.id, start, before);
    expect(event?.changed_fields).toEqual(["type", "properties"]);
  });

  it("a write that changes nothing a block shows moves its version on and is no event", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { text: "same" } });
    const before = (await getBlock(user, block.id)).headers.get("ETag");
    const start = await feedEnd(user);
    const same = await api(`${BLOCKS}/${block.id}`, {
      method: "PATCH",
      auth: user,
      body: { properties: { text: "same" } },
    });
    expect(same.status).toBe(200);
    expect(same.headers.get("ETag")).not.toBe(before);
    expect(about((await changesAfter(user, start)).events, [block.id])).toEqual([]);
  });
});

describe("the feed's cursor", () => {
  it("resumes where it stopped, is answered on the last and on an empty page, and skips nothing", async () => {
    const user = await createUser();
    const start = await feedEnd(user);
    const first = [];
    for (let i = 0; i < 5; i++) first.push(await createBlock(user, { properties: { i } }));
    const ids = first.map((block) => block.id);
    const walked = await changesAfter(user, start, { limit: 2 });
    expect(about(walked.events, ids).map((event) => event.object_id)).toEqual(ids);

    // Nothing new: an empty page, still with a cursor, which goes on from where it was.
    const empty = await readFeed(user, `cursor=${walked.cursor}`);
    expect(empty.status).toBe(200);
    expect(about(empty.body, ids)).toEqual([]);
    expect(empty.headers.get("X-Has-More")).toBe("false");
    const again = empty.headers.get("X-Next-Cursor");
    expect(again).toBeTruthy();

    const later = await createBlock(user, { properties: { later: true } });
    const polled = await changesAfter(user, again as string);
    expect(about(polled.events, [...ids, later.id]).map((event) => event.object_id)).toEqual([later.id]);
  });

  it("starts at the end with since=now: no events, a cursor, and (as every page of the feed) no total", async () => {
    const user = await createUser();
    await createBlock(user);
    const res = await readFeed(user, "since=now");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get("X-Total-Count")).toBeNull();
    expect(res.headers.get("X-Has-More")).toBe("false");
    const block = await createBlock(user);
    const { events } = await changesAfter(user, res.headers.get("X-Next-Cursor") as string);
    expect(about(events, [block.id]).map((event) => event.object_id)).toEqual([block.id]);
  });

  it("keeps the types asked for, and continues only with them", async () => {
    const user = await createUser();
    const start = await feedEnd(user, "block.updated,comment.created");
    const block = await createBlock(user);
    await api(`${BLOCKS}/${block.id}`, { method: "PATCH", auth: user, body: { properties: { a: 1 } } });
    const comment = await createComment(user, block.id, "Hello");
    const { events, cursor } = await changesAfter(user, start, { types: "block.updated,comment.created" });
    expect(about(events, [block.id, comment.id]).map((event) => event.type)).toEqual([
      "block.updated",
      "comment.created",
    ]);
    // The cursor belongs to those types: another filter is another listing.
    const other = await readFeed(user, `cursor=${cursor}`);
    expectErrorBody(other, 400);
    expect(other.body).toMatchObject({ details: { parameter: "cursor" } });
  });

  it("refuses an unknown type, and since=now with a cursor or an offset", async () => {
    const user = await createUser();
    const unknown = await readFeed(user, "types=block.created,page.moved");
    expectErrorBody(unknown, 400);
    expect(JSON.stringify(unknown.body)).toContain("page.moved");
    const cursor = await feedEnd(user);
    for (const query of [`since=now&cursor=${cursor}`, "since=now&offset=3"]) {
      expectErrorBody(await readFeed(user, query), 400);
    }
  });

  it("is a 400 for another user's cursor", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const res = await readFeed(bob, `cursor=${await feedEnd(alice)}`);
    expectErrorBody(res, 400);
    expect(res.body).toMatchObject({ details: { parameter: "cursor" } });
  });
});

describe("retention", () => {
  it("sweeps changes past 30 days on the Cron Trigger; a cursor from before them is a 410 cursor_expired", async () => {
    const user = await createUser();
    const before = await feedEnd(user);
    const old = await createBlock(user, { properties: { old: true } });
    const { cursor: afterOld } = await changesAfter(user, before);
    const kept = await createBlock(user, { properties: { kept: true } });
    // Every change up to the old block's is 31 days old.
    const oldId = await env.DB.prepare("SELECT max(id) AS id FROM change_events WHERE object_id = ?")
      .bind(old.id)
      .first<number>("id");
    await env.DB.prepare("UPDATE change_events SET occurred_at = ? WHERE id <= ?")
      .bind(new Date(Date.now() - 31 * 86_400_000).toISOString(), oldId)
      .run();

    await cronTick();

    const left = await env.DB.prepare("SELECT count(*) AS n FROM change_events WHERE id <= ?").bind(oldId).first("n");
    expect(left).toBe(0);
    const expired = await readFeed(user, `cursor=${before}`);
    expectErrorBody(expired, 410);
    expect(expired.body).toMatchObject({
      code: "cursor_expired",
      details: { parameter: "cursor", retention_days: 30 },
    });
    // A cursor from after the swept changes has missed nothing.
    const resumed = await changesAfter(user, afterOld);
    expect(about(resumed.events, [old.id, kept.id]).map((event) => event.object_id)).toEqual([kept.id]);
    // Without a cursor the feed starts at the oldest change kept.
    const fromStart = await changesAfter(user);
    expect(about(fromStart.events, [old.id, kept.id]).map((event) => event.object_id)).toEqual([kept.id]);
  });
});

describe("the feed's cost", () => {
  it("a page after a cursor seeks the owner index on both sides of visibility, as page 1 does", async () => {
    const user = await createUser();
    for (let i = 0; i < 3; i++) await createBlock(user, { properties: { i } });
    const first = recordingContext(user);
    const page1 = await listChanges(first.ctx, { window: pageWindow({ limit: 1 }) });
    const next = recordingContext(user);
    await listChanges(next.ctx, { window: pageWindow({ limit: 1, cursor: page1.nextCursor as string }) });
    const pageOf = (statements: Statement[]) => statements.find((statement) => statement.sql.includes("UNION ALL"));
    const [plan1, plan2] = [
      await planOf(pageOf(first.statements) as Statement),
      await planOf(pageOf(next.statements) as Statement),
    ];
    console.log(`the feed\n  page 1:\n    ${plan1.join("\n    ")}\n  by cursor:\n    ${plan2.join("\n    ")}`);
    // Each side seeks to the cursor and reads at most a page (the sort after is of those rows only).
    for (const plan of [plan1, plan2]) {
      expect(tableScansOf(plan)).toEqual(new Set());
      expect(plan.filter((line) => /change_events_owner_idx \(owner_id=\? AND id>\?\)/.test(line))).toHaveLength(2);
    }
  });
});

/** A database of `user`'s with a select property Status (one option, Todo) and a row per title, each Todo. */
async function databaseWithRows(user: TestUser, titles: string[]) {
  const database = await api<{ id: string }>("/api/v1/pages", {
    method: "POST",
    auth: user,
    body: { type: "database", title: "Tasks" },
  });
  const status = await api<{ id: string; options: { id: string }[] }>(
    `/api/v1/databases/${database.body.id}/properties`,
    { method: "POST", auth: user, body: { name: "Status", type: "select", options: [{ name: "Todo" }] } },
  );
  const rows = await api<{ ids: string[] }>(`/api/v1/databases/${database.body.id}/rows/batch`, {
    method: "POST",
    auth: user,
    body: { rows: titles.map((title) => ({ title, properties: { Status: "Todo" } })) },
  });
  expect(rows.status).toBe(201);
  return { database, status, rows };
}
