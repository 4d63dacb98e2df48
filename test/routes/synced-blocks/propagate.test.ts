import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../../helpers/api";
import { describeAuthMatrix, expectErrorBody } from "../../helpers/auth-matrix";
import {
  BLOCKS,
  type BlockTree,
  createBlock,
  hierarchyOf,
  ISO_DATE_TIME,
  insertBlock,
  insertBlocks,
  storedRow,
  UUID,
} from "../../helpers/blocks";
import { createDatabase, createRow, getSchema, queryRows, schemaRecords } from "../../helpers/databases";
import {
  insertLink,
  link,
  propagate,
  readSyncTarget,
  SYNCED,
  setupSyncTarget,
  storedLink,
  storedSubtree,
  unlink,
} from "../../helpers/synced-blocks";

describeAuthMatrix({
  name: "POST /api/v1/synced-blocks/source/{sourceBlockId}/propagate",
  method: "POST",
  path: (id) => `${SYNCED}/source/${id}/propagate`,
  setup: (owner) => setupSyncTarget(owner, "source"),
  readBack: readSyncTarget,
});

/** What a copy must equal: a tree without ids, parents, owners or times. */
function shape(tree: BlockTree): unknown {
  return {
    type: tree.type,
    properties: tree.properties,
    content: tree.content,
    position: tree.position,
    children: tree.children.map(shape),
  };
}

function ids(tree: BlockTree): string[] {
  return [tree.id, ...tree.children.flatMap(ids)];
}

/**
 * A source under its own page: a callout with a paragraph child (with a to-do child), a
 * heading, and an archived child (not copied); and instances under another page, each a
 * paragraph with content and a child (with a child) of its own.
 */
async function arrange(user: TestUser, instances = 2) {
  const sourcePage = await createBlock(user, { type: "page", properties: { title: "Source page" } });
  const source = await createBlock(user, {
    type: "callout",
    parent_id: sourcePage.id,
    properties: { title: "Source", color: "blue", nested: { a: 1 } },
    content: [{ text: "source body" }],
  });
  const child = await createBlock(user, {
    parent_id: source.id,
    properties: { title: "First" },
    content: [{ text: "first body" }],
    position: 1,
  });
  const grandchild = await createBlock(user, {
    type: "to_do",
    parent_id: child.id,
    properties: { title: "Nested", checked: true },
    position: 1,
  });
  const heading = await createBlock(user, { type: "heading-2", parent_id: source.id, position: 2.5 });
  const archived = await createBlock(user, { parent_id: source.id, properties: { title: "Archived" } });
  expect((await api(`${BLOCKS}/${archived.id}/archive`, { method: "POST", auth: user })).status).toBe(200);

  const instancePage = await createBlock(user, { type: "page", properties: { title: "Instance page" } });
  const made = [];
  for (let i = 0; i < instances; i++) {
    const instance = await createBlock(user, {
      parent_id: instancePage.id,
      properties: { title: `Instance ${i}`, extra: "dropped" },
      content: [{ text: "old body" }],
      position: 7 + i,
    });
    const old = await createBlock(user, { parent_id: instance.id, properties: { title: "Old child" } });
    const oldGrandchild = await createBlock(user, { parent_id: old.id, properties: { title: "Old grandchild" } });
    made.push({ instance, old: [old.id, oldGrandchild.id] });
  }
  return {
    sourcePage,
    source,
    sourceIds: [source.id, child.id, grandchild.id, heading.id],
    archived,
    instancePage,
    instances: made,
  };
}

const sourceTree = async (user: TestUser, id: string) => (await hierarchyOf(user, id, "?depth=25")).body;

describe("POST /api/v1/synced-blocks/source/{sourceBlockId}/propagate", () => {
  it("copies type, properties, content and the active subtree onto each instance, which keeps its place", async () => {
    const user = await createUser();
    const { source, sourceIds, instances, instancePage } = await arrange(user);
    for (const { instance } of instances) await link(user, source.id, instance.id);
    const sourceBefore = await Promise.all(sourceIds.map(storedRow));
    const expected = shape(await sourceTree(user, source.id));

    const res = await propagate(user, source.id);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      source_block_id: source.id,
      updated: 2,
      instance_block_ids: instances.map(({ instance }) => instance.id).sort(),
      skipped_instance_block_ids: [],
      copied_blocks: 6,
      last_synced_at: expect.stringMatching(ISO_DATE_TIME),
    });
    // One read, one batch.
    expect(res.queryRoundTrips).toBe(2);

    const copyIds = new Set<string>();
    for (const [i, { instance, old }] of instances.entries()) {
      const tree = await sourceTree(user, instance.id);
      // The instance's own place and identity stay; what it shows is the source's.
      expect(tree).toMatchObject({
        id: instance.id,
        type: "callout",
        parent_id: instancePage.id,
        position: 7 + i,
        properties: { title: "Source", color: "blue", nested: { a: 1 } },
        content: [{ text: "source body" }],
        created_by: user.id,
        created_at: instance.created_at,
        last_edited_by: user.id,
        updated_at: res.body.last_synced_at,
        archived: false,
        in_trash: false,
      });
      expect(shape(tree)).toEqual({ ...(expected as object), position: 7 + i });
      // The old descendants are gone; the copies are new blocks.
      for (const id of old) expect(await storedRow(id)).toBeNull();
      const copies = ids(tree).slice(1);
      expect(copies).toHaveLength(3);
      for (const id of copies) {
        expect(id).toMatch(UUID);
        expect(sourceIds).not.toContain(id);
        copyIds.add(id);
      }
      for (const row of await storedSubtree(instance.id)) {
        expect(row).toMatchObject({ created_by: user.id, last_edited_by: user.id, archived: 0, in_trash: 0 });
      }
      expect(await storedLink(instance.id)).toMatchObject({
        status: "synced",
        last_synced_at: res.body.last_synced_at,
      });
    }
    expect(copyIds.size).toBe(6);
    // The source is untouched.
    expect(await Promise.all(sourceIds.map(storedRow))).toEqual(sourceBefore);
  });

  it("a second propagation replaces the first copies (new ids, nothing accumulates) and carries later edits", async () => {
    const user = await createUser();
    const { source, instances } = await arrange(user, 1);
    const instance = instances[0]?.instance.id as string;
    await link(user, source.id, instance);
    expect((await propagate(user, source.id)).status).toBe(200);
    const first = ids(await sourceTree(user, instance)).slice(1);

    await api(`${BLOCKS}/${source.id}`, { method: "PATCH", auth: user, body: { properties: { title: "Edited" } } });
    const added = await createBlock(user, { parent_id: source.id, properties: { title: "Added" }, position: 9 });
    const res = await propagate(user, source.id);
    expect(res.status).toBe(200);
    expect(res.body.copied_blocks).toBe(4);

    const tree = await sourceTree(user, instance);
    expect(tree.properties).toMatchObject({ title: "Edited" });
    expect(shape(tree)).toEqual({ ...(shape(await sourceTree(user, source.id)) as object), position: 7 });
    const second = ids(tree).slice(1);
    expect(second).toHaveLength(4);
    for (const id of first) {
      expect(second).not.toContain(id);
      expect(await storedRow(id)).toBeNull();
    }
    expect(second).not.toContain(added.id);
  });

  it("propagates to 100 instances in one request: one read and one batch", async () => {
    const user = await createUser();
    const page = await createBlock(user, { type: "page", properties: { title: "Hundred" } });
    const [source] = await insertBlocks([
      {
        type: "callout",
        parent_id: page.id,
        properties: { title: "Source" },
        content: [{ text: "s" }],
        created_by: user.id,
      },
    ]);
    const [child, other] = await insertBlocks([
      { parent_id: source, properties: { title: "Child" }, position: 1, created_by: user.id },
      { type: "heading-1", parent_id: source, properties: { title: "Other" }, position: 2, created_by: user.id },
    ]);
    await insertBlocks([{ type: "to_do", parent_id: child, properties: { title: "Deep" }, created_by: user.id }]);
    const instances = await insertBlocks(
      Array.from({ length: 100 }, (_, i) => ({
        parent_id: page.id,
        properties: { title: `Instance ${i}` },
        position: 10 + i,
        created_by: user.id,
      })),
    );
    const oldChildren = await insertBlocks(
      instances.map((instance) => ({ parent_id: instance, properties: { title: "Old" }, created_by: user.id })),
    );
    const now = new Date().toISOString();
    await env.DB.batch(
      instances.map((instance) =>
        env.DB.prepare(
          "INSERT INTO synced_blocks (id, source_block_id, instance_block_id, created_by, created_at) VALUES (?, ?, ?, ?, ?)",
        ).bind(crypto.randomUUID(), source, instance, user.id, now),
      ),
    );

    const res = await propagate(user, source as string);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updated).toBe(100);
    expect(res.body.instance_block_ids).toEqual([...instances].sort());
    expect(res.body.copied_blocks).toBe(300);
    expect(res.queryRoundTrips).toBe(2);
    expect(res.roundTrips).toBeLessThanOrEqual(3);
    console.log(
      `[synced-blocks] propagate to 100 instances: ${res.roundTrips} D1 round trips (${res.queryRoundTrips} after auth); ${res.headers.get("Server-Timing")}`,
    );

    const stats = await env.DB.prepare(
      `SELECT
        (SELECT count(*) FROM blocks WHERE id IN (SELECT value FROM json_each(?1))
           AND type = 'callout' AND properties = '{"title":"Source"}' AND content = '[{"text":"s"}]') AS updated,
        (SELECT count(*) FROM blocks WHERE parent_id IN (SELECT value FROM json_each(?1))) AS children,
        (SELECT count(DISTINCT c.id) FROM blocks c JOIN blocks p ON c.parent_id = p.id
           WHERE p.parent_id IN (SELECT value FROM json_each(?1)) AND c.type = 'to_do') AS grandchildren,
        (SELECT count(*) FROM blocks WHERE id IN (SELECT value FROM json_each(?2))) AS old_left,
        (SELECT count(*) FROM synced_blocks WHERE source_block_id = ?3 AND last_synced_at = ?4) AS synced`,
    )
      .bind(JSON.stringify(instances), JSON.stringify(oldChildren), source, res.body.last_synced_at)
      .first();
    expect(stats).toEqual({ updated: 100, children: 200, grandchildren: 100, old_left: 0, synced: 100 });
    // Every instance has its own copies (none shared, none the source's).
    const copy = await sourceTree(user, instances[42] as string);
    expect(shape(copy)).toEqual({ ...(shape(await sourceTree(user, source as string)) as object), position: 52 });
    expect(ids(copy).slice(1)).not.toContain(child);
    expect(ids(copy).slice(1)).not.toContain(other);
  });

  it("leaves unlinked instances as they are, and does not count them", async () => {
    const user = await createUser();
    const { source, instances } = await arrange(user, 2);
    const [kept, left] = instances.map(({ instance }) => instance.id) as [string, string];
    await link(user, source.id, kept);
    await link(user, source.id, left);
    await unlink(user, left);
    const before = { row: await storedRow(left), subtree: await storedSubtree(left), link: await storedLink(left) };

    const res = await propagate(user, source.id);

    expect(res.body).toMatchObject({ updated: 1, instance_block_ids: [kept] });
    expect({ row: await storedRow(left), subtree: await storedSubtree(left), link: await storedLink(left) }).toEqual(
      before,
    );
    expect((await storedRow(kept))?.type).toBe("callout");
  });

  it("answers 0 for a source without synced instances, in one round trip", async () => {
    const user = await createUser();
    const { source } = await arrange(user, 0);
    const res = await propagate(user, source.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ updated: 0, instance_block_ids: [], copied_blocks: 0 });
    expect(res.queryRoundTrips).toBe(1);
  });

  it("404 for another user's source or an unknown one", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const { source, instances } = await arrange(owner, 1);
    await link(owner, source.id, instances[0]?.instance.id as string);
    expectErrorBody(await propagate(intruder, source.id), 404);
    expectErrorBody(await propagate(owner, "no-such-block"), 404);
    expect((await storedLink(instances[0]?.instance.id as string))?.last_synced_at).toBeNull();
  });

  it("takes {} or no body; 400 for unknown fields or a body that is not JSON", async () => {
    const user = await createUser();
    const { source } = await arrange(user, 0);
    const path = `${SYNCED}/source/${source.id}/propagate`;
    expect((await api(path, { method: "POST", auth: user, body: {} })).status).toBe(200);
    expectErrorBody(await api(path, { method: "POST", auth: user, body: { instance_block_ids: [] } }), 400);
    expectErrorBody(await api(path, { method: "POST", auth: user, body: "{" }), 400);
  });

  it("updates only the instances the caller can see; copies under a shared instance are shared", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const source = await insertBlock({ type: "quote", created_by: null, properties: { title: "Shared source" } });
    await insertBlocks([{ parent_id: source, properties: { title: "Shared child" }, created_by: null }]);
    const bobs = await createBlock(bob, { properties: { title: "Bob's instance" } });
    const shared = await insertBlock({ created_by: null, properties: { title: "Shared instance" } });
    // Under the shared instance: Bob's own child (Alice cannot see it), and a shared child holding another of Bob's.
    const [bobsChild, sharedChild] = await insertBlocks([
      { parent_id: shared, properties: { title: "Bob's child" }, created_by: bob.id },
      { parent_id: shared, properties: { title: "Shared child" }, created_by: null },
    ]);
    const bobsGrandchild = await insertBlock({ parent_id: sharedChild, created_by: bob.id });
    await link(bob, source, bobs.id);
    await link(alice, source, shared);
    const bobsBefore = { row: await storedRow(bobs.id), link: await storedLink(bobs.id) };

    const res = await propagate(alice, source);

    expect(res.body).toMatchObject({ updated: 1, instance_block_ids: [shared] });
    expect({ row: await storedRow(bobs.id), link: await storedLink(bobs.id) }).toEqual(bobsBefore);
    expect(await storedRow(shared)).toMatchObject({ type: "quote", created_by: null, last_edited_by: alice.id });
    // Bob's child stays where it was; the shared child is replaced; Bob's block under it goes to the top level.
    expect(await storedRow(bobsChild as string)).toMatchObject({ parent_id: shared, created_by: bob.id });
    expect(await storedRow(sharedChild as string)).toBeNull();
    expect(await storedRow(bobsGrandchild)).toMatchObject({ parent_id: null, created_by: bob.id });
    const copies = (await storedSubtree(shared)).filter((row) => row.created_by !== bob.id);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ created_by: null, properties: JSON.stringify({ title: "Shared child" }) });
    // Bob sees the shared copy.
    const seen = await hierarchyOf(bob, shared);
    expect(seen.body.children.map((c) => c.properties.title).sort()).toEqual(["Bob's child", "Shared child"]);
  });

  it("copies keep their owner under a shared instance: a private block's copy stays private to its owner", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const source = await insertBlock({ type: "callout", created_by: null, properties: { title: "Shared source" } });
    const [privateChild] = await insertBlocks([
      { parent_id: source, properties: { title: "Alice's private child" }, position: 1, created_by: alice.id },
      { parent_id: source, properties: { title: "Shared child" }, position: 2, created_by: null },
    ]);
    await insertBlock({ parent_id: privateChild, properties: { title: "Shared under private" }, created_by: null });
    const shared = await insertBlock({ created_by: null, properties: { title: "Shared instance" } });
    await link(alice, source, shared);

    const res = await propagate(alice, source);

    expect(res.body).toMatchObject({ updated: 1, copied_blocks: 3 });
    const copies = await storedSubtree(shared);
    expect(copies.map((row) => [JSON.parse(row.properties as string).title, row.created_by])).toEqual([
      ["Alice's private child", alice.id],
      ["Shared child", null],
      ["Shared under private", null],
    ]);
    const privateCopy = copies[0]?.id as string;
    // Alice sees both copies; Bob sees the shared one only, and not the private copy by its id.
    const titles = async (user: TestUser) =>
      (await hierarchyOf(user, shared)).body.children.map((child) => child.properties.title).sort();
    expect(await titles(alice)).toEqual(["Alice's private child", "Shared child"]);
    expect(await titles(bob)).toEqual(["Shared child"]);
    expectErrorBody(await api(`${BLOCKS}/${privateCopy}`, { auth: bob }), 404);
  });

  it("never propagates through a link whose source is less visible than its instance (made before links refused it)", async () => {
    const alice = await createUser();
    const source = await createBlock(alice, { type: "callout", properties: { title: "Alice's private source" } });
    await createBlock(alice, { parent_id: source.id, properties: { title: "Private child" } });
    const shared = await insertBlock({ created_by: null, properties: { title: "Shared instance" } });
    const sharedChild = await insertBlock({
      parent_id: shared,
      created_by: null,
      properties: { title: "Shared child" },
    });
    await insertLink(source.id, shared, alice.id);
    const before = [await storedRow(shared), await storedRow(sharedChild), await storedLink(shared)];

    const res = await propagate(alice, source.id);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ updated: 0, instance_block_ids: [], copied_blocks: 0 });
    expect([await storedRow(shared), await storedRow(sharedChild), await storedLink(shared)]).toEqual(before);
  });

  it("copies a database in the subtree with its schema records and rows, pointing at the copies", async () => {
    const user = await createUser();
    const { source, instances } = await arrange(user, 1);
    const database = await createDatabase(user, { parentId: source.id, title: "Inner tasks" });
    const row = await createRow(user, database.id, { title: "Row one", Status: "Todo" });
    const instance = instances[0]?.instance.id as string;
    await link(user, source.id, instance);

    const res = await propagate(user, source.id);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const copies = await storedSubtree(instance);
    const databaseCopy = copies.find((r) => r.type === "database") as { id: string };
    expect(databaseCopy.id).not.toBe(database.id);
    const records = await schemaRecords(database.id);
    expect(await schemaRecords(databaseCopy.id)).toEqual(
      records.map((record) => ({ ...record, database_id: databaseCopy.id })),
    );
    expect((await getSchema(user, databaseCopy.id)).status).toBe(200);
    const rows = await queryRows(user, databaseCopy.id);
    expect(rows.body).toHaveLength(1);
    expect(rows.body[0]?.id).not.toBe(row.id);
    const original = await storedRow(row.id);
    expect(rows.body[0]?.properties).toEqual(JSON.parse(String(original?.properties)));
    expect(await storedRow(rows.body[0]?.id as string)).toMatchObject({ database_id: databaseCopy.id });
  });

  describe("refused propagations change nothing", () => {
    async function snapshot(instances: string[], sourceId: string) {
      return {
        instances: await Promise.all(instances.map(storedRow)),
        subtrees: await Promise.all(instances.map(storedSubtree)),
        links: await Promise.all(instances.map(storedLink)),
        source: await storedSubtree(sourceId),
      };
    }

    it("409 when an instance was moved inside the source", async () => {
      const user = await createUser();
      const { source, instances } = await arrange(user, 2);
      const [inside, other] = instances.map(({ instance }) => instance.id) as [string, string];
      await link(user, source.id, inside);
      await link(user, source.id, other);
      await api(`${BLOCKS}/${inside}/move`, { method: "POST", auth: user, body: { parent_id: source.id } });
      const before = await snapshot([inside, other], source.id);

      const res = await propagate(user, source.id);

      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({
        details: { hazards: [{ instance_block_id: inside, reason: "instance_inside_source" }] },
      });
      expect(await snapshot([inside, other], source.id)).toEqual(before);
    });

    it("409 when the source was moved inside an instance", async () => {
      const user = await createUser();
      const { source, instances } = await arrange(user, 1);
      const instance = instances[0]?.instance.id as string;
      await link(user, source.id, instance);
      await api(`${BLOCKS}/${source.id}/move`, {
        method: "POST",
        auth: user,
        body: { parent_id: instances[0]?.old[0] },
      });
      const before = await snapshot([instance], source.id);

      const res = await propagate(user, source.id);

      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({
        details: { hazards: [{ instance_block_id: instance, reason: "contains_source" }] },
      });
      expect(await snapshot([instance], source.id)).toEqual(before);
    });

    it("409 when an instance lies inside another instance of the same source", async () => {
      const user = await createUser();
      const { source, instances } = await arrange(user, 2);
      const [outer, inner] = instances.map(({ instance }) => instance.id) as [string, string];
      await link(user, source.id, outer);
      await link(user, source.id, inner);
      await api(`${BLOCKS}/${inner}/move`, { method: "POST", auth: user, body: { parent_id: instances[0]?.old[1] } });
      const before = await snapshot([outer, inner], source.id);

      const res = await propagate(user, source.id);

      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({
        details: { hazards: [{ instance_block_id: inner, reason: "inside_another_instance" }] },
      });
      expect(await snapshot([outer, inner], source.id)).toEqual(before);
    });

    it("409 when the source has become a database; an instance that has is skipped", async () => {
      const user = await createUser();
      const { source, instances } = await arrange(user, 2);
      const [plain, converted] = instances.map(({ instance }) => instance.id) as [string, string];
      await link(user, source.id, plain);
      await link(user, source.id, converted);
      const convert = (id: string) =>
        api(`${BLOCKS}/${id}/convert`, { method: "POST", auth: user, body: { type: "database" } });
      expect((await convert(converted)).status).toBe(200);
      const convertedBefore = { row: await storedRow(converted), subtree: await storedSubtree(converted) };

      const res = await propagate(user, source.id);
      expect(res.body).toMatchObject({
        updated: 1,
        instance_block_ids: [plain],
        skipped_instance_block_ids: [converted],
      });
      expect({ row: await storedRow(converted), subtree: await storedSubtree(converted) }).toEqual(convertedBefore);

      expect((await convert(source.id)).status).toBe(200);
      const before = await snapshot([plain], source.id);
      const refused = await propagate(user, source.id);
      expectErrorBody(refused, 409);
      expect(refused.body).toMatchObject({ details: { type: "database" } });
      expect(await snapshot([plain], source.id)).toEqual(before);
    });

    it("400 beyond 10,000 blocks written (100 instances of a source with 100 descendants)", async () => {
      const user = await createUser();
      const source = await insertBlock({ type: "callout", created_by: user.id });
      await insertBlocks(Array.from({ length: 100 }, () => ({ parent_id: source, created_by: user.id })));
      const instances = await insertBlocks(Array.from({ length: 100 }, () => ({ created_by: user.id })));
      await env.DB.batch(
        instances.map((instance) =>
          env.DB.prepare(
            "INSERT INTO synced_blocks (id, source_block_id, instance_block_id, created_by) VALUES (?, ?, ?, ?)",
          ).bind(crypto.randomUUID(), source, instance, user.id),
        ),
      );
      const before = await snapshot(instances.slice(0, 3), source);

      const res = await propagate(user, source);

      expectErrorBody(res, 400);
      expect(res.body).toMatchObject({ details: { instances: 100, subtree_blocks: 100, max_blocks: 10_000 } });
      expect(await snapshot(instances.slice(0, 3), source)).toEqual(before);
    });

    it("is atomic: a failure injected in the middle of the batch leaves every instance as it was", async () => {
      const user = await createUser();
      const { source, instances } = await arrange(user, 3);
      const marker = `inject${crypto.randomUUID().replaceAll("-", "")}`;
      await createBlock(user, { parent_id: source.id, properties: { title: marker } });
      const instanceIds = instances.map(({ instance }) => instance.id);
      for (const id of instanceIds) await link(user, source.id, id);
      const before = await snapshot(instanceIds, source.id);
      // Copies are inserted after the old descendants are deleted and the instances updated:
      // a failing copy must undo those too.
      await env.DB.prepare(
        `CREATE TRIGGER ${marker} BEFORE INSERT ON blocks WHEN NEW.properties LIKE '%${marker}%'
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      ).run();
      try {
        const res = await propagate(user, source.id);
        expectErrorBody(res, 500);
      } finally {
        await env.DB.prepare(`DROP TRIGGER ${marker}`).run();
      }
      expect(await snapshot(instanceIds, source.id)).toEqual(before);
      const copiesOfMarker = await env.DB.prepare("SELECT count(*) AS n FROM blocks WHERE properties LIKE ?")
        .bind(`%${marker}%`)
        .first<{ n: number }>();
      expect(copiesOfMarker?.n).toBe(1);
      // Nothing is left half-done: the same propagation then succeeds.
      expect((await propagate(user, source.id)).body.updated).toBe(3);
    });
  });

  it("concurrent propagations of one source leave each instance with exactly one set of copies", async () => {
    const user = await createUser();
    const { source, instances } = await arrange(user, 3);
    for (const { instance } of instances) await link(user, source.id, instance.id);
    const results = await Promise.all(Array.from({ length: 4 }, () => propagate(user, source.id)));
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = shape(await sourceTree(user, source.id)) as object;
    for (const [i, { instance }] of instances.entries()) {
      expect(shape(await sourceTree(user, instance.id))).toEqual({ ...expected, position: 7 + i });
      expect(await storedSubtree(instance.id)).toHaveLength(3);
    }
  });
});
