import { describe, expect, it } from "vitest";
import type { BlockVersion } from "../../../src/schemas/changes";
import { type ApiResponse, api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import { BLOCKS, type Block, createBlock, getBlock, issuePaths } from "../../helpers/blocks";
import { about, changesAfter, feedEnd } from "../../helpers/changes";
import { expectPreconditionFailed, expectWrittenTag, sendWith } from "../../helpers/conditional";
import { createDatabase, createRow, DATABASES } from "../../helpers/databases";
import { createPage } from "../../helpers/pages";

const historyOf = (user: TestUser, id: string, query = ""): Promise<ApiResponse<BlockVersion[]>> =>
  api<BlockVersion[]>(`${BLOCKS}/${id}/history${query ? `?${query}` : ""}`, { auth: user });
const restore = (user: TestUser, id: string, eventId: number): Promise<ApiResponse<Block>> =>
  api<Block>(`${BLOCKS}/${id}/history/${eventId}/restore`, { method: "POST", auth: user });
const patch = async (user: TestUser, id: string, body: unknown) => {
  const res = await api<Block>(`${BLOCKS}/${id}`, { method: "PATCH", auth: user, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** A page with three versions: created, retitled with a new body, then retitled again. */
async function pageWithVersions(user: TestUser) {
  const page = await createPage(user, {
    title: "First title",
    content: [{ type: "paragraph", children: [{ text: "First body" }] }],
  });
  await patch(user, page.id, {
    properties: { title: "Second title", icon: "📄" },
    content: [{ type: "paragraph", children: [{ text: "Second body" }] }],
  });
  await patch(user, page.id, { properties: { title: "Third title" } });
  const history = await historyOf(user, page.id);
  expect(history.status).toBe(200);
  return { id: page.id, versions: history.body };
}

describeAuthMatrix({
  name: "GET /api/v1/blocks/{id}/history",
  method: "GET",
  path: (id) => `${BLOCKS}/${id}/history`,
  setup: (owner) => createBlock(owner, { properties: { text: "private" } }),
});

describeAuthMatrix({
  name: "POST /api/v1/blocks/{id}/history/{event_id}/restore",
  method: "POST",
  // The target's id carries the event's: `<block>/history/<event>`.
  path: (target) => `${BLOCKS}/${target}/restore`,
  setup: async (owner) => {
    const { id, versions } = await pageWithVersions(owner);
    return { id: `${id}/history/${versions.at(-1)?.event_id}` };
  },
  readBack: (owner, target) => getBlock(owner, target.id.split("/")[0] as string).then((res) => res.body),
});

describe("a block's history", () => {
  it("lists its versions newest first: the change, when, who, and its properties and content", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    expect(versions.map((version) => [version.type, version.changed_fields, version.properties.title])).toEqual([
      ["block.updated", ["properties"], "Third title"],
      ["block.updated", ["properties", "content"], "Second title"],
      ["block.created", null, "First title"],
    ]);
    expect(versions[1]?.content).toEqual([{ type: "paragraph", children: [{ text: "Second body" }] }]);
    expect(versions[2]?.content).toEqual([{ type: "paragraph", children: [{ text: "First body" }] }]);
    for (const version of versions) {
      expect(version.actor_id).toBe(user.id);
      expect(version.block_type).toBe("page");
    }
    // The newest is the block as it is.
    const current = (await getBlock(user, id)).body;
    expect(versions[0]?.properties).toEqual(current.properties);
    // The event ids are the feed's.
    const ids = versions.map((version) => version.event_id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it("pages with a cursor, and is kept for a trashed block", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    await api(`${BLOCKS}/${id}/trash`, { method: "POST", auth: user });
    const first = await historyOf(user, id, "limit=2");
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Total-Count")).toBe("4");
    expect(first.body.map((version) => version.changed_fields)).toEqual([["in_trash"], ["properties"]]);
    const rest = await historyOf(user, id, `limit=2&cursor=${first.headers.get("X-Next-Cursor")}`);
    expect(rest.body.map((version) => version.event_id)).toEqual(versions.slice(1).map((version) => version.event_id));
    expect(rest.headers.get("X-Next-Cursor")).toBeNull();
  });

  it("is a 404 for a block nobody has", async () => {
    expectErrorBody(await historyOf(await createUser(), "no-such-block"), 404);
  });

  it("holds only the present block's versions when its id was another's, deleted: none of theirs to read or restore", async () => {
    const [first, second] = [await createUser(), await createUser()];
    const id = `reused-${crypto.randomUUID()}`;
    await createBlock(first, { id, type: "page", properties: { title: "The first owner's secret" } });
    await patch(first, id, { properties: { title: "The first owner's second secret" } });
    const earlier = (await historyOf(first, id)).body;
    expect((await api(`${BLOCKS}/${id}`, { method: "DELETE", auth: first })).status).toBe(200);

    for (const owner of [second, first]) {
      await createBlock(owner, { id, type: "page", properties: { title: "A new page" } });
      const history = await historyOf(owner, id);
      expect(history.status).toBe(200);
      expect(history.body.map((version) => version.properties)).toEqual([{ title: "A new page" }]);
      for (const version of earlier) expectErrorBody(await restore(owner, id, version.event_id), 404);
      expect((await api(`${BLOCKS}/${id}`, { method: "DELETE", auth: owner })).status).toBe(200);
    }
  });
});

describe("restoring a version", () => {
  it("writes its properties (whole) and content back as a new change, itself in the history and undoable", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    const start = await feedEnd(user);
    const first = versions.at(-1) as BlockVersion;
    const restored = await restore(user, id, first.event_id);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    // The icon added later is gone: the version's properties replace the present ones.
    expect(restored.body.properties).toEqual({ title: "First title" });
    expect(restored.body.content).toEqual(first.content);
    expect((await getBlock(user, id)).body).toEqual(restored.body);

    const events = about((await changesAfter(user, start)).events, [id]);
    expect(events.map((event) => [event.type, event.changed_fields, event.actor_id])).toEqual([
      ["block.updated", ["properties", "content"], user.id],
    ]);
    const after = (await historyOf(user, id)).body;
    expect(after[0]?.event_id).toBe(events[0]?.id);
    // Undone by restoring the version before it.
    const undone = await restore(user, id, after[1]?.event_id as number);
    expect(undone.body.properties).toEqual({ title: "Third title", icon: "📄" });
    expect(undone.body.content).toEqual(versions[0]?.content);
  });

  it("validates a row's values against its database's schema as it is now", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      properties: [{ name: "Status", type: "select", options: [{ name: "Todo" }, { name: "Done" }] }],
    });
    const row = await createRow(user, database.id, { title: "Task", Status: "Todo" });
    const [created] = (await historyOf(user, row.id)).body;
    await patch(user, row.id, { properties: { Status: "Done" } });
    const status = database.prop("Status");
    const todo = database.option("Status", "Todo");
    // The option the first version holds is removed (the row holds Done: no rewrite of it).
    const removed = await api(`${DATABASES}/${database.id}/properties/${status.id}/options/${todo.id}`, {
      method: "DELETE",
      auth: user,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const refused = await restore(user, row.id, created?.event_id as number);
    expectErrorBody(refused, 400);
    expect(JSON.stringify(refused.body)).toContain("is not an option");
    expect((await getBlock(user, row.id)).body.properties).toMatchObject({ [status.id]: { name: "Done" } });
  });

  it("refuses an event id that is not written in decimal digits (400 naming event_id)", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { text: "v1" } });
    const [version] = (await historyOf(user, block.id)).body;
    const eventId = version?.event_id as number;
    for (const spelling of [`0x${eventId.toString(16)}`, `${eventId}.0`, `${eventId}e0`]) {
      const refused = await api(`${BLOCKS}/${block.id}/history/${spelling}/restore`, { method: "POST", auth: user });
      expectErrorBody(refused, 400);
      expect(issuePaths(refused.body), spelling).toContain("event_id");
    }
  });

  it("is a 409 for a version of another type, and a 404 for an event of another block", async () => {
    const user = await createUser();
    const block = await createBlock(user, { properties: { text: "plain" } });
    const [asParagraph] = (await historyOf(user, block.id)).body;
    expect(
      (await api(`${BLOCKS}/${block.id}/convert`, { method: "POST", auth: user, body: { type: "heading-1" } })).status,
    ).toBe(200);
    const refused = await restore(user, block.id, asParagraph?.event_id as number);
    expectErrorBody(refused, 409);
    expect(refused.body).toMatchObject({ code: "conflict", details: { version: { type: "paragraph" } } });

    const other = await createBlock(user);
    expectErrorBody(await restore(user, other.id, asParagraph?.event_id as number), 404);
  });

  it("takes If-Match as every write of a block (RFC 9110 §13.1.1): a stale tag is a 412 with the current one, and nothing is written", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    const path = `${BLOCKS}/${id}/history/${versions.at(-1)?.event_id}/restore`;
    const current = (await getBlock(user, id)).headers.get("ETag");
    const start = await feedEnd(user);
    await patch(user, id, { properties: { title: "Meanwhile" } });
    const moved = (await getBlock(user, id)).headers.get("ETag");

    expectPreconditionFailed(await sendWith(user, "POST", path, { "If-Match": current ?? "" }), moved);
    expect((await getBlock(user, id)).body.properties).toMatchObject({ title: "Meanwhile" });
    expect(about((await changesAfter(user, start)).events, [id])).toHaveLength(1);

    const restored = await sendWith<Block>(user, "POST", path, { "If-Match": moved ?? "" });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.properties).toEqual({ title: "First title" });
    await expectWrittenTag(restored, moved, () => getBlock(user, id));
  });

  it("takes an Idempotency-Key as every POST: the same request again replays the answer, and restores once", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    const path = `${BLOCKS}/${id}/history/${versions.at(-1)?.event_id}/restore`;
    const start = await feedEnd(user);
    const key = { "Idempotency-Key": `"${crypto.randomUUID()}"` };
    const first = await sendWith<Block>(user, "POST", path, key);
    const again = await sendWith<Block>(user, "POST", path, key);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(about((await changesAfter(user, start)).events, [id])).toHaveLength(1);
  });

  it("costs one read and one write", async () => {
    const user = await createUser();
    const { id, versions } = await pageWithVersions(user);
    const res = await restore(user, id, versions.at(-1)?.event_id as number);
    expect(res.status).toBe(200);
    expect(res.queryRoundTrips).toBe(2);
  });
});
